// The steps' compact form: one step at a time, with Previous / Next and the step's name and
// formula, or every step at once ("Show all steps"). At n = 8 the seven steps are seven 8×8
// tables; one at a time they fit a screen, in the lesson's order. Printing shows them all.
import { h } from '../../shared/dom.js';
import { tex } from '../../shared/tex.js';

/** From this many tokens on, the steps start one at a time (the learner can show them all). */
export const COMPACT_FROM_TOKENS = 5;

export class Stepper {
  /**
   * @param {object} o
   * @param {object[]} o.steps       STEPS (steps.js): key, name, tex(mode), note
   * @param {Map<string, Element>} o.figures  each step's figure
   * @param {Set<string>} o.elsewhere  steps whose figure is always shown elsewhere (the result)
   */
  constructor({ steps, figures, elsewhere }) {
    this.steps = steps;
    this.figures = figures;
    this.elsewhere = elsewhere;
    this.index = 0;
    this.compact = false;
    this.chosen = false; // the learner picked a form: keep it whatever n becomes
    this.mode = null;
    this.previous = h('button', { type: 'button', class: 'small', text: '‹ Previous step', on: { click: () => this.go(this.index - 1) } });
    this.next = h('button', { type: 'button', class: 'small', text: 'Next step ›', on: { click: () => this.go(this.index + 1) } });
    this.title = h('span', { class: 'stepper-title', 'aria-live': 'polite' });
    this.where = h('p', { class: 'stepper-where' });
    this.allButton = h('button', {
      type: 'button', class: 'small', text: 'Show all steps', 'aria-pressed': 'false',
      on: { click: () => { this.chosen = true; this.#setCompact(!this.compact); } },
    });
    this.controls = h('div', { class: 'stepper', role: 'group', 'aria-label': 'Step by step, one at a time' },
      this.previous, this.title, this.next);
    this.element = h('div', { class: 'stepper-box' }, h('div', { class: 'stepper-bar' }, this.controls, this.allButton), this.where);
  }

  /** The form follows n until the learner chooses; the captions follow the mode. */
  update(n, mode) {
    if (!this.chosen) this.#setCompact(n >= COMPACT_FROM_TOKENS);
    if (mode !== this.mode) {
      this.mode = mode;
      this.#show();
    }
  }

  go(index) {
    this.index = Math.max(0, Math.min(this.steps.length - 1, index));
    this.#show();
  }

  #setCompact(compact) {
    if (compact === this.compact && this.title.textContent) return;
    this.compact = compact;
    this.allButton.setAttribute('aria-pressed', String(!compact));
    this.#show();
  }

  #show() {
    const step = this.steps[this.index];
    this.controls.hidden = !this.compact;
    this.previous.disabled = this.index === 0;
    this.next.disabled = this.index === this.steps.length - 1;
    this.title.replaceChildren(`Step ${this.index + 1} of ${this.steps.length}: `, tex(step.tex(this.mode ?? 'none')), `, ${step.note}`);
    for (const [key, figure] of this.figures) {
      const current = this.compact && key === step.key;
      // A class, not `hidden`: print shows every step.
      if (!this.elsewhere.has(key)) figure.classList.toggle('step-off', this.compact && !current);
      figure.classList.toggle('step-current', current && this.elsewhere.has(key));
    }
    const away = this.compact && this.elsewhere.has(step.key);
    this.where.hidden = !away;
    this.where.textContent = away ? `Step ${this.index + 1}, the ${step.name.toLowerCase()}, is shown under Result, beside the inputs (outlined).` : '';
  }
}
