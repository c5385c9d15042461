// The labs past the lesson's slider. Not ../widgets/slider.js: a third importer of that module
// would split the chunk the cost and √d_k labs share (its chart apart from its slider), and the
// embed of the lesson's four labs would grow.
import { h } from '../../shared/dom.js';

/**
 * A slider over a list of allowed values (the divisors of a number, the tile sizes 1 … n), the
 * value written beside it (by `format`) and as its aria-valuetext, with an optional box for any
 * whole number from 1 to the largest value, so that a value off the list can be typed and refused
 * by the core.
 */
export class StepSlider {
  constructor({ label, values, value, exact = false, format = String, onChange }) {
    this.label = label;
    this.format = format;
    this.onChange = onChange;
    this.range = h('input', { type: 'range', min: 0, step: 1, 'aria-label': label, on: { input: () => this.#pick(this.values[Number(this.range.value)]) } });
    this.output = h('output', { class: 'slider-value' });
    this.box = exact ? h('input', { type: 'number', min: 1, step: 1, class: 'slider-exact', 'aria-label': `${label}, exact value`, on: { input: () => this.#typed({ apply: false }), change: () => this.#typed() } }) : null;
    this.message = h('span', { class: 'slider-message', role: 'alert' });
    this.element = h('span', { class: 'slider' }, h('label', {}, h('span', { class: 'slider-label', text: label }), this.range), this.output, this.box, this.message);
    this.show(values, value);
  }

  /** Shows `value` among `values` (the nearest position when it is not one of them), telling no one. */
  show(values, value) {
    this.values = values;
    this.range.max = String(values.length - 1);
    const nearest = values.reduce((k, x, t) => (Math.abs(x - value) < Math.abs(values[k] - value) ? t : k), 0);
    this.range.value = String(nearest);
    this.range.setAttribute('aria-valuetext', this.format(value));
    this.output.textContent = this.format(value);
    if (this.box) {
      this.box.max = String(values.at(-1));
      this.box.value = String(value);
    }
  }

  #pick(value) {
    this.message.textContent = '';
    this.box?.removeAttribute('aria-invalid');
    this.onChange(value);
  }

  // On each key an out-of-range value is told at once (an empty box only once the learner
  // leaves it); a good one is applied on Enter or leaving.
  #typed({ apply = true } = {}) {
    const value = Number(this.box.value), max = this.values.at(-1);
    if (this.box.value === '' ? apply : !Number.isInteger(value) || value < 1 || value > max) {
      this.message.textContent = `${this.label} must be a whole number from 1 to ${max}`;
      this.box.setAttribute('aria-invalid', 'true');
    } else if (this.box.value !== '') {
      if (apply) this.#pick(value);
      else { this.message.textContent = ''; this.box.removeAttribute('aria-invalid'); }
    }
  }
}
