// Export: a PyTorch snippet built on the lesson's `attention`, and the computation in LaTeX.
// Loaded only where the share panel shows (files.js saves and copies). Both texts write the computation the page's mode actually does: the
// mask, the scale, and where the mask is applied. Text only: they state the mask and the scale;
// PyTorch (or the reader) does the arithmetic, and the numbers shown come from the core.
import { format } from './format.js';

// The queries that see no key, as the core found them, 1-based as on the page.
const fullyMaskedRows = (result) => result.fullyMasked.flatMap((empty, i) => (empty ? [i + 1] : []));
const list = (xs) => xs.join(', ');

// --- PyTorch --------------------------------------------------------------------------------

// A Python float literal: 1 → 1., 0.5 → 0.5, 1e-7 stays (an integer alone would make an int tensor).
const py = (x) => {
  const s = String(Object.is(x, -0) ? 0 : x);
  return /^-?\d+$/.test(s) ? `${s}.` : s;
};
const pyRows = (rows, show) => `torch.tensor([${rows.map((r) => `[${r.map(show).join(', ')}]`).join(', ')}])`;
const pyBool = (x) => (x ? 'True' : 'False');

// The scores line of the lesson's function, as each mode computes it.
function scoresLine(state) {
  const scores = '    scores = Q @ K.transpose(-2, -1)';
  switch (state.pitfall) {
    case 'scale-dk': return `${scores} / d_k  # PITFALL: scales by d_k instead of √d_k`;
    case 'no-scale': return `${scores}  # PITFALL: no scaling`;
    case 'custom-scale': return `${scores} * ${py(state.scale)}  # a custom scale instead of 1 / √d_k`;
    default: return `${scores} / d_k ** 0.5`;
  }
}

// Which keys the mask argument hides, in the page's terms (1-based, as on the page).
function maskComment(state) {
  const padded = state.padding.flatMap((x, j) => (x ? [j + 1] : []));
  const cells = state.hidden.flatMap((row, i) => row.flatMap((x, j) => (x ? [`${i + 1}→${j + 1}`] : [])));
  const parts = [];
  if (padded.length) parts.push(`padding token${padded.length > 1 ? 's' : ''} ${list(padded)} (hidden from every query)`);
  if (cells.length) parts.push(`query→key ${list(cells)} (hidden by hand)`);
  return `# True = hidden: ${parts.join('; ')}.`;
}

/**
 * A Python script that reproduces the page's numbers (`result`, computed from `state`) with the
 * lesson's attention function, in the page's mode, and prints A and Z with the page's `precision`.
 */
export function pytorchSnippet(state, result, { precision = 3 } = {}) {
  const afterSoftmax = state.pitfall === 'mask-after-softmax';
  const lines = [
    '# attention-calc: the lesson\'s attention function, with an optional mask (True = hidden).',
    'import torch, torch.nn.functional as F',
    '',
    'def attention(Q, K, V, causal=False, mask=None):',
    '    d_k = Q.size(-1)',
    scoresLine(state),
    '    n, m = scores.shape[-2:]',
    '    hidden = torch.zeros(n, m, dtype=torch.bool)',
    '    if causal:',
    '        hidden |= torch.triu(torch.ones(n, m, dtype=torch.bool), diagonal=1)',
    '    if mask is not None:',
    '        hidden |= mask',
  ];
  if (afterSoftmax) {
    lines.push(
      '    A = F.softmax(scores, dim=-1)',
      '    A = A.masked_fill(hidden, 0.0)  # PITFALL: masks after the softmax, rows no longer sum to 1');
  } else {
    lines.push(
      '    scores = scores.masked_fill(hidden, float(\'-inf\'))',
      '    A = F.softmax(scores, dim=-1)');
    const empty = fullyMaskedRows(result);
    if (empty.length) {
      lines.push(
        `    # ${empty.length > 1 ? 'Queries' : 'Query'} ${list(empty)} ${empty.length > 1 ? 'see' : 'sees'} no key: softmax of a row of -inf is 0/0 = nan.`,
        `    # attention-calc defines ${empty.length > 1 ? 'those rows' : 'that row'} of A (and so of Z) as 0:`,
        '    A = A.masked_fill(hidden.all(dim=-1, keepdim=True), 0.0)');
    }
  }
  lines.push('    return A @ V, A', '', `Q = ${pyRows(state.q, py)}`, `K = ${pyRows(state.k, py)}`, `V = ${pyRows(state.v, py)}`);

  // Causal stays a flag; cells the core says padding or the grid hide go in the mask argument.
  const args = ['Q', 'K', 'V'];
  if (state.causal) args.push('causal=True');
  const byHand = result.hiddenBy.map((row) => row.map((why) => why.some((rule) => rule !== 'causal')));
  if (byHand.some((row) => row.some(Boolean))) {
    lines.push(maskComment(state), `mask = ${pyRows(byHand, pyBool)}`);
    args.push('mask=mask');
  }
  lines.push(
    `Z, A = attention(${args.join(', ')})`,
    `torch.set_printoptions(precision=${precision}, sci_mode=False)  # as the page shows them`,
    'print(\'A =\', A)',
    'print(\'Z =\', Z)',
    '');
  return lines.join('\n');
}

