// Input conversion: the form of each argument (a number, a matrix, a mask, a URL) and its copy
// into what the core reads, row-major float32 matrices and flags; and the core's flat results
// back into rows. The values and the limits are the core's to check (src/validate.hpp,
// src/limits.hpp): a size over a limit is refused in the core's words (sizeRules) before
// anything is copied. The general argument helpers are in arguments.js.

import { InputError, count, describe, fail, typedArrayKind, toBoolean, withDefault } from './arguments.js';

const FLOAT32_MAX = 3.4028234663852886e38;

// A file's URL, relative to `base` unless absolute.
export function toUrl(value, name, base) {
  if (typeof value !== 'string' && !(value instanceof URL)) fail(`${name} must be a string or a URL (got ${describe(value)})`);
  try {
    return new URL(value, base);
  } catch {
    fail(`${name} is not a valid URL (got ${describe(String(value))})`);
  }
}

// The core's flat row-major result → rows of plain numbers (fresh JS arrays, no view of the heap).
export function toRows(flat, rows, cols) {
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = Array.from(flat.subarray(i * cols, (i + 1) * cols));
  return out;
}

// value as a list to read entries from: an array, or a typed array of numbers; undefined when it
// is neither. A DataView (no entries to index) and a BigInt64Array (BigInts, not numbers) are
// refused by name, so the message says what to pass instead.
export function listOf(value, name) {
  if (Array.isArray(value)) return value;
  const kind = typedArrayKind.call(value);
  if (kind === 'BigInt64Array' || kind === 'BigUint64Array') {
    fail(`${name} is a ${kind}: its entries are BigInts, not numbers (pass an array or a Float64Array)`);
  }
  if (kind) return value;
  if (ArrayBuffer.isView(value)) {
    fail(`${name} is a DataView, which has no entries to read: pass an array or a typed array such as Float32Array`);
  }
  return undefined;
}

// An empty slot of a sparse array. It is refused like undefined, never read as 0 or "visible".
export const HOLE = Symbol('hole');
export const HOLE_TEXT = 'an empty slot of a sparse array';
const entry = (list, i) => (i in list ? list[i] : HOLE);

// map over every entry, holes included (forEach and Array.from skip or fill them), reading each
// entry once; stops at the first entry `convert` refuses, so a sparse array of length 2³² − 1
// fails at its first hole instead of filling memory.
export function readEach(list, convert) {
  const out = [];
  for (let i = 0, length = list.length; i < length; i++) out.push(convert(entry(list, i), i));
  return out;
}

function toFloat(x, where) {
  if (typeof x !== 'number') fail(`${where} is not a number (got ${x === HOLE ? HOLE_TEXT : describe(x)})`);
  if (Number.isFinite(x) && Math.abs(x) > FLOAT32_MAX) {
    fail(`${where} is ${x}, outside the float32 range (±3.4e38)`);
  }
  return x; // NaN and ±Infinity pass through: the core reports them with their position
}

// A Float32Array of `length`, or an Error in the caller's terms when memory runs out.
function floats(length, name) {
  try {
    return new Float32Array(length);
  } catch (cause) {
    throw new InputError(`${name} is too large to copy (${length} numbers): out of memory`, { cause });
  }
}

// The core's limits (limits()) and its own checks of sizes, for checking a size before anything
// is read or allocated: a size over a limit gets the core's verdict and message (validate.hpp),
// so neither the rule nor its words are repeated here.
export function sizeRules(core, limits) {
  const verdict = (raw) => { if (raw.error !== undefined) fail(raw.error); };
  return {
    limits,
    // A matrix name of rows×cols: refused by the core when over its limits.
    matrix(name, rows, cols) {
      if (rows > limits.maxRows || cols > limits.maxCols) verdict(core.checkShape({ name, rows, cols }));
    },
    // n queries × m keys: refused by the core when over limits.maxScoreEntries.
    scores(n, m) {
      if (n * m > limits.maxScoreEntries) verdict(core.checkScoreShape({ n, m }));
    },
    // A whole number a double must hold exactly: refused, in the core's words, over limits.maxExactCount.
    count(name, value) {
      if (value > limits.maxExactCount) fail(core.countTooLarge(`${name} ${value}`));
    },
  };
}

// A row or column count of a matrix: a whole number, checked before anything is allocated or
// narrowed (2³² + 3 rows must not become 3); sizeRules checks it against the core's limits.
function toDimension(value, field) {
  if (!Number.isSafeInteger(value) || value < 0) fail(`${field} must be a whole number ≥ 0 (got ${describe(value)})`);
  return value;
}

