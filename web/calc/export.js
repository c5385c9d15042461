// Sharing and export: a PyTorch snippet built on the lesson's `attention`, the matrices in
// LaTeX, and SVG files. Text only; nothing here computes attention.
import { format } from './format.js';
import { coreMask } from './state.js';

const py = (x) => (Number.isInteger(x) ? `${x}.` : String(x));
const pyRows = (rows) => `torch.tensor([${rows.map((r) => `[${r.map(py).join(', ')}]`).join(', ')}])`;

/** A Python script that reproduces the page's numbers with the lesson's attention function. */
export function pytorchSnippet(state) {
  const mask = coreMask(state);
  const grid = Array.isArray(mask) ? mask : null;
  const scale = {
    'scale-dk': ' / d_k  # PITFALL: scales by d_k instead of √d_k',
    'no-scale': '  # PITFALL: no scaling',
  }[state.pitfall] ?? ' / d_k ** 0.5';
  const afterSoftmax = state.pitfall === 'mask-after-softmax';
  const lines = [
    '# attention-calc: the lesson\'s attention function, with an optional mask (True = hidden).',
    'import torch, torch.nn.functional as F',
    '',
    'def attention(Q, K, V, causal=False, mask=None):',
    '    d_k = Q.size(-1)',
    `    scores = Q @ K.transpose(-2, -1)${scale}`,
    '    n, m = scores.shape[-2:]',
    '    hidden = torch.zeros(n, m, dtype=torch.bool)',
    '    if causal:',
    '        hidden |= torch.triu(torch.ones(n, m, dtype=torch.bool), diagonal=1)',
    '    if mask is not None:',
    '        hidden |= mask',
  ];
  if (afterSoftmax) {
    lines.push('    A = F.softmax(scores, dim=-1)', '    A = A.masked_fill(hidden, 0.0)  # PITFALL: masks after the softmax, rows no longer sum to 1');
  } else {
    lines.push('    scores = scores.masked_fill(hidden, float(\'-inf\'))', '    A = F.softmax(scores, dim=-1)');
  }
  lines.push('    return A @ V, A', '', `Q = ${pyRows(state.q)}`, `K = ${pyRows(state.k)}`, `V = ${pyRows(state.v)}`);
  const args = ['Q', 'K', 'V'];
  if (grid) {
    lines.push(`mask = torch.tensor([${grid.map((r) => `[${r.map((x) => (x ? 'True' : 'False')).join(', ')}]`).join(', ')}])`);
    args.push('mask=mask');
  } else if (state.causal) {
    args.push('causal=True');
  }
  lines.push(`Z, A = attention(${args.join(', ')})`);
  if (!afterSoftmax && grid && grid.some((row) => row.every(Boolean))) {
    lines.push('# A row with every key hidden is NaN here; attention-calc defines its weights and output as 0.');
  }
  lines.push('torch.set_printoptions(precision=3)', 'print(A)', 'print(Z)', '');
  return lines.join('\n');
}

const texNumber = (x) => (x === -Infinity ? '-\\infty' : format(x).replace('−', '-'));
const texInput = (x) => String(x);
const pmatrix = (rows, show) => `\\begin{pmatrix} ${rows.map((r) => r.map(show).join(' & ')).join(' \\\\ ')} \\end{pmatrix}`;

/** Q, K, V and the weights and output to 3 decimals, as LaTeX. */
export function latexSnippet(state, result) {
  return [
    `Q = ${pmatrix(state.q, texInput)}, \\quad K = ${pmatrix(state.k, texInput)}, \\quad V = ${pmatrix(state.v, texInput)}`,
    `A = \\operatorname{softmax}\\!\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right) = ${pmatrix(result.weights, texNumber)}, \\quad Z = AV = ${pmatrix(result.output, texNumber)}`,
    '',
  ].join('\n');
}

/** Downloads an SVG element as a standalone file, with its colours fixed for a white page. */
export function saveSvg(element, filename) {
  const copy = element.cloneNode(true);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('color', '#1b1f24'); // what currentColor means outside the page
  if (!copy.getAttribute('width')) {
    const [, , w, hgt] = copy.getAttribute('viewBox').split(' ');
    copy.setAttribute('width', w);
    copy.setAttribute('height', hgt);
  }
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return text;
}

/** Copies text; resolves to true, or false where the clipboard is not available. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
