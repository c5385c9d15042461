// Reading what a learner types or pastes. Returns values or a message; never throws.

const FLOAT32_MAX = 3.4028234663852886e38;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
// What a number looks like halfway through typing it: '', '-', '.', '1e', '2.5e-'.
const UNFINISHED = /^[+-]?(\.|(\d+\.?\d*|\.\d+)e[+-]?)?$/i;

/** Far more than any 8×8 matrix needs; longer text is refused before it is read. */
export const MAX_MATRIX_TEXT = 4000;

/** The learner's own text, quoted and cut short, for a message: “abc”. */
export function quote(text, max = 24) {
  const s = String(text);
  return `“${s.length > max ? `${s.slice(0, max)}…` : s}”`;
}

/**
 * '−0.5' → { ok: true, value: -0.5 }; 'abc' → { ok: false, message }. Text that may still
 * become a number as the learner types ('-', '1e') also has `unfinished: true`.
 */
export function parseNumber(text) {
  const t = String(text).trim().replace(/[−–]/g, '-');
  if (t === '') return { ok: false, unfinished: true, message: 'empty: type a number' };
  if (UNFINISHED.test(t)) return { ok: false, unfinished: true, message: `${quote(text)} is not a number` };
  if (/^[+-]?\d+,\d+$/.test(t)) return { ok: false, message: `${quote(text)} uses a comma: write decimals with a dot` };
  if (!NUMBER.test(t)) return { ok: false, message: `${quote(text)} is not a number` };
  const value = Number(t);
  if (!Number.isFinite(value) || Math.abs(value) > FLOAT32_MAX) {
    return { ok: false, message: `${quote(text)} is too large (float32 holds at most ±3.4e38)` };
  }
  return { ok: true, value };
}

// JSON rows hold numbers: anything nested deeper is refused before JSON.parse builds it.
function jsonDepth(text) {
  let depth = 0, deepest = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}

// JSON text → rows of cell texts, or a message.
function jsonCells(text) {
  if (jsonDepth(text) > 2) return { message: 'JSON must be a list of rows of numbers, such as [[1, 0], [0, 1]]; this one is nested deeper' };
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { message: 'the text looks like JSON but does not parse' };
  }
  if (!Array.isArray(value) || !value.every(Array.isArray)) return { message: 'JSON must be a list of rows of numbers, such as [[1, 0], [0, 1]]' };
  for (const [i, row] of value.entries()) {
    const j = row.findIndex((x) => typeof x !== 'number' && typeof x !== 'string');
    if (j >= 0) return { message: `row ${i + 1} column ${j + 1} is ${kindOf(row[j])}, not a number` };
    const big = row.findIndex((x) => x === Infinity || x === -Infinity); // JSON's 1e400
    if (big >= 0) return { message: `row ${i + 1} column ${big + 1} is too large (float32 holds at most ±3.4e38)` };
  }
  return { cells: value.map((row) => row.map(String)) };
}

const kindOf = (value) => (value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`);

/**
 * A matrix from text: '1 1; 0 1; -1 0', spreadsheet cells (tabs and newlines), comma-separated
 * rows, or JSON [[1, 1], [0, 1]]. → { ok: true, rows } with at least one row and one column,
 * all rows as long, or { ok: false, message }.
 */
export function parseMatrixText(text) {
  const t = String(text).trim();
  if (t.length > MAX_MATRIX_TEXT) return { ok: false, message: `the text is ${t.length} characters long; a matrix for the calculator needs at most ${MAX_MATRIX_TEXT}` };
  let cells;
  if (t.startsWith('[') || t.startsWith('{')) {
    const json = jsonCells(t);
    if (json.message) return { ok: false, message: json.message };
    cells = json.cells;
  } else {
    cells = t
      .split(/\s*[;\n\r]+\s*/)
      .filter((row) => row.trim() !== '')
      .map((row) => row.trim().split(/[\s,]+/));
  }
  if (cells.length === 0) return { ok: false, message: 'there are no numbers in it: write rows such as 1 0; 0 1' };
  const rows = [];
  for (const [i, row] of cells.entries()) {
    if (row.length === 0) return { ok: false, message: `row ${i + 1} has no numbers` };
    if (row.length !== cells[0].length) {
      return { ok: false, message: `row ${i + 1} has ${count(row.length)} but row 1 has ${count(cells[0].length)}: every row needs the same length` };
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

const count = (k) => `${k} ${k === 1 ? 'number' : 'numbers'}`;