// number[][] (rows may be typed arrays) or { rows, cols, data } → { rows, cols, data: Float32Array }
export function toMatrix(value, name, sizes) {
  if (Array.isArray(value)) return rowsToMatrix(value, name, sizes);
  if (value !== null && typeof value === 'object' && 'data' in value) return flatToMatrix(value, name, sizes);
  fail(`${name} must be an array of rows or { rows, cols, data } (got ${describe(value)})`);
}

function rowsToMatrix(value, name, sizes) {
  const rows = toDimension(value.length, `${name}.length`);
  sizes.matrix(name, rows, 0); // before a single row is read
  // The shape first, so the copy below is allocated for rows that exist, within the limits.
  const lists = new Array(rows);
  let cols = 0;
  for (let i = 0; i < rows; i++) {
    const row = entry(value, i);
    const list = listOf(row, `${name} row ${i + 1}`) ??
      fail(`${name} row ${i + 1} is not an array (got ${row === HOLE ? HOLE_TEXT : describe(row)})`);
    const length = list.length;
    if (i === 0) {
      cols = toDimension(length, `${name} row 1's length`);
      sizes.matrix(name, rows, cols);
    } else if (length !== cols) {
      fail(`${name} row ${i + 1} has ${count(length, 'entry', 'entries')} but row 1 has ${cols}: every row needs the same length`);
    }
    lists[i] = list;
  }
  const data = floats(rows * cols, name);
  for (let i = 0; i < rows; i++) {
    const list = lists[i];
    for (let j = 0; j < cols; j++) data[i * cols + j] = toFloat(entry(list, j), `${name} row ${i + 1} column ${j + 1}`);
  }
  return { rows, cols, data };
}

function flatToMatrix(value, name, sizes) {
  const rows = toDimension(value.rows, `${name}.rows`);
  const cols = toDimension(value.cols, `${name}.cols`);
  sizes.matrix(name, rows, cols);
  const { data } = value;
  const list = listOf(data, `${name}.data`) ??
    fail(`${name}.data must be a Float32Array or an array of numbers (got ${describe(data)})`);
  if (list.length !== rows * cols) {
    fail(`${name}.data has ${count(list.length, 'value', 'values')} but ${name} is ${rows}×${cols}, which needs ${rows * cols}`);
  }
  if (typedArrayKind.call(list) === 'Float32Array') return { rows, cols, data: list };
  const copy = floats(list.length, name);
  for (let t = 0; t < list.length; t++) {
    copy[t] = toFloat(entry(list, t), `${name} row ${Math.floor(t / cols) + 1} column ${(t % cols) + 1}`);
  }
  return { rows, cols, data: copy };
}

export function toVector(value, name, sizes) {
  if (value === undefined || value === null) return undefined;
  const list = listOf(value, name) ?? fail(`${name} must be an array of numbers (got ${describe(value)})`);
  // A bias has d_model entries: one longer than any matrix row is refused before it is read.
  const { maxCols } = sizes.limits;
  if (list.length > maxCols) fail(`${name} has ${list.length} entries, more than d_model can be (at most ${maxCols})`);
  return Float32Array.from(readEach(list, (x, j) => toFloat(x, `${name} entry ${j + 1}`)));
}

// A whole number, exact in a double: the form of a count or a size whose range the core checks,
// in its own words (validate_range in src/validate.hpp).
export function toWhole(value, name) {
  if (!Number.isSafeInteger(value) || value < 0) fail(`${name} must be a whole number (got ${describe(value)})`);
  return value;
}

// A number, any value: the core checks the value, in its own words.
export function toNumber(value, name) {
  if (typeof value !== 'number') fail(`${name} must be a number (got ${describe(value)})`);
  return value;
}

// A string naming one of the core's choices, such as `example`: the core knows the names.
export function toChoice(value, name, example) {
  if (typeof value !== 'string') fail(`${name} must be a string such as '${example}' (got ${describe(value)})`);
  return value;
}

// A whole number ≥ min that a double holds exactly (up to limits().maxExactCount), so the core
// gets exactly the number given; one over it gets the core's message (sizeRules).
export function toCount(value, name, sizes, min = 1) {
  if (Number.isInteger(value)) sizes.count(name, value);
  if (!Number.isSafeInteger(value) || value < min) fail(`${name} must be a whole number ≥ ${min} (got ${describe(value)})`);
  return value;
}

export const toSeed = (value, sizes) => toCount(value, 'seed', sizes, 0);

export function toPositive(value, name) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(`${name} must be a finite number greater than 0 (got ${describe(value)})`);
  }
  return value;
}

