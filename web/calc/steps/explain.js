// Where each computed number comes from, written out with the actual numbers. All values are
// the core's; this module only lays them out as text.
import { sub } from '../../shared/dom.js';
import { format as formatNumber, formatInput } from '../../shared/format.js';
import { STEP_KEYS, symbolOf } from './lesson-steps.js';

const REASONS = {
  causal: 'the causal mask: a token may not look at later tokens',
  padding: 'padding: the key token is filler',
  custom: 'the mask grid',
};

const factor = (x) => (x < 0 ? `(${formatInput(x)})` : formatInput(x));

/**
 * → { title, lines: string[], related: { q?, k? } } for computed cell (i, j) of `step`.
 * `result` is the core's attention() result for `state`; numbers get `precision` decimals.
 */
export function explain(state, result, step, i, j, precision = 3) {
  const format = (x) => formatNumber(x, precision);
  const S = Object.fromEntries(STEP_KEYS.map((key) => [key, symbolOf(key, i, j)])); // this cell's symbols: score₁₂, row sum₁
  const afterSoftmax = state.pitfall === 'mask-after-softmax';
  const fully = result.fullyMasked[i];
  // Each step's explanation, by its key in the lesson's table (lesson-steps.js).
  const byStep = {
    scores: () => {
      const terms = state.q[i].map((x, t) => `${factor(x)}·${factor(state.k[j][t])}`).join(' + ');
      return {
        title: `Score, query ${i + 1} against key ${j + 1}`,
        lines: [`${S.scores} = q${sub(i + 1)}·k${sub(j + 1)} = ${terms} = ${format(result.scores[i][j])}`],
        related: { q: i, k: j },
      };
    },
    scaledBeforeMask: () => {
      const dk = state.q[0].length;
      const why = {
        'scale-dk': `the pitfall scale 1/d_k = 1/${dk}: too small, the softmax goes flat`,
        'no-scale': 'the pitfall scale 1: no scaling, so with large d_k the softmax saturates',
        'custom-scale': `a custom scale, not the 1/√d_k = 1/√${dk} that keeps the scores at unit variance`,
      }[state.pitfall] ?? `1/√d_k = 1/√${dk}, which keeps the scores at unit variance`;
      return {
        title: 'Scaled score',
        lines: [
          `${S.scaledBeforeMask} = ${S.scores} × ${format(result.scale)} = ${format(result.scores[i][j])} × ${format(result.scale)} = ${format(result.scaledBeforeMask[i][j])}`,
          `The scale ${format(result.scale)} is ${why}.`,
        ],
        related: { q: i, k: j },
      };
    },
    scaled: () => {
      const reasons = result.hiddenBy[i][j]; // the core's reasons: [] when visible
      const lines = reasons.length === 0
        ? [`${S.scaled} = ${S.scaledBeforeMask} = ${format(result.scaled[i][j])}: key ${j + 1} is visible to query ${i + 1}.`]
        : afterSoftmax
          ? [`${S.scaled} = ${S.scaledBeforeMask} = ${format(result.scaled[i][j])}: in this pitfall mode the mask is not applied before the softmax; it zeroes the weight afterwards.`]
          : [`${S.scaled} = −∞: key ${j + 1} is hidden from query ${i + 1} by ${reasons.map((rule) => REASONS[rule]).join(', and by ')}.`, 'e^(−∞) = 0, so its weight will be exactly 0 and the other weights renormalise.'];
      return { title: 'Masked score', lines, related: { q: i, k: j } };
    },
    exp: () => {
      if (fully && !afterSoftmax) {
        return { title: 'Exp value', lines: [`Every key is hidden from query ${i + 1}: there is no row max to subtract, and the exp values are defined as 0.`], related: { q: i } };
      }
      const x = result.scaled[i][j];
      const lines = x === -Infinity
        ? [`${S.exp} = e^(−∞) = 0: a hidden key contributes nothing.`]
        : [`${S.exp} = e^(${format(x)} − ${format(result.rowMax[i])}) = ${format(result.exp[i][j])}, with the row max ${format(result.rowMax[i])} subtracted.`,
          'Subtracting the row max changes no weight but keeps every exponent ≤ 0, so e^x never overflows.'];
      return { title: 'Exp value', lines, related: { q: i, k: j } };
    },
    rowSum: () => {
      if (fully && !afterSoftmax) {
        return { title: 'Row sum', lines: [`${S.rowSum} = 0: every key is hidden from query ${i + 1}.`], related: { q: i } };
      }
      const terms = result.exp[i].map((e) => format(e)).join(' + ');
      return { title: 'Row sum', lines: [`${S.rowSum} = ${terms} = ${format(result.rowSum[i])}`], related: { q: i } };
    },
    weights: () => {
      if (fully) {
        return {
          title: 'Weight',
          lines: [`${S.weights} = 0: every key is hidden from query ${i + 1}, so there is nothing to normalise. The core defines the weights and the output of such a row as 0, never NaN.`],
          related: { q: i },
        };
      }
      const division = `${S.weights} = ${S.exp} / ${S.rowSum} = ${format(result.exp[i][j])} / ${format(result.rowSum[i])}`;
      const lines = afterSoftmax && result.hiddenBy[i][j].length
        ? [`${division}, then set to ${format(result.weights[i][j])} by the mask.`,
          'Pitfall: zeroing weights after the softmax does not renormalise the others, so this row no longer sums to 1.']
        : [`${division} = ${format(result.weights[i][j])}`];
      return { title: 'Weight', lines, related: { q: i, k: j } };
    },
    output: () => {
      const zi = `z${sub(i + 1)}`; // the output row, a vector
      if (fully && !afterSoftmax) {
        return { title: 'Output', lines: [`${zi} = 0: every key is hidden from query ${i + 1}, so the output is defined as 0.`], related: { q: i } };
      }
      const row = result.output[i].map((x) => format(x)).join(', ');
      const vectors = result.weights[i].map((w, t) => `${format(w)}·v${sub(t + 1)}`).join(' + ');
      const coordinate = result.weights[i].map((w, t) => `${format(w)}·${factor(state.v[t][j])}`).join(' + ');
      return {
        title: `Output of token ${i + 1}`,
        lines: [`${zi} = ${vectors} = (${row})`, `${S.output} = ${coordinate} = ${format(result.output[i][j])}`],
        related: { q: i },
      };
    },
  };
  return Object.hasOwn(byStep, step) ? byStep[step]() : { title: '', lines: [], related: {} };
}
