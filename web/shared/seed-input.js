// The seed box of the random preset and the labs: a whole number from 0 to 2^53 − 1, the seeds
// the core's generators and the link's hash take. Whatever the learner types becomes such a
// number (the box then shows it), so a seed box never reports an error.
import { h } from './dom.js';

/**
 * The largest seed: every whole number up to it is exact in a JS number. It is the core's
 * limits().maxExactCount (src/limits.hpp), which this module cannot ask for (it runs before the
 * core loads); tests/js/limits.test.mjs checks that the two are equal.
 */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;

/**
 * A typed seed as the seed it means: rounded down, and clamped to 0 … MAX_SEED. Text that is no
 * number (an <input type="number"> reports it as '') is 0.
 * @param {string | number} text
 * @returns {number}
 */
export function parseSeed(text) {
  const value = Math.floor(Number(text));
  if (Number.isNaN(value)) return 0;
  return Math.min(MAX_SEED, Math.max(0, value));
}

/**
 * An <input type="number" class="seed"> whose committed value (the change event) reaches
 * `onChange` as a seed, and is written back as that seed so the box shows what is used.
 * @param {{ label: string, value?: number, onChange: (seed: number) => void }} options
 *   label: its accessible name, for example "Random seed"
 * @returns {HTMLInputElement}
 */
export function seedInput({ label, value = 0, onChange }) {
  const input = h('input', {
    type: 'number', min: 0, max: MAX_SEED, step: 1, class: 'seed', 'aria-label': label, value: String(parseSeed(value)),
    on: {
      change: () => {
        const seed = parseSeed(input.value);
        input.value = String(seed);
        onChange(seed);
      },
    },
  });
  return input;
}
