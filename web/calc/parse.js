// Reading what a learner types or pastes. Returns values or a message; never throws.

const FLOAT32_MAX = 3.4028234663852886e38;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** '−0.5' → { ok: true, value: -0.5 }; 'abc' → { ok: false, message }. */
export function parseNumber(text) {
  const t = String(text).trim().replace(/[−–]/g, '-');
  if (t === '') return { ok: false, message: 'empty: type a number' };
  if (/^[+-]?\d+,\d+$/.test(t)) return { ok: false, message: `“${text}” uses a comma: write decimals with a dot` };
  if (!NUMBER.test(t)) return { ok: false, message: `“${clip(text)}” is not a number` };
  const value = Number(t);
  if (!Number.isFinite(value) || Math.abs(value) > FLOAT32_MAX) {
    return { ok: false, message: `${clip(text)} is too large (float32 holds at most ±3.4e38)` };
  }
  return { ok: true, value };
}

function clip(text) {
  const s = String(text);
  return s.length > 24 ? `${s.slice(0, 24)}…` : s;
}

/**
 * A matrix from text: '1 1; 0 1; -1 0', spreadsheet cells (tabs and newlines), comma-separated
 * rows, or JSON [[1, 1], [0, 1]]. → { ok: true, rows } or { ok: false, message }.
 */
export function parseMatrixText(text) {
  const t = String(text).trim();
  if (t === '') return { ok: false, message: 'nothing to paste' };
  let cells;
  if (t.startsWith('[')) {
    try {
      cells = JSON.parse(t);
    } catch {
      return { ok: false, message: 'the pasted text looks like JSON but does not parse' };
    }
    if (!Array.isArray(cells) || !cells.every(Array.isArray)) return { ok: false, message: 'JSON must be an array of rows' };
    cells = cells.map((row) => row.map(String));
  } else {
    cells = t
      .split(/\s*[;\n\r]+\s*/)
      .filter((row) => row.trim() !== '')
      .map((row) => row.trim().split(/[\s,]+/));
  }
  const rows = [];
  for (const [i, row] of cells.entries()) {
    if (row.length !== cells[0].length) {
      return { ok: false, message: `row ${i + 1} has ${row.length} numbers but row 1 has ${cells[0].length}` };
    }
    const values = [];
    for (const [j, cell] of row.entries()) {
      const parsed = parseNumber(cell);
      if (!parsed.ok) return { ok: false, message: `row ${i + 1} column ${j + 1}: ${parsed.message}` };
      values.push(parsed.value);
    }
    rows.push(values);
  }
  return { ok: true, rows };
}
