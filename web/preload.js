// The calculator page's module preload, unbundled (web/): the element's modules import one
// another five levels deep, a round trip per level before the first number shows; named here,
// they are all fetched at once. dist/ bundles the element, so tools/dist.mjs leaves this file out.
import './assets.js';
import './examples.js';
import './calc/attributes.js';
import './calc/calculator-styles.js';
import './calc/calculator.js';
import './calc/checks.js';
import './calc/dom.js';
import './calc/explain.js';
import './calc/export.js';
import './calc/files.js';
import './calc/format.js';
import './calc/heatmap.js';
import './calc/masks.js';
import './calc/parse.js';
import './calc/plot.js';
import './calc/random.js';
import './calc/stepper.js';
import './calc/steps.js';
import './calc/tex.js';
import './vendor/tex-formulas.js';
