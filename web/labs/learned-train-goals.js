// The goals of a learned-heads model (issue 13), measured through the JS API on strings generated
// from a seed. Plain logic with no DOM and no Node, so the training worker (learned-worker.js),
// the tests and the training benchmark (tools/train-goals.mjs re-exports it) share one copy.
// Only bookkeeping here: every weight and loss comes from the core's model.run().

import { mulberry32 } from '../calc/random.js';

const SYMBOLS = 'abcdefghijklmnopqrstuvwxyz ';

/** The seeded generator the calculator's random preset uses: the same strings on every run. */
export const generator = mulberry32;

/**
 * A random prefix, a string s of 5 to (context − 1)/2 letters, s again, filler, context − 1
 * characters in all, every letter distinct apart from the repeat (so a token "occurred earlier"
 * only in the second copy). first: the position of s's first token, counting BOS as 0.
 */
export function copyText(random, context) {
  const room = context - 1;
  const length = 5 + Math.floor(random() * (Math.floor(room / 2) - 4));
  const prefix = Math.floor(random() * (room - 2 * length + 1));
  const deck = [...SYMBOLS];
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  const s = deck.slice(prefix, prefix + length).join('');
  const filler = deck.slice(prefix + length, prefix + length + room - prefix - 2 * length).join('');
  return { text: deck.slice(0, prefix).join('') + s + s + filler, first: 1 + prefix, length };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Over `count` generated strings: the best layer-1 previousToken, the best layer-2 induction,
 * the best firstToken (head means over the strings), and the second copy's mean loss over the
 * first copy's (neither counting its first token, which nothing predicts), with both means.
 */
export function measureGoals(model, seed, count) {
  const random = generator(seed);
  const { layers, heads, context } = model.config;
  const sums = Array.from({ length: layers * heads }, () => ({ previousToken: 0, firstToken: 0, induction: 0 }));
  const first = [], second = [];
  for (let k = 0; k < count; k++) {
    const { text, first: at, length } = copyText(random, context);
    const r = model.run(text);
    for (let j = 1; j < length; j++) { // loss[i]: position i predicting token i + 1
      first.push(r.loss[at + j - 1]);
      second.push(r.loss[at + length + j - 1]);
    }
    r.layers.forEach((layer, l) => layer.heads.forEach((h, i) => {
      const sum = sums[l * heads + i];
      sum.previousToken += h.previousToken / count;
      sum.firstToken += h.firstToken / count;
      sum.induction += h.induction / count;
    }));
  }
  return {
    previousToken: Math.max(...sums.slice(0, heads).map((s) => s.previousToken)),
    induction: Math.max(...sums.slice(heads, 2 * heads).map((s) => s.induction)),
    firstToken: Math.max(...sums.map((s) => s.firstToken)),
    ratio: mean(second) / mean(first),
    lossFirstCopy: mean(first), // the ratio's two terms, on these strings (nats)
    lossSecondCopy: mean(second),
  };
}

/** The in-browser trainer's schedule (learned-worker.js), also stated to the learner and used by the
 * training benchmark: steps per point of the loss curve (the mean of their batches), steps between
 * measurements of the goals, the step at which the recipe's cosine decay ends and training gives up,
 * and the generated strings the goals are measured on. */
export const PROGRESS_EVERY = 50;
export const CHECK_EVERY = 250;
export const MAX_STEPS = 6000;
export const GOAL_SEED = 7, GOAL_STRINGS = 64;

/** The four goals, as thresholds (also shown to the learner). */
export const GOALS = Object.freeze({ previousToken: 0.7, induction: 0.7, firstToken: 0.3, ratio: 0.15 });

/** Whether measured goals g hold: each score at least its threshold, the loss ratio at most its. */
export const goalsMet = (g) => g.previousToken >= GOALS.previousToken && g.induction >= GOALS.induction
  && g.firstToken >= GOALS.firstToken && g.ratio <= GOALS.ratio;
