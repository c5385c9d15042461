// The lesson's seven steps, in its order: the one table that the steps view (steps.js), practice
// mode (practice.js, practice-check.js) and links (state.js) read. Plain data, no DOM.
//   key     the result's field (attention.d.ts): scaledBeforeMask is the lesson's "scaled",
//           scaled its "masked"
//   name    the lesson's word, the start of each cell's accessible name ("Scores row 1 column 2")
//   link    the step's name in a link (your-scaled=…, revealed=scaled,masked), as links have
//           always written it, so links already handed out still open
//   tex     the caption, TeX, for a mode (state.pitfall)
//   note    the plain note beside the caption
//   rows    the rows' label (q_i, z_i); cols the columns' (k_j), null for the one Σ column, ''
//           for plain numbers
//   values  the step's matrix in a core result
//   symbol  a cell's symbol in the explanations and practice hints (score₁₂, row sum₁): the
//           symbol, the row's subscript, then the column's but in the one Σ column
import { sub } from '../../shared/dom.js';

const SCALE_TEX = {
  'none': '\\dfrac{QK^\\top}{\\sqrt{d_k}}',
  'mask-after-softmax': '\\dfrac{QK^\\top}{\\sqrt{d_k}}',
  'scale-dk': '\\dfrac{QK^\\top}{d_k}',
  'no-scale': 'QK^\\top',
  'custom-scale': 's \\cdot QK^\\top',
};

export const STEPS = [
  { key: 'scores', name: 'Scores', link: 'scores', tex: () => 'QK^\\top', note: 'scores: each query against each key', rows: 'q', cols: 'k', symbol: 'score', values: (r) => r.scores },
  { key: 'scaledBeforeMask', name: 'Scaled', link: 'scaled', tex: (mode) => SCALE_TEX[mode], note: 'scaled', rows: 'q', cols: 'k', symbol: 'scaled', values: (r) => r.scaledBeforeMask },
  { key: 'scaled', name: 'Masked', link: 'masked', tex: () => '\\text{masked}', note: 'hidden keys become −∞', rows: 'q', cols: 'k', symbol: 'masked', values: (r) => r.scaled },
  { key: 'exp', name: 'Exp', link: 'exp', tex: () => 'e^{\\,x - \\max_j x}', note: 'exp, row max subtracted', rows: 'q', cols: 'k', symbol: 'exp', values: (r) => r.exp },
  { key: 'rowSum', name: 'Row sum', link: 'rowSum', tex: () => '\\textstyle\\sum_j', note: 'row sums', rows: 'q', cols: null, symbol: 'row sum', values: (r) => r.rowSum.map((s) => [s]) },
  { key: 'weights', name: 'Weights', link: 'weights', tex: () => 'A', note: 'weights = exp / row sum', rows: 'q', cols: 'k', symbol: 'A', values: (r) => r.weights },
  { key: 'output', name: 'Output', link: 'output', tex: () => 'Z = AV', note: 'output: weighted values', rows: 'z', cols: '', symbol: 'z', values: (r) => r.output },
];

/** The steps' keys, in the lesson's order. */
export const STEP_KEYS = STEPS.map((s) => s.key);

/** Each step by its key. */
export const STEP = Object.fromEntries(STEPS.map((s) => [s.key, s]));

/** The symbol of cell (i, j) of the step `key`, such as A₁₂ or row sum₁. */
export const symbolOf = (key, i, j) => `${STEP[key].symbol}${sub(i + 1)}${STEP[key].cols === null ? '' : sub(j + 1)}`;
