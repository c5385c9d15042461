// KaTeX, served from this site (web/vendor/katex, copied from npm by tools/build.sh).
import katex from '../vendor/katex/katex.mjs';
import { h } from './dom.js';

/** A <span> holding `expression` typeset inline. katex.render builds DOM nodes (no HTML strings). */
export function tex(expression, { display = false, label } = {}) {
  const span = h('span', { class: display ? 'tex tex-display' : 'tex' });
  katex.render(expression, span, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' });
  if (label) {
    span.setAttribute('role', 'img');
    span.setAttribute('aria-label', label);
  }
  return span;
}
