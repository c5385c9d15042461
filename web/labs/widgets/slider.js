// A labelled slider over a list of allowed values (often log-spaced), with the value written
// beside it and as the slider's aria-valuetext, and a number box for an exact value.
import { h } from '../../shared/dom.js';

/** 1, 2, 3, … then roughly `perOctave` steps per doubling, always including the powers of two. */
export function logSteps(min, max, perOctave = 4) {
  const values = new Set([min, max]);
  for (let t = 0; ; t++) {
    const x = Math.round(min * 2 ** (t / perOctave));
    if (x > max) break;
    values.add(x);
  }
  for (let p = 1; p <= max; p *= 2) if (p >= min) values.add(p);
  return [...values].sort((a, b) => a - b);
}

export class Slider {
  /**
   * @param {object} o
   * @param {string} o.label                 the accessible name, e.g. "d_k"
   * @param {number[]} o.values              allowed values, ascending
   * @param {number} o.value
   * @param {(x: number) => string} [o.format]   how the value is written
   * @param {boolean} [o.exact]              also show a number box accepting any integer in range
   * @param {(x: number) => void} o.onChange
   */
  constructor({ label, values, value, format = (x) => x.toLocaleString('en-US'), exact = false, onChange }) {
    this.values = values;
    this.format = format;
    this.onChange = onChange;
    this.range = h('input', {
      type: 'range', min: 0, max: values.length - 1, step: 1, 'aria-label': label,
      on: { input: () => this.#set(this.values[Number(this.range.value)]) },
    });
    this.output = h('output', { class: 'slider-value' });
    this.box = exact ? h('input', {
      type: 'number', min: values[0], max: values.at(-1), step: 1, class: 'slider-exact', 'aria-label': `${label}, exact value`,
      // Checked as it is typed, so an out-of-range value is told at once; applied on Enter or leaving.
      on: { input: () => this.#check(), change: () => this.#typed() },
    }) : null;
    this.message = h('span', { class: 'slider-message', role: 'alert' });
    this.element = h('span', { class: 'slider' },
      h('label', {}, h('span', { class: 'slider-label', text: label }), this.range), this.output, this.box, this.message);
    this.show(value);
  }

  /** Shows `x` without telling anyone. */
  show(x) {
    this.value = x;
    // The nearest allowed position; an exact value between two steps keeps its own text.
    let k = 0;
    for (let t = 0; t < this.values.length; t++) if (Math.abs(this.values[t] - x) < Math.abs(this.values[k] - x)) k = t;
    this.range.value = String(k);
    this.range.setAttribute('aria-valuetext', this.format(x));
    this.output.textContent = this.format(x);
    if (this.box) this.box.value = String(x);
  }

  set disabled(on) {
    this.range.disabled = on;
    if (this.box) this.box.disabled = on;
  }

  #set(x) {
    this.show(x);
    this.onChange(x);
  }

  // The typed value if it is allowed, else null with the message shown; an empty box (a lone
  // "-" reads as empty) is told only once the learner leaves it.
  #check({ empty = false } = {}) {
    const text = this.box.value, x = Number(text);
    const lo = this.values[0], hi = this.values.at(-1);
    if (text !== '' && Number.isInteger(x) && x >= lo && x <= hi) {
      this.message.textContent = '';
      this.box.removeAttribute('aria-invalid');
      return x;
    }
    if (text !== '' || empty) {
      const name = this.range.getAttribute('aria-label'), write = (v) => v.toLocaleString('en-US');
      this.message.textContent = `${name} must be a whole number from ${write(lo)} to ${write(hi)}`;
      this.box.setAttribute('aria-invalid', 'true');
    }
    return null;
  }

  #typed() {
    const x = this.#check({ empty: true });
    if (x !== null) this.#set(x);
  }
}
