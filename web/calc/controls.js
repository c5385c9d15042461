// The calculator's controls: explore or practice, the sizes, the mode (a pitfall, on purpose),
// the presets and the random seed; and the banner that says a pitfall is on.
import { h } from '../shared/dom.js';
import { MAX_SEED, seedInput } from '../shared/seed-input.js';
import { MAX_DIM, MAX_TOKENS, PITFALLS, PRESETS, sizes } from './state.js';

/** The seed after `seed`, wrapping from the largest (2^53 − 1) to 0, so "New seed" always gives one the link accepts. */
export const nextSeed = (seed) => ((seed ?? 0) + 1) % (MAX_SEED + 1);

export class Controls {
  /**
   * @param {object} o
   * @param {(mode: 'explore' | 'practice') => void} o.onMode
   * @param {(key: 'n' | 'dk' | 'dv', value: number) => void} o.onResize
   * @param {(key: string, seed?: number) => void} o.onPreset   a preset, or 'random' with a seed
   * @param {() => void} o.onNewSeed
   * @param {(pitfall: string) => void} o.onPitfall
   */
  constructor({ onMode, onResize, onPreset, onNewSeed, onPitfall }) {
    const sizeSelect = (label, key, max) => h('label', { class: 'size' }, `${label} `,
      h('select', {
        'aria-label': label,
        dataset: { size: key },
        on: { change: (e) => onResize(key, Number(e.target.value)) },
      }, Array.from({ length: max }, (_, t) => h('option', { value: t + 1, text: `${t + 1}` }))));
    this.sizeControls = h('div', { class: 'sizes' },
      sizeSelect('Tokens n', 'n', MAX_TOKENS), sizeSelect('d_k', 'dk', MAX_DIM), sizeSelect('d_v', 'dv', MAX_DIM));

    this.presetButtons = Object.entries(PRESETS).map(([key, preset]) =>
      h('button', { type: 'button', class: 'preset', dataset: { preset: key }, text: preset.label, on: { click: () => onPreset(key) } }));
    this.seedInput = seedInput({ label: 'Random seed', onChange: (seed) => onPreset('random', seed) });
    this.seedBox = h('span', { class: 'seed-box' }, 'seed ', this.seedInput,
      h('button', { type: 'button', class: 'small', text: 'New seed', on: { click: onNewSeed } }));
    // Explore (the calculator shows every step) or practice (the learner computes them).
    this.modeButtons = ['explore', 'practice'].map((mode) => h('button', {
      type: 'button', dataset: { mode }, text: mode === 'explore' ? 'Explore' : 'Practice', 'aria-pressed': 'false',
      on: { click: () => onMode(mode) },
    }));

    this.modeOptions = Object.entries(PITFALLS).map(([key, p]) => h('option', { value: key, text: p.label }));
    this.modeSelect = h('select', { 'aria-label': 'Mode', on: { change: () => onPitfall(this.modeSelect.value) } }, this.modeOptions);
    /** The banner under the controls while a pitfall is on. */
    this.warning = h('p', { class: 'pitfall-banner practice-off', role: 'note' });

    this.element = h('section', { class: 'controls', role: 'group', 'aria-label': 'Controls', part: 'controls', dataset: { panel: 'controls' } },
      h('div', { class: 'control-row' },
        h('div', { role: 'group', 'aria-label': 'Explore or practice' }, this.modeButtons),
        this.sizeControls, h('label', { class: 'mode practice-off' }, 'Mode ', this.modeSelect)),
      h('div', { class: 'control-row presets practice-off', role: 'group', 'aria-label': 'Presets' }, this.presetButtons, this.seedBox));
  }

  /** Shows the state `s`; readonly disables every control. */
  update(s, { readonly }) {
    const { n, dk, dv } = sizes(s);
    for (const button of this.modeButtons) button.setAttribute('aria-pressed', String((button.dataset.mode === 'practice') === Boolean(s.practice)));
    for (const select of this.sizeControls.querySelectorAll('select')) {
      select.value = String({ n, dk, dv }[select.dataset.size]);
      select.disabled = readonly;
    }
    for (const option of this.modeOptions) option.hidden = option.value === 'custom-scale' && s.pitfall !== 'custom-scale';
    this.modeSelect.value = s.pitfall;
    this.modeSelect.disabled = readonly;
    const pitfall = PITFALLS[s.pitfall];
    this.warning.hidden = !pitfall.wrong;
    const label = s.pitfall === 'custom-scale' ? `Custom scale ${s.scale} instead of 1/√d_k` : pitfall.label;
    this.warning.textContent = pitfall.wrong ? `⚠ ${label}. This is wrong on purpose, to show what the lesson warns about.` : '';
    for (const button of this.presetButtons) {
      button.setAttribute('aria-pressed', String(button.dataset.preset === s.preset));
      button.disabled = readonly;
    }
    this.seedBox.hidden = s.preset !== 'random' || readonly;
    this.seedInput.value = String(s.seed ?? 0);
  }
}
