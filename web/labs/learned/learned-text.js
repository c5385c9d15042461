// The text the learned model reads: the presets, and the characters it cannot read, found so
// they can be marked where they stand. The model itself says whether a text is valid
// (model.run throws); this file only finds which characters to mark.
import { h } from '../../shared/dom.js';
import { mulberry32 } from '../../shared/random.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * A random string of 8 to 12 distinct letters, a space, and the string again, from a seed: the
 * first copy shows the previous-token head and the attention sink (nothing to copy yet), the
 * second the induction head.
 */
export function randomRepeat(seed) {
  const random = mulberry32(seed);
  const deck = [...LETTERS];
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  const s = deck.slice(0, 8 + Math.floor(random() * 5)).join('');
  return `${s} ${s}`;
}

// The lesson's sentence, "The cat sat on the mat because it was tired", is 43 characters: the
// model reads 32 at most, so the preset stops at "because", in lower case.
export const LESSON_SENTENCE = 'the cat sat on the mat because';
export const REPEATED_PHRASE = 'quick fox quick fox quick fox';

/**
 * The characters of `text` the model cannot read: outside `vocabulary`, or past `maxLength`.
 * → [{ at, char, why: 'unknown' | 'too long' }]
 */
export function unreadable(text, vocabulary, maxLength) {
  const chars = [...text];
  return chars.flatMap((char, at) => {
    if (!vocabulary.includes(char)) return [{ at, char, why: 'unknown' }];
    return at >= maxLength ? [{ at, char, why: 'too long' }] : [];
  });
}

const ordinal = (n) => {
  const tens = n % 100, ones = n % 10;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ones === 1 ? 'st' : ones === 2 ? 'nd' : ones === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
};

/** The text again, each unreadable character in a <mark> that says why (maxLength: as in unreadable). */
export function markedText(text, problems, maxLength) {
  const at = new Map(problems.map((p) => [p.at, p]));
  return [...text].map((char, i) => {
    const p = at.get(i);
    const shown = char === ' ' ? '␣' : char;
    if (!p) return shown;
    return h('mark', { class: p.why === 'unknown' ? 'unknown' : 'too-long' },
      shown, h('span', { class: 'sr-only', text: p.why === 'unknown' ? ' (not in the vocabulary)' : ` (past the ${ordinal(maxLength)} character)` }));
  });
}

/** The problems in the learner's words: which characters, where. */
export function problemSummary(problems, maxLength) {
  const unknown = problems.filter((p) => p.why === 'unknown');
  const long = problems.some((p) => p.why === 'too long');
  const parts = [];
  if (unknown.length) {
    const shown = unknown.slice(0, 6).map((p) => `“${p.char === ' ' ? '␣' : p.char}” at ${p.at + 1}`).join(', ');
    parts.push(`the model does not know ${unknown.length === 1 ? 'the character' : `${unknown.length} characters:`} ${shown}${unknown.length > 6 ? ', …' : ''}`);
  }
  if (long) parts.push(`it reads at most ${maxLength} characters`);
  return parts.join('; and ');
}
