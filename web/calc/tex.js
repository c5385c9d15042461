// KaTeX, served from this site (vendor/katex, copied from npm by tools/build.sh), located
// relative to the widget's own files so an embedding page needs no path of its own.
import { asset } from '../assets.js';
import { h } from './dom.js';

const { default: katex } = await import(asset('vendor/katex/katex.mjs'));

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
