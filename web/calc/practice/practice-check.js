// Practice mode's marking: the learner's entries against the core's numbers, one verdict per cell.
// Pure: no DOM, no core. The caller passes the core's result for the exercise and the core's
// results for the named mistakes (practice.js asks the core for them).
//
// A cell is
//   right    within the precision of the core's value (half a unit of the last decimal asked
//            for, plus 1e-5 of the value for the core's float32 rounding);
//   carried  within the same tolerance of the step's formula applied to the learner's own
//            earlier entries (the core's value where they left one empty): a correct method on a
//            rounded or wrong earlier number counts as right, and the message says so;
//   wrong    otherwise, named when it matches one of the lesson's pitfalls.
// The carried arithmetic (a product, an exp, a sum, a quotient on the learner's numbers) is the
// only arithmetic here; it is done in this one place, on purpose, since the core never sees the
// learner's numbers. Masked scores of hidden keys are given (−∞), not typed.
import { sub } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { STEP_KEYS, STEPS, symbolOf } from '../steps/lesson-steps.js';

/** Each step's matrix in a core result, by its key (lesson-steps.js). */
export const STEP_VALUES = Object.fromEntries(STEPS.map((s) => [s.key, s.values]));

/** The steps a learner fills in, in the lesson's order. */
export const PRACTICE_STEPS = STEP_KEYS;

/** The named mistakes: what the learner is told. The first four come from the core's results. */
export const MISTAKES = {
  'scale-dk': 'scaled by d_k instead of √d_k: divide the scores by √d_k',
  'no-scale': 'not scaled: the scores must be divided by √d_k',
  'mask-after-softmax': 'the mask applied after the softmax: a hidden key gets −∞ before the exp, so its exp is 0 and the other weights renormalise',
  'transposed': 'a transposed QKᵀ: row i column j is query i against key j, q_i·k_j, not q_j·k_i',
  'no-row-max': 'the row max not subtracted: e^x instead of e^(x − max). The weights come out the same, so this counts as right, but e^x overflows for large scores; the lesson subtracts the max',
  'column-sum': 'a column sum: row sum i adds the exp values along row i, not down column i',
};

/** The steps from `key` on, in the lesson's order (lesson-steps.js): where a slip made at that step shows. */
const stepsFrom = (key) => STEP_KEYS.slice(STEP_KEYS.indexOf(key));

/** The mistakes whose numbers the core computes, and the steps where each can show. */
export const CORE_MISTAKES = {
  'scale-dk': stepsFrom('scaledBeforeMask'),
  'no-scale': stepsFrom('scaledBeforeMask'),
  'mask-after-softmax': stepsFrom('exp'),
  'transposed': PRACTICE_STEPS,
};

/**
 * The core's result for an exercise and its results for the named mistakes: the scale 1/d_k or 1,
 * the mask after the softmax, and Q and K swapped (the scores transposed). Throws what the core
 * throws for input it refuses.
 */
export function exerciseResults(attn, { q, k, v, mask }) {
  return {
    result: attn.attention({ q, k, v, mask }),
    mistakes: {
      'scale-dk': attn.attention({ q, k, v, mask, scale: 'dk' }),
      'no-scale': attn.attention({ q, k, v, mask, scale: 'none' }),
      'mask-after-softmax': attn.attention({ q, k, v, mask, maskAfterSoftmax: true }),
      'transposed': attn.attention({ q: k, k: q, v, mask }),
    },
  };
}

/** How far an entry may be from `value` at `precision` decimals and still be the same number. */
export function tolerance(precision, value) {
  return 0.5 * 10 ** -precision + 1e-5 * Math.max(1, Math.abs(value));
}

const near = (x, y, precision) => Number.isFinite(y) && Math.abs(x - y) <= tolerance(precision, y);

// Symbols as the explanations write them (lesson-steps.js), in the lesson's words: score₁₂,
// scaled₁₂ (before the mask), masked₁₂ (the softmax's input, the API's `scaled`), row sum₁, A₁₂, z₁₂.
export { symbolOf };

/**
 * Marks every cell.
 * @param {object} o
 * @param {{ q: number[][], k: number[][], v: number[][] }} o.state   the exercise's inputs
 * @param {object} o.result        the core's attention() result for them
 * @param {Record<string, object>} [o.mistakes]  the core's results for CORE_MISTAKES' keys
 * @param {Record<string, (number|null)[][]>} o.answers  the learner's entries (null: empty)
 * @param {number} [o.precision]   decimals asked for
 * @returns {Record<string, { cells: object[][], right: number, total: number, done: boolean }>}
 *   per step; a cell is { status: 'empty'|'given'|'right'|'carried'|'wrong', mistake, message,
 *   hint, answer }, and `right` counts right and carried cells of the `total` to type.
 */
