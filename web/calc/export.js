// Export: PyTorch and NumPy scripts of the lesson's `attention`, and the computation in LaTeX.
// Loaded only where the share panel shows (files.js saves and copies). Each text writes the computation the page's mode actually does: the
// mask, the scale, and where the mask is applied. Text only: they state the mask and the scale;
// PyTorch, NumPy (or the reader) do the arithmetic, and the numbers shown come from the core.
import { format } from '../shared/format.js';

// The queries that see no key, as the core found them, 1-based as on the page.
const fullyMaskedRows = (result) => result.fullyMasked.flatMap((empty, i) => (empty ? [i + 1] : []));
const list = (xs) => xs.join(', ');

// --- Python, for both scripts -----------------------------------------------------------------

// A Python float literal: 1 → 1., 0.5 → 0.5, 1e-7 stays (an integer alone would make an int tensor).
const py = (x) => {
  const s = String(Object.is(x, -0) ? 0 : x);
  return /^-?\d+$/.test(s) ? `${s}.` : s;
};
const pyList = (rows, show) => `[${rows.map((r) => `[${r.map(show).join(', ')}]`).join(', ')}]`;
const pyBool = (x) => (x ? 'True' : 'False');

// The scores line of the lesson's function, as each mode computes it; `product` is QKᵀ.
function scoresLine(state, product) {
  const scores = `    scores = ${product}`;
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

// The pairs the mask argument hides: those the core hid for padding or by hand (causal stays a
// flag); null where there are none.
function maskArgument(result) {
  const byHand = result.hiddenBy.map((row) => row.map((why) => why.some((rule) => rule !== 'causal')));
  return byHand.some((row) => row.some(Boolean)) ? byHand : null;
}

// The arguments of the call: causal as a flag, the other hidden pairs as `mask`.
function callArguments(state, mask) {
  return ['Q', 'K', 'V', ...(state.causal ? ['causal=True'] : []), ...(mask ? ['mask=mask'] : [])].join(', ');
}

// Where the queries that see no key are, the comment that says what the script does with them.
function noKeyComment(empty) {
  const many = empty.length > 1;
  return [
    `    # ${many ? 'Queries' : 'Query'} ${list(empty)} ${many ? 'see' : 'sees'} no key: softmax of a row of -inf is 0/0 = nan.`,
    `    # attention-calc defines ${many ? 'those rows' : 'that row'} of A (and so of Z) as 0:`,
  ];
}

// --- PyTorch --------------------------------------------------------------------------------

// The lesson's attention function in PyTorch, as the page's mode computes it, named `name`.
function torchAttention(state, result, name = 'attention') {
  const lines = [
    `def ${name}(Q, K, V, causal=False, mask=None):`,
    '    d_k = Q.size(-1)',
    scoresLine(state, 'Q @ K.transpose(-2, -1)'),
    '    n, m = scores.shape[-2:]',
    '    hidden = torch.zeros(n, m, dtype=torch.bool)',
    '    if causal:',
    '        hidden |= torch.triu(torch.ones(n, m, dtype=torch.bool), diagonal=1)',
    '    if mask is not None:',
    '        hidden |= mask',
  ];
  if (state.pitfall === 'mask-after-softmax') {
    lines.push(
      '    A = F.softmax(scores, dim=-1)',
      '    A = A.masked_fill(hidden, 0.0)  # PITFALL: masks after the softmax, rows no longer sum to 1');
  } else {
    lines.push(
      '    scores = scores.masked_fill(hidden, float(\'-inf\'))',
      '    A = F.softmax(scores, dim=-1)');
    const empty = fullyMaskedRows(result);
    if (empty.length) lines.push(...noKeyComment(empty), '    A = A.masked_fill(hidden.all(dim=-1, keepdim=True), 0.0)');
  }
  lines.push('    return A @ V, A');
  return lines;
}

/**
 * A Python script that reproduces the page's numbers (`result`, computed from `state`) with the
 * lesson's attention function, in the page's mode, and prints A and Z with the page's `precision`.
 */
export function pytorchSnippet(state, result, { precision = 3 } = {}) {
  const tensor = (rows, show) => `torch.tensor(${pyList(rows, show)})`;
  const lines = [
    '# attention-calc: the lesson\'s attention function, with an optional mask (True = hidden).',
    'import torch, torch.nn.functional as F',
    '',
    ...torchAttention(state, result),
    '',
    `Q = ${tensor(state.q, py)}`, `K = ${tensor(state.k, py)}`, `V = ${tensor(state.v, py)}`];
  const mask = maskArgument(result);
  if (mask) lines.push(maskComment(state), `mask = ${tensor(mask, pyBool)}`);
  lines.push(
    `Z, A = attention(${callArguments(state, mask)})`,
    `torch.set_printoptions(precision=${precision}, sci_mode=False)  # as the page shows them`,
    'print(\'A =\', A)',
    'print(\'Z =\', Z)',
    '');
  return lines.join('\n');
}

// --- NumPy ----------------------------------------------------------------------------------

/**
 * Exercise 2 of the lesson: the same computation in NumPy alone, with a softmax that subtracts
 * the row max, printing A and Z with the page's `precision`; then an optional block that runs the
 * PyTorch snippet's function on the same input and prints the largest difference.
 */
export function numpySnippet(state, result, { precision = 3 } = {}) {
  const afterSoftmax = state.pitfall === 'mask-after-softmax';
  const empty = afterSoftmax ? [] : fullyMaskedRows(result);
  const array = (rows, show, type) => `np.array(${pyList(rows, show)}, dtype=${type})`;
  const lines = [
    '# attention-calc: the lesson\'s attention function in NumPy, with an optional mask (True = hidden).',
    '# float32, as the page and PyTorch compute.',
    'import numpy as np',
    '',
    'def softmax(scores):',
    '    # softmax(s) = softmax(s - c) for any c, and with c the row max every exponent is <= 0:',
    '    # exp cannot overflow (float32\'s exp is inf from 89 on, and inf / inf is nan), and the',
    '    # largest term is exp(0) = 1, so the sum is at least 1.',
    '    e = np.exp(scores - scores.max(axis=-1, keepdims=True))',
    '    return e / e.sum(axis=-1, keepdims=True)',
    '',
    'def attention(Q, K, V, causal=False, mask=None):',
    '    d_k = Q.shape[-1]',
    scoresLine(state, 'Q @ K.T'),
    '    n, m = scores.shape',
    '    hidden = np.zeros((n, m), dtype=bool)',
    '    if causal:',
    '        hidden |= np.triu(np.ones((n, m), dtype=bool), k=1)',
    '    if mask is not None:',
    '        hidden |= mask',
  ];
  if (afterSoftmax) {
    lines.push(
      '    A = softmax(scores)',
      '    A[hidden] = 0.0  # PITFALL: masks after the softmax, rows no longer sum to 1');
  } else if (empty.length) {
    lines.push(
      '    scores[hidden] = -np.inf',
      ...noKeyComment(empty),
      '    # its row of scores is set to 0 (any finite row would do) so that no nan is made, and',
      '    # its weights to 0 after the softmax.',
      '    sees_no_key = hidden.all(axis=-1)',
      '    scores[sees_no_key] = 0.0',
      '    A = softmax(scores)',
      '    A[sees_no_key] = 0.0');
  } else {
    lines.push(
      '    scores[hidden] = -np.inf  # exp(-inf) = 0: a hidden key gets no weight',
      '    A = softmax(scores)');
  }
  lines.push('    return A @ V, A', '',
    `Q = ${array(state.q, py, 'np.float32')}`, `K = ${array(state.k, py, 'np.float32')}`, `V = ${array(state.v, py, 'np.float32')}`);
  const mask = maskArgument(result);
  if (mask) lines.push(maskComment(state), `mask = ${array(mask, pyBool, 'bool')}`);
  const args = callArguments(state, mask);
  lines.push(
    `Z, A = attention(${args})`,
    `np.set_printoptions(precision=${precision}, suppress=True, floatmode='fixed')  # as the page shows them`,
    'print(\'A =\', A)',
    'print(\'Z =\', Z)',
    '',
    '# --- Optional: the check of exercise 2, against the PyTorch snippet ("Copy as PyTorch"). ---',
    '# The lesson expects a difference below 1e-6. float32 keeps about 7 significant digits, so',
    '# where V holds values beyond 1 the bound grows with them: 1e-6 * max(1, max |V|).',
    'try:',
    '    import torch, torch.nn.functional as F',
    'except ImportError:',
    '    print(\'PyTorch is not installed: the comparison with the PyTorch snippet is skipped.\')',
    'else:',
    ...torchAttention(state, result, 'attention_torch').map((line) => `    ${line}`),
    '',
    `    Z_t, A_t = attention_torch(${args.replace(/\b(Q|K|V|mask)\b(?!=)/g, 'torch.from_numpy($1)')})`,
    '    diff = max(np.abs(A - A_t.numpy()).max(), np.abs(Z - Z_t.numpy()).max())',
    '    bound = 1e-6 * max(1.0, float(np.abs(V).max()))',
    '    print(f\'max |NumPy - PyTorch| = {diff:.1e}:\', \'below\' if diff < bound else \'NOT below\', f\'{bound:.2g}\')',
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
