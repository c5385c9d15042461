// The lesson's checks, live: rows of A sum to 1, outputs lie inside the values' hull. The core
// computes them; this view says what they mean and, in a pitfall mode, why they fail. A query
// that sees no key is exempt from both (its weights and output are defined as 0), and the view
// says so rather than counting it as a pass.
import { h, sub } from '../shared/dom.js';
import { format } from '../shared/format.js';

const EXEMPT = 'exempt: no key visible';

/** "z₁", "z₁ and z₃", "z₁, z₂ and z₃" for output indices (0-based). */
export function outputNames(indices) {
  const names = indices.map((i) => `z${sub(i + 1)}`);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export class ChecksView {
  constructor() {
    this.sums = h('li');
    this.hull = h('li');
    this.notes = h('div', { class: 'check-notes' });
    this.element = h('section', { class: 'checks', role: 'group', 'aria-label': 'Checks' }, h('h3', { text: 'Checks' }), h('ul', {}, this.sums, this.hull), this.notes);
  }

  update(state, result, precision = 3) {
    const { rowSums, rowSumsToOne, outputInHull } = result.checks;
    const exempt = result.fullyMasked;
    const rows = exempt.map((_, i) => i);
    const checked = rows.filter((i) => !exempt[i]);
    const exemptRows = rows.filter((i) => exempt[i]);
    const badSums = checked.filter((i) => !rowSumsToOne[i]);
    const badHull = checked.filter((i) => !outputInHull[i]);
    const afterSoftmax = state.pitfall === 'mask-after-softmax';
    const some = exemptRows.length > 0;

    this.#set(this.sums, checked.length ? badSums.length === 0 : null,
      some ? 'Each row of A with a visible key sums to 1' : 'Each row of A sums to 1',
      `(${rowSums.map((s, i) => (exempt[i] ? EXEMPT : format(s, precision))).join(', ')})`,
      badSums.length ? `Row ${badSums[0] + 1} sums to ${format(rowSums[badSums[0]], precision)}${afterSoftmax ? ': the mask zeroed weights after the softmax, and nothing renormalised the rest' : ''}.` : '');

    const range = state.v[0].length === 1 ? 'the interval of the values' : result.checks.hullExact ? '' : 'some rows could not be proven inside within the check’s budget, and count as outside';
    const exemptNote = some ? `${outputNames(exemptRows)} ${EXEMPT}` : '';
    const hullDetail = [range, exemptNote].filter(Boolean).join('; ');
    this.#set(this.hull, checked.length ? badHull.length === 0 : null,
      some ? 'Every output with a visible key lies inside the hull of the values' : 'Every output lies inside the hull of the values',
      hullDetail ? `(${hullDetail})` : '',
      badHull.length ? this.#outside(badHull, rowSumsToOne) : '');

    const notes = exemptRows.map((i) => `Query ${i + 1} sees no key at all. Its weights and its output are defined as 0 (never NaN), so both checks exempt it: row ${i + 1} of A sums to 0, and z${sub(i + 1)} = 0 need not lie inside the hull.`);
    const hint = afterSoftmax ? pitfallHidden(state, result) : '';
    if (['scale-dk', 'no-scale', 'custom-scale'].includes(state.pitfall)) {
      notes.push('Both checks still pass in this pitfall: the harm is to learning. With the wrong scale the softmax is too flat (÷ d_k) or saturates toward one-hot (no scaling, large d_k), where its gradient almost vanishes.');
    }
    this.notes.replaceChildren(
      ...(hint ? [h('p', { class: 'check-hint', role: 'note', text: hint })] : []),
      ...notes.map((text) => h('p', { text })));
  }

  // Outside the hull: in the mask-after-softmax pitfall because the weights no longer sum to 1;
  // with weights that do sum to 1 only rounding could do it, and the view must not blame them.
  #outside(bad, rowSumsToOne) {
    const verb = bad.length === 1 ? 'lies' : 'lie';
    const subject = `Output${bad.length === 1 ? '' : 's'} ${outputNames(bad)}`;
    return bad.some((i) => !rowSumsToOne[i])
      ? `${subject} ${verb} outside: with weights that do not sum to 1 ${bad.length === 1 ? 'the output' : 'each output'} is no longer a convex combination of the values, so it is pulled toward 0.`
      : `${subject} ${verb} outside the hull by more than float32 rounding allows, although ${bad.length === 1 ? 'its weights sum' : 'their weights sum'} to 1.`;
  }

  /** ok: true (passes), false (fails) or null (nothing to check: every row is exempt). */
  #set(item, ok, label, detail, failure) {
    item.className = ok === null ? 'exempt' : ok ? 'pass' : 'fail';
    item.replaceChildren(
      h('span', { class: 'mark', 'aria-hidden': 'true', text: ok === null ? '–' : ok ? '✓' : '✗' }),
      h('span', { class: 'sr-only', text: ok === null ? 'Not checked: ' : ok ? 'Passes: ' : 'Fails: ' }),
      `${label} `, h('span', { class: 'detail', text: ok === null ? '(every query is exempt: no key visible)' : detail }),
      failure ? h('span', { class: 'why', text: ` ${failure}` }) : '');
  }
}

// The mask-after-softmax pitfall shows only in a row that hides some keys and sees others:
// zeroing a weight there leaves the rest summing to less than 1. Otherwise it changes nothing,
// and the learner is told what to turn on to see it.
function pitfallHidden(state, result) {
  const hiddenIn = result.hidden.map((row) => row.filter(Boolean).length);
  const m = result.hidden[0].length;
  if (hiddenIn.some((count) => count > 0 && count < m)) return '';
  if (hiddenIn.every((count) => count === 0)) {
    return state.causal
      ? 'With a single token the causal mask hides nothing, so applying the mask after the softmax changes nothing here: add a token to see the pitfall.'
      : 'No key is hidden, so applying the mask after the softmax changes nothing here: turn on the causal mask or hide a key to see the pitfall.';
  }
  return 'Every hidden key belongs to a query that sees no key at all, so applying the mask after the softmax changes nothing here: turn on the causal mask or hide only some of a query’s keys to see the pitfall.';
}
