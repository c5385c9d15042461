// The lesson's checks, live: rows of A sum to 1, outputs lie inside the values' hull. The core
// computes them; this view says what they mean and, in a pitfall mode, why they fail.
import { h } from './dom.js';
import { format } from './format.js';

export class ChecksView {
  constructor() {
    this.sums = h('li');
    this.hull = h('li');
    this.notes = h('div', { class: 'check-notes' });
    this.element = h('section', { class: 'checks', role: 'group', 'aria-label': 'Checks' }, h('h3', { text: 'Checks' }), h('ul', {}, this.sums, this.hull), this.notes);
  }

  update(state, result, precision = 3) {
    const { rowSums, rowSumsToOne, outputInHull } = result.checks;
    const sumsOk = rowSumsToOne.every(Boolean);
    const hullOk = outputInHull.every(Boolean);
    const badSum = rowSumsToOne.findIndex((ok) => !ok);
    const badHull = outputInHull.findIndex((ok) => !ok);
    const afterSoftmax = state.pitfall === 'mask-after-softmax';

    this.#set(this.sums, sumsOk, 'Each row of A sums to 1',
      `(${rowSums.map((s) => format(s, precision)).join(', ')})`,
      sumsOk ? '' : `Row ${badSum + 1} sums to ${format(rowSums[badSum], precision)}${afterSoftmax ? ': the mask zeroed weights after the softmax, and nothing renormalised the rest' : ''}.`);
    this.#set(this.hull, hullOk, 'Every output lies inside the hull of the values',
      state.v[0].length === 1 ? '(the interval of the values)' : result.checks.hullExact ? '' : '(within every coordinate’s range)',
      hullOk ? '' : `Output ${badHull + 1} lies outside: with weights that do not sum to 1 the output is no longer a convex combination of the values, so it is pulled toward 0.`);

    const notes = [];
    result.fullyMasked.forEach((full, i) => {
      if (full) notes.push(`Query ${i + 1} sees no key at all. Its weights and its output are defined as 0 (never NaN), and both checks count the row as passing.`);
    });
    if (['scale-dk', 'no-scale', 'custom-scale'].includes(state.pitfall)) {
      notes.push('Both checks still pass in this pitfall: the harm is to learning. With the wrong scale the softmax is too flat (÷ d_k) or saturates toward one-hot (no scaling, large d_k), where its gradient almost vanishes.');
    }
    this.notes.replaceChildren(...notes.map((text) => h('p', { text })));
  }

  #set(item, ok, label, detail, failure) {
    item.className = ok ? 'pass' : 'fail';
    item.replaceChildren(
      h('span', { class: 'mark', 'aria-hidden': 'true', text: ok ? '✓' : '✗' }),
      h('span', { class: 'sr-only', text: ok ? 'Passes: ' : 'Fails: ' }),
      `${label} `, h('span', { class: 'detail', text: detail }),
      failure ? h('span', { class: 'why', text: ` ${failure}` }) : '');
  }
}
