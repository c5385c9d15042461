// The text as the model reads it, one box per token, with a focused token (a slider: arrows,
// Home, End, or a click) and, for the head being followed, how much weight the focused token
// puts on each earlier one, the heaviest key marked. The sentence under it says where the head
// looks and, for a repeated token, where an induction head would.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { previousOccurrence, roleLabels, strongestKey, tokenLabel } from './learned-roles.js';

export class TokenStrip {
  /** @param {{ onFocus: (position: number) => void, label?: (token: string) => string }} o */
  constructor({ onFocus, label = tokenLabel }) {
    this.onFocus = onFocus;
    this.label = label;
    this.strip = h('div', {
      class: 'token-strip', role: 'slider', tabindex: 0, 'aria-label': 'Focused token',
      'aria-valuemin': 0, 'aria-orientation': 'horizontal',
      on: { keydown: (e) => this.#key(e), click: (e) => this.#click(e) },
    });
    this.says = h('p', { class: 'look-readout', role: 'status' });
    this.element = h('div', { class: 'token-view' },
      h('p', { class: 'hint', text: 'Pick the focused token (orange frame) with the arrow keys or a click. Each token up to it is tinted by the weight the followed head gives it from there, the largest framed; a dotted underline marks the token after the previous occurrence of the focused one, where an induction head looks.' }),
      this.strip, this.says);
  }

  /**
   * @param {object} o
   * @param {string[]} o.tokens
   * @param {number} o.focus
   * @param {{ name: string, data: import('../../attention.js').LearnedHead }} o.head  the followed head
   */
  update({ tokens, focus, head }) {
    this.tokens = tokens;
    this.focus = focus;
    const row = head.data.weights[focus];
    const { key: most, weight } = strongestKey(head.data.weights, focus);
    const before = previousOccurrence(tokens, focus);
    const after = before >= 0 ? before + 1 : -1;
    this.strip.replaceChildren(...tokens.map((t, j) => {
      const box = h('span', {
        class: ['token', j === focus && 'from', j === most && 'most', j === after && 'after-previous', j > focus && 'later'].filter(Boolean).join(' '),
        dataset: { position: j }, 'aria-hidden': 'true', text: this.label(t),
      });
      // The weight as the box's tint (CSSOM, allowed under the page's style-src 'self').
      box.style.setProperty('--weight', j <= focus ? String(row[j]) : '0');
      return box;
    }));
    const label = (j) => `“${this.label(tokens[j])}” at position ${j}`;
    this.strip.setAttribute('aria-valuemax', String(tokens.length - 1));
    this.strip.setAttribute('aria-valuenow', String(focus));
    this.strip.setAttribute('aria-valuetext', `${label(focus)}; ${head.name} looks most at ${label(most)}, weight ${format(weight, 2)}`);

    const roles = roleLabels(head.data);
    let where = `From ${label(focus)}, ${head.name}${roles.length ? ` (${roles.join(', ')})` : ''} looks most at ${label(most)}, weight ${format(weight, 3)}.`;
    if (focus === 0) where += ' The first token can only see itself.';
    else if (after >= 0) {
      where += ` “${this.label(tokens[focus])}” occurred before at position ${before}, so an induction head looks at the token after it: ${label(after)}`
        + (most === after ? ', exactly where this head looks.' : `, which this head gives ${format(row[after], 3)}.`);
    } else {
      where += ` “${this.label(tokens[focus])}” has not occurred before, so there is nothing for an induction head to copy here.`;
    }
    this.says.textContent = where;
  }

  #key(e) {
    const last = this.tokens.length - 1;
    const to = { ArrowLeft: this.focus - 1, ArrowDown: this.focus - 1, ArrowRight: this.focus + 1, ArrowUp: this.focus + 1, Home: 0, End: last }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation(); // the widget's keys, not a slide deck's
    this.onFocus(Math.min(last, Math.max(0, to)));
  }

  #click(e) {
    const box = e.target.closest?.('[data-position]');
    if (box) this.onFocus(Number(box.dataset.position));
  }
}