// The scale option → { scaling, scale } for the core: 'sqrt' (the default, 1/√d_k), the pitfalls
// 'dk' (1/d_k) and 'none' (1), each computed by the core, which knows the names; or a fixed
// number (scale). A number is a float32 in the core: checked here against float32's range, so the
// message shows it as given (1e-50 would otherwise reach the core as 0, 1e39 as inf).
export function toScale(value) {
  if (value === undefined || value === null) return { scaling: 'sqrt', scale: NaN };
  if (typeof value === 'string') return { scaling: value, scale: NaN };
  toPositive(value, 'scale');
  toFloat(value, 'scale');
  if (Math.fround(value) === 0) {
    fail(`scale is ${value}, below float32's smallest positive number (1.4e-45): it would round to 0`);
  }
  return { scaling: 'sqrt', scale: value };
}

function toFlag(x, where) {
  if (x === true || x === 1) return 1;
  if (x === false || x === 0) return 0;
  fail(`${where} must be true (hidden) or false (visible) (got ${x === HOLE ? HOLE_TEXT : describe(x)})`);
}

const MASK_PARTS = ['causal', 'keys', 'hidden'];
const MASK_FORMS = "'none', 'causal', a boolean[][] grid or { causal?, keys?, hidden? }";

// The mask → the core's union of three parts: { maskCausal, maskKeys (m flags or none),
// maskHidden (n×m flags or none) }. Forms: 'none' | 'causal' | boolean[][] (the custom grid) |
// { causal?: boolean, keys?: flags (one per key), hidden?: boolean[][] }, any parts together.
// Flags may be true/false or 1/0, in arrays or typed arrays (a Uint8Array row, say). Checked
// here: the form, and each part's count of flags before its flags are read, so a list of 2^32
// flags fails at once instead of being copied for the core to refuse. The rules (which cells
// each part hides, and why) are the core's alone (src/mask.cpp).
export function toMask(mask, n, m, sizes) {
  const none = new Uint8Array(0);
  const union = (causal, keys = none, hidden = none) => ({ maskCausal: causal, maskKeys: keys, maskHidden: hidden });
  if (mask === undefined || mask === null || mask === 'none') return union(false);
  if (mask === 'causal') return union(true);
  if (Array.isArray(mask)) return union(false, none, gridToFlags(mask, 'mask', n, m, sizes));
  if (typeof mask !== 'object' || listOf(mask, 'mask') !== undefined) fail(`mask must be ${MASK_FORMS} (got ${describe(mask)})`);
  const given = Object.keys(mask);
  const unknown = given.find((key) => !MASK_PARTS.includes(key));
  if (unknown !== undefined) fail(`mask has no part ${describe(unknown)}: its parts are causal, keys and hidden`);
  if (given.length === 0) fail(`mask must be ${MASK_FORMS} (got an object with none of causal, keys, hidden)`);
  const causal = toBoolean(withDefault(mask.causal, false), 'mask.causal');
  return union(causal, toKeyFlags(mask.keys, m), mask.hidden === undefined ? none : toGrid(mask.hidden, n, m, sizes));
}

// mask.keys: one flag per key (true = that key is padding, hidden from every query).
function toKeyFlags(keys, m) {
  if (keys === undefined) return new Uint8Array(0);
  const list = listOf(keys, 'mask.keys') ??
    fail(`mask.keys must be an array of true/false flags, one per key (got ${describe(keys)})`);
  // The count first (the core checks it too, after the copy): a huge list fails here unread.
  if (list.length !== m) {
    fail(`mask.keys has ${count(list.length, 'flag', 'flags')} but K has ${count(m, 'row', 'rows')}: key padding needs one flag per key`);
  }
  return Uint8Array.from(readEach(list, (x, j) => toFlag(x, `mask.keys[${j}]`)));
}

function toGrid(hidden, n, m, sizes) {
  if (!Array.isArray(hidden)) fail(`mask.hidden must be an n×m grid of true/false flags (got ${describe(hidden)})`);
  return gridToFlags(hidden, 'mask.hidden', n, m, sizes);
}

function gridToFlags(mask, name, n, m, sizes) {
  if (mask.length !== n) {
    fail(`${name} has ${count(mask.length, 'row', 'rows')} but Q has ${n}: a custom mask needs one row per query`);
  }
  const lists = new Array(n);
  for (let i = 0; i < n; i++) {
    const row = entry(mask, i);
    const list = listOf(row, `${name} row ${i + 1}`) ??
      fail(`${name} row ${i + 1} must be an array of true/false flags (got ${row === HOLE ? HOLE_TEXT : describe(row)})`);
    if (list.length !== m) {
      fail(`${name} row ${i + 1} has ${count(list.length, 'entry', 'entries')} but K has ${count(m, 'row', 'rows')}: a custom mask needs one entry per key`);
    }
    lists[i] = list;
  }
  // One flag per score: a grid larger than the largest attention matrix is refused before it is allocated.
  sizes.scores(n, m);
  const hidden = new Uint8Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) hidden[i * m + j] = toFlag(entry(lists[i], j), `${name} row ${i + 1} column ${j + 1}`);
  }
  return hidden;
}
