// Switching heads off (ablation) in the GPT-2 panel: the choice of how (zero or mean) and Reset,
// the five next tokens with their probabilities before and after, and the line that says what
// changed ("Switching off 5.1 moves ' mat' from 31 % to 12 %"). The runs are the worker's; the
// numbers shown are the run's own, rounded only for display.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { headName } from './gpt2-heads.js';
import { gpt2Label } from './gpt2-lesson.js';

const percent = (p) => `${format(p * 100, p < 0.001 ? 2 : 1)} %`;

/** The switched-off heads, in the order the API takes them: [{ layer, head, mode }]. */
export function ablateList(off, mode) {
  return [...off].map((key) => key.split('.').map(Number)).sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([layer, head]) => ({ layer, head, mode }));
}

let modes = 0; // each panel's radio buttons, a group of their own

/** The controls: "Zero" or "mean" (radio buttons), Reset, and the line that says what changed. */
export class AblationControls {
  constructor({ onMode, onReset }) {
    const name = `gpt2-ablation-mode-${++modes}`;
    // Named "Zero", "Mean" and "Reset"; what each does follows in words of its own.
    const radio = (value, label, what) => h('span', {}, h('label', {}, h('input', {
      type: 'radio', name, value, checked: value === 'zero',
      on: { change: (e) => { if (e.target.checked) onMode(value); } },
    }), ` ${label}`), h('span', { class: 'hint', text: `: ${what}` }));
    this.zero = radio('zero', 'Zero', 'the head writes nothing (Hugging Face’s head_mask)');
    this.mean = radio('mean', 'Mean', 'the head writes its average over this text');
    this.reset = h('button', { type: 'button', text: 'Reset', disabled: true, on: { click: onReset } });
    this.said = h('p', { class: 'gpt2-ablation-said', role: 'status' });
    this.element = h('div', { class: 'gpt2-ablation' },
      h('fieldset', { class: 'control-row' }, h('legend', { text: 'A head switched off' }), this.zero, ' ', this.mean),
      h('div', { class: 'control-row' }, this.reset, h('span', { class: 'hint', text: ' every head on again' })),
      this.said);
  }

  /** What is switched off now, and what it changed: the run's next tokens against baseNext. */
  update({ ablate, next, baseNext }) {
    this.reset.disabled = ablate.length === 0;
    this.said.textContent = ablate.length ? ablationSentence(ablate, baseNext, next) : '';
  }
}

/**
 * The line that says what changed: the likeliest token before, where it went.
 * "Switching off 5.1 moves ' mat' from 31 % to 12 %; the likeliest is now ' floor' (20 %)."
 */
export function ablationSentence(ablate, before, after) {
  const heads = ablate.map((a) => headName(a.layer, a.head));
  const who = heads.length === 1 ? heads[0] : `${heads.slice(0, -1).join(', ')} and ${heads.at(-1)}`;
  const top = before[0];
  const now = after.find((t) => t.id === top.id);
  const moved = now
    ? `moves “${gpt2Label(top.token)}” from ${percent(top.probability)} to ${percent(now.probability)}`
    : `moves “${gpt2Label(top.token)}” from ${percent(top.probability)} to below ${percent(after.at(-1).probability)} (out of the five likeliest)`;
  const lead = after[0].id === top.id ? 'it is still the likeliest' : `the likeliest is now “${gpt2Label(after[0].token)}” (${percent(after[0].probability)})`;
  const mode = ablate[0].mode === 'mean' ? ' (each replaced by its mean over this text)' : '';
  return `Switching off ${who}${mode} ${moved}; ${lead}.`;
}

/**
 * The five next tokens as list items; with heads switched off, each token of either run's five
 * with its probability before, after, and the change (a token outside one run's five is said so).
 */
export function nextItems(next, baseNext = null) {
  if (!baseNext) {
    return next.map((t) => h('li', {}, h('span', { class: 'token', text: gpt2Label(t.token) }), ` ${format(t.probability, 3)} (${format(t.probability * 100, 1)}%)`));
  }
  const ids = [...new Set([...baseNext, ...next].map((t) => t.id))];
  const rows = ids.map((id) => ({
    token: (next.find((t) => t.id === id) ?? baseNext.find((t) => t.id === id)).token,
    before: baseNext.find((t) => t.id === id)?.probability ?? null,
    after: next.find((t) => t.id === id)?.probability ?? null,
  })).sort((a, b) => (b.after ?? -1) - (a.after ?? -1) || (b.before ?? -1) - (a.before ?? -1));
  const was = (p, list) => (p === null ? `below ${format(list.at(-1).probability, 3)}` : format(p, 3));
  return rows.map((r) => {
    const change = r.before !== null && r.after !== null ? r.after - r.before : null;
    return h('li', { dataset: { before: r.before ?? '', after: r.after ?? '' } },
      h('span', { class: 'token', text: gpt2Label(r.token) }),
      ` ${was(r.before, baseNext)} → ${was(r.after, next)}`,
      change === null ? ' (not in both runs’ five)' : h('span', { class: `gpt2-change ${change > 0 ? 'up' : change < 0 ? 'down' : ''}`, text: ` (${change >= 0 ? '+' : '−'}${format(Math.abs(change), 3)})` }));
  });
}