// --- LaTeX ----------------------------------------------------------------------------------

// An input as typed; 1e-7 → 1 \times 10^{-7}.
function texInput(x) {
  const [mantissa, exponent] = String(Object.is(x, -0) ? 0 : x).split('e');
  return exponent === undefined ? mantissa : `${mantissa} \\times 10^{${Number(exponent)}}`;
}
const pmatrix = (rows, show) => `\\begin{pmatrix} ${rows.map((r) => r.map(show).join(' & ')).join(' \\\\ ')} \\end{pmatrix}`;

// QKᵀ times the scale each mode uses.
function scaledTex(state) {
  switch (state.pitfall) {
    case 'scale-dk': return '\\frac{QK^\\top}{d_k}';
    case 'no-scale': return 'QK^\\top';
    case 'custom-scale': return `${texInput(state.scale)}\\,QK^\\top`;
    default: return '\\frac{QK^\\top}{\\sqrt{d_k}}';
  }
}

/**
 * Q, K, V, d_k and the computation the page did — its mask term, its scale, the mask before or
 * after the softmax — with the weights and output to `precision` decimals, as LaTeX.
 */
export function latexSnippet(state, result, { precision = 3 } = {}) {
  const number = (x) => format(x, precision).replace('−', '-');
  const grid = result.hidden;
  const masked = grid.some((row) => row.some(Boolean));
  const afterSoftmax = state.pitfall === 'mask-after-softmax';
  const scaled = scaledTex(state);
  const lines = [`Q = ${pmatrix(state.q, texInput)}, \\quad K = ${pmatrix(state.k, texInput)}, \\quad V = ${pmatrix(state.v, texInput)}, \\quad d_k = ${state.q[0].length}`];
  let weights = `\\operatorname{softmax}\\!\\left(${scaled}\\right)`;
  if (masked && afterSoftmax) {
    lines.push(`H = ${pmatrix(grid, (x) => (x ? '1' : '0'))} \\quad (H_{ij} = 1 \\text{ where key } j \\text{ is hidden from query } i)`);
    weights = `${weights} \\odot (1 - H)`;
  } else if (masked) {
    lines.push(`M = ${pmatrix(grid, (x) => (x ? '-\\infty' : '0'))} \\quad (M_{ij} = -\\infty \\text{ where key } j \\text{ is hidden from query } i)`);
    weights = `\\operatorname{softmax}\\!\\left(${scaled} + M\\right)`;
  }
  lines.push(`A = ${weights} = ${pmatrix(result.weights, number)}, \\quad Z = AV = ${pmatrix(result.output, number)}`);
  const empty = afterSoftmax ? [] : fullyMaskedRows(result);
  if (empty.length) {
    const one = empty.length === 1;
    lines.push(`\\text{Quer${one ? 'y' : 'ies'} ${list(empty)} ${one ? 'sees' : 'see'} no key: the softmax of a row of } -\\infty \\text{ is undefined, so row${one ? '' : 's'} ${list(empty)} of } A \\text{ and } Z \\text{ ${one ? 'is' : 'are'} defined as } 0.`);
  }
  return `\\begin{gathered}\n${lines.join(' \\\\\n')}\n\\end{gathered}\n`;
}
