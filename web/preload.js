// The calculator page's module preload, unbundled (web/): the element's modules import one
// another five levels deep, a round trip per level before the first number shows; named here,
// they are all fetched at once. dist/ bundles the element, so tools/dist.mjs leaves this file out.
import './assets.js';
import './examples.js';
import './calc/calculator-styles.js';
import './calc/calculator.js';
import './calc/checks.js';
import './calc/controls.js';
import './calc/export.js';
import './calc/masks.js';
import './calc/model.js';
import './calc/plot/plot.js';
import './calc/resize-notice.js';
import './calc/share.js';
import './calc/state.js';
import './calc/steps/explain.js';
import './calc/steps/stepper.js';
import './calc/steps/steps.js';
import './calc/verified.js';
import './element/attributes.js';
import './element/keys.js';
import './element/lab-shelf.js';
import './element/page-theme.js';
import './element/print.js';
import './shared/dom.js';
import './shared/files.js';
import './shared/format.js';
import './shared/grid.js';
import './shared/heatmap.js';
import './shared/last-valid.js';
import './shared/parse.js';
import './shared/random.js';
import './shared/seed-input.js';
import './shared/tex.js';
import './vendor/tex-formulas.js';
