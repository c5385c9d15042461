// Formulas, typeset at build time: tools/render-tex.mjs turns every formula in web/calc and
// web/labs into KaTeX's MathML (web/vendor/tex-formulas.js), which the browser draws natively.
// So no TeX engine, stylesheet or web font is downloaded. Every formula is a fixed string in the
// code; none holds live numbers or learner input.
import { FORMULAS } from '../vendor/tex-formulas.js';
import { h } from './dom.js';

// One math font for the whole formula, operator names included, where the system has one (the
// browser's default `math` family may draw words in a sans face). Set through the CSSOM, which the
// strict CSP allows.
const MATH_FONTS = "'Latin Modern Math', 'STIX Two Math', 'Cambria Math', 'DejaVu Math TeX Gyre', math";

/**
 * Adds the formulas of a file render-tex.mjs wrote for some labs alone (the labs past the lesson's
 * vendor/tex-formulas-next-labs.js): each such lab registers its file as its chunk loads.
 */
export function registerFormulas(formulas) {
  for (const [key, markup] of formulas) FORMULAS.set(key, markup);
}

/** A <span> holding `expression` typeset inline, or as a centred block with display. */
export function tex(expression, { display = false, label } = {}) {
  const span = h('span', { class: display ? 'tex tex-display' : 'tex' });
  const markup = FORMULAS.get(`${display ? 'display' : 'inline'}:${expression}`);
  if (markup === undefined) {
    // Not found by the build's scan: show the source rather than nothing, and say so loudly.
    console.error(`attention-calc: the formula ${expression} was not typeset at build time; run tools/build.sh web`);
    span.textContent = expression;
  } else {
    // Build-time output of KaTeX from the formulas above, never text from the page or a learner.
    const template = document.createElement('template');
    template.innerHTML = markup;
    span.append(template.content);
    span.querySelector('math').style.fontFamily = MATH_FONTS;
  }
  if (label) {
    span.setAttribute('role', 'img');
    span.setAttribute('aria-label', label);
  }
  return span;
}