export function checkPractice({ state, result, mistakes = {}, answers = {}, precision = 3 }) {
  const n = result.weights.length, m = result.weights[0].length;
  const p = precision;
  const fmt = (x) => format(x, p);
  const truth = Object.fromEntries(PRACTICE_STEPS.map((s) => [s, STEP_VALUES[s](result)]));
  // The learner's entry, or null.
  const mine = (step, i, j) => {
    const x = answers[step]?.[i]?.[j];
    return typeof x === 'number' && Number.isFinite(x) ? x : null;
  };
  const given = (step, i, j) => step === 'scaled' && result.hidden[i][j];
  // An operand of a formula: the learner's entry where there is one, else the core's value.
  // `own` records whether any of the learner's numbers went in; `shown` writes it for a hint
  // ('?' where the learner has not entered it yet).
  const operand = (use, step, i, j) => {
    if (given(step, i, j)) return { value: -Infinity, shown: '−∞' };
    const x = mine(step, i, j);
    if (x !== null) {
      use.own = true;
      if (!near(x, truth[step][i][j], p)) {
        use.wrong = true;
        (use.off ??= []).push({ step, i, j, x });
      }
      return { value: x, shown: fmt(x) };
    }
    use.missing = true;
    return { value: truth[step][i][j], shown: '?' };
  };

  // step → (i, j) → { value: the formula on the learner's operands, hint, use }
  const formula = {
    scores: (i, j) => {
      const terms = state.q[i].map((x, t) => `${factor(x)}·${factor(state.k[j][t])}`).join(' + ');
      return { value: truth.scores[i][j], hint: `${symbolOf('scores', i, j)} = q${sub(i + 1)}·k${sub(j + 1)} = ${terms}`, use: {} };
    },
    scaledBeforeMask: (i, j) => {
      const use = {};
      const s = operand(use, 'scores', i, j);
      const dk = state.q[0].length;
      return { value: s.value * result.scale, hint: `${symbolOf('scaledBeforeMask', i, j)} = ${symbolOf('scores', i, j)} / √d_k = ${s.shown} / √${dk}`, use };
    },
    scaled: (i, j) => {
      const use = {};
      const s = operand(use, 'scaledBeforeMask', i, j);
      return { value: s.value, hint: `${symbolOf('scaled', i, j)} = ${symbolOf('scaledBeforeMask', i, j)} = ${s.shown}: key ${j + 1} is visible to query ${i + 1}`, use };
    },
    exp: (i, j) => {
      if (result.hidden[i][j]) {
        return { value: 0, hint: `${symbolOf('exp', i, j)} = e^(−∞) = 0: key ${j + 1} is hidden from query ${i + 1}`, use: {} };
      }
      const use = {};
      const row = Array.from({ length: m }, (_, t) => operand(use, 'scaled', i, t));
      const x = row[j];
      const max = Math.max(...row.map((o) => o.value));
      const maxShown = row.some((o, t) => o.shown === '?' && !result.hidden[i][t]) ? '?' : fmt(max);
      return { value: Math.exp(x.value - max), hint: `${symbolOf('exp', i, j)} = e^(${symbolOf('scaled', i, j)} − max${sub(i + 1)}) = e^(${x.shown} − ${maxShown})`, use };
    },
    rowSum: (i) => {
      const use = {};
      const terms = Array.from({ length: m }, (_, t) => operand(use, 'exp', i, t));
      return {
        value: terms.reduce((s, o) => s + o.value, 0),
        hint: `${symbolOf('rowSum', i)} = ${terms.map((_, t) => symbolOf('exp', i, t)).join(' + ')} = ${terms.map((o) => o.shown).join(' + ')}`,
        use,
      };
    },
    weights: (i, j) => {
      const use = {};
      const e = operand(use, 'exp', i, j);
      const s = operand(use, 'rowSum', i, 0);
      // A row that sees no key has weights 0 (the core's rule), never 0/0.
      return { value: s.value === 0 ? 0 : e.value / s.value, hint: `${symbolOf('weights', i, j)} = ${symbolOf('exp', i, j)} / ${symbolOf('rowSum', i)} = ${e.shown} / ${s.shown}`, use };
    },
    output: (i, j) => {
      const use = {};
      const a = Array.from({ length: m }, (_, t) => operand(use, 'weights', i, t));
      const symbols = a.map((_, t) => `${symbolOf('weights', i, t)}·v${sub(t + 1)}${sub(j + 1)}`).join(' + ');
      const numbers = a.map((o, t) => `${o.shown}·${factor(state.v[t][j])}`).join(' + ');
      return { value: a.reduce((s, o, t) => s + o.value * state.v[t][j], 0), hint: `${symbolOf('output', i, j)} = ${symbols} = ${numbers}`, use };
    },
  };

  // The lesson's other two slips, on the learner's own numbers.
  const slips = {
    exp: (i, j, x) => {
      if (result.hidden[i][j]) return null;
      const masked = mine('scaled', i, j) ?? truth.scaled[i][j];
      return near(x, Math.exp(masked), p) && !near(Math.exp(masked), truth.exp[i][j], p) ? 'no-row-max' : null;
    },
    rowSum: (i, _j, x) => {
      if (i >= m) return null;
      const column = Array.from({ length: n }, (_, r) => mine('exp', r, i) ?? truth.exp[r][i]).reduce((s, e) => s + e, 0);
      return near(x, column, p) && !near(column, truth.rowSum[i][0], p) ? 'column-sum' : null;
    },
  };

  const out = {};
  // A hint that builds on earlier entries already marked wrong says which, and what each is:
  // "(uses your row sum₁ 2.493, which is a column sum)". The earlier steps are marked by then.
  const builtOnWrong = (off = []) => {
    const wrong = off.flatMap(({ step, i, j, x }) => {
      const earlier = out[step]?.cells[i]?.[j];
      if (earlier?.status !== 'wrong') return [];
      const what = earlier.mistake ? MISTAKES[earlier.mistake].split(':')[0] : 'marked wrong';
      return [`your ${symbolOf(step, i, j)} ${fmt(x)}, which is ${what}`];
    });
    return wrong.length ? `(uses ${wrong.join(', and ')})` : '';
  };
  for (const step of PRACTICE_STEPS) {
    let right = 0, total = 0;
    // The learner's grid has the shape of the core's matrix for the step.
    const cells = truth[step].map((row, i) => row.map((_, j) => {
      const value = truth[step][i][j];
      if (given(step, i, j)) return { status: 'given', mistake: null, message: `Given: key ${j + 1} is hidden from query ${i + 1}, so its masked score is −∞.`, hint: '', answer: '−∞' };
      total++;
      const f = formula[step](i, j);
      const answer = fmt(value);
      const x = mine(step, i, j);
      const hint = [f.hint, f.use.missing ? '(? is an entry you have not made yet)' : '', builtOnWrong(f.use.off)].filter(Boolean).join(' ');
      const cell = (status, mistake, message) => {
        if (status === 'right' || status === 'carried') right++;
        return { status, mistake, message, hint, answer };
      };
      if (x === null) return cell('empty', null, '');
      if (near(x, value, p)) return cell('right', null, `Right: ${fmt(x)}.`);
      const slip = slips[step]?.(i, j, x);
      if (slip === 'no-row-max') return cell('right', slip, `Right result, another route: ${MISTAKES[slip]}.`);
      if (f.use.own && near(x, f.value, p)) {
        const why = f.use.wrong ? 'your earlier entry is wrong, see there, but the method is right' : 'your rounded earlier entries give this';
        return cell('carried', null, `Right, carried from your own numbers (${why}): ${f.hint.split(' = ').pop()} = ${fmt(f.value)}. From the exact values it is ${answer}.`);
      }
      const named = slip ?? Object.keys(CORE_MISTAKES).find((key) => {
        const other = mistakes[key];
        if (!other || !CORE_MISTAKES[key].includes(step)) return false;
        const y = STEP_VALUES[step](other)[i]?.[j];
        return near(x, y, p) && !near(y, value, p);
      }) ?? null;
      if (named) return cell('wrong', named, `Not right: this is ${MISTAKES[named]}.`);
      return cell('wrong', null, `Not right: ${fmt(x)} is not ${symbolOf(step, i, j)} to ${p} decimals. Try the hint.`);
    }));
    out[step] = { cells, right, total, done: total > 0 && right === total };
  }
  return out;
}

/**
 * Each row of the learner's A summed: their side of the check "each row of A sums to 1". null
 * for a row with an empty entry. A row sums to 1 when within the rounding of its m entries.
 */
export function learnerRowSums(answers, { n, m }, precision = 3) {
  return Array.from({ length: n }, (_, i) => {
    const row = Array.from({ length: m }, (_, j) => answers.weights?.[i]?.[j]);
    if (!row.every((x) => typeof x === 'number' && Number.isFinite(x))) return null;
    const sum = row.reduce((s, x) => s + x, 0);
    return { sum, one: Math.abs(sum - 1) <= m * 0.5 * 10 ** -precision + 1e-9 };
  });
}

const factor = (x) => (x < 0 ? `(${String(x).replace('-', '−')})` : String(Object.is(x, -0) ? 0 : x));
