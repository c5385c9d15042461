// The calculator page: the lesson's worked example, every number from the C++ core.
import { loadAttention } from './attention.js';
import { WORKED_EXAMPLE } from './examples.js';

const DECIMALS = 3;

function format(x) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  const fixed = x.toFixed(DECIMALS);
  // No "−0.000": a value that rounds to zero is shown as zero. Minus signs are typographic.
  return (Number(fixed) === 0 ? fixed.replace('-', '') : fixed).replace('-', '−');
}

// A labelled matrix; `name` gives each cell an accessible name such as "Weights row 1 column 2".
// Inputs are shown as typed (1, −1); computed values with fixed decimals.
const formatInput = (x) => String(x).replace('-', '−');

function matrixFigure(caption, name, rows, show = format) {
  const figure = document.createElement('figure');
  const label = document.createElement('figcaption');
  label.textContent = caption;
  const table = document.createElement('table');
  rows.forEach((row, i) => {
    const tr = table.insertRow();
    row.forEach((x, j) => {
      const td = tr.insertCell();
      td.textContent = show(x);
      td.setAttribute('aria-label', `${name} row ${i + 1} column ${j + 1}`);
      if (x === -Infinity) td.classList.add('masked');
    });
  });
  figure.append(label, table);
  return figure;
}

function render(attn, causal) {
  const { q, k, v } = WORKED_EXAMPLE;
  const r = attn.attention({ q, k, v, mask: causal ? 'causal' : 'none' });
  document.getElementById('inputs').replaceChildren(
    matrixFigure('Q (queries)', 'Q', q, formatInput),
    matrixFigure('K (keys)', 'K', k, formatInput),
    matrixFigure('V (values)', 'V', v, formatInput),
  );
  document.getElementById('steps').replaceChildren(
    matrixFigure('Scores QKᵀ', 'Scores', r.scores),
    matrixFigure(`Scaled ÷√${q[0].length}${causal ? ', masked' : ''}`, 'Scaled', r.scaled),
    matrixFigure('exp(scaled − row max)', 'Exp', r.exp),
    matrixFigure('Row sums', 'Row sum', r.rowSum.map((s) => [s])),
    matrixFigure('Weights A', 'Weights', r.weights),
    matrixFigure('Output Z = AV', 'Output', r.output),
  );
}

async function main() {
  const status = document.getElementById('status');
  try {
    const attn = await loadAttention();
    const causal = document.getElementById('causal');
    const update = () => render(attn, causal.checked);
    causal.addEventListener('change', update);
    update();
    status.textContent = `Computed by the C++ core in WebAssembly (${attn.simd ? 'SIMD' : 'scalar'} build).`;
    document.body.dataset.ready = attn.simd ? 'simd' : 'scalar';
  } catch (error) {
    status.textContent = `The attention core could not start: ${error.message}`;
    status.classList.add('error');
    status.setAttribute('role', 'alert');
    document.body.dataset.ready = 'error';
  }
}

main();
