// attention.js: the one JavaScript entry point to the attention-calc C++ core.
//
//   import { loadAttention } from './attention.js';
//   const attn = await loadAttention();          // SIMD build where WebAssembly SIMD validates
//   const r = attn.attention({ q, k, v, mask: 'causal' });
//   r.weights[0][1];                              // a plain number
//
// Every number comes from the C++ core (src/), compiled to WebAssembly; this module only
// converts between JS arrays and the core's row-major float32 matrices, checks that the input
// has the right form, and turns core errors into JS Errors. Types: attention.d.ts.
// Results are fresh JS arrays: nothing returned points into the wasm heap.

// Smallest module that uses a v128 instruction; WebAssembly.validate accepts it only where
// SIMD is supported (the bytes of wasm-feature-detect's simd() test).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

const FLOAT32_MAX = 3.4028234663852886e38;
const MAX_NORMAL_SIDE = 256;
const HEAD_KINDS = ['previous-token', 'first-token', 'same-token'];
const DEFAULT_SENTENCE = 'The cat sat on the mat because it was tired';
const IS_NODE = typeof process === 'object' && typeof process.versions?.node === 'string';

/** True when this engine validates WebAssembly SIMD (v128) code. */
export function wasmSimdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// One loaded instance per build and location, shared by every caller on the page.
const instances = new Map();

/**
 * Loads the core. Resolves to an Attention object; later calls share the same instance.
 * @param {{ simd?: boolean, baseUrl?: string | URL }} [options]
 *   simd: force the SIMD (true) or scalar (false) build; default: detect.
 *   baseUrl: folder holding attention-{simd,scalar}.{mjs,wasm}; default: ./wasm/ next to this file.
 */
export function loadAttention(options = {}) {
  const simd = options.simd ?? wasmSimdSupported();
  if (simd && !wasmSimdSupported()) {
    return Promise.reject(new Error('attention-calc: this browser does not support WebAssembly SIMD'));
  }
  const variant = simd ? 'simd' : 'scalar';
  const base = new URL(options.baseUrl ?? './wasm/', import.meta.url);
  const key = `${variant} ${base.href}`;
  if (!instances.has(key)) {
    const loading = instantiate(variant, base).then((module) => new Attention(module, simd));
    // A failed load is not cached, so a later call can try again.
    loading.catch(() => instances.delete(key));
    instances.set(key, loading);
  }
  return instances.get(key);
}

const WASM_MAGIC = [0, 97, 115, 109]; // "\0asm"

// Compiles from the bytes, so a server that labels .wasm with the wrong MIME type still works;
// a page that is not WebAssembly at all (an HTML error page, say) gets a clear message.
async function compileWasm(url) {
  let bytes, type = '';
  if (IS_NODE && url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    bytes = new Uint8Array(await readFile(url));
  } else {
    const response = await fetch(url, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
    type = response.headers.get('content-type') ?? '';
    bytes = new Uint8Array(await response.arrayBuffer());
  }
  if (!WASM_MAGIC.every((b, i) => bytes[i] === b)) {
    throw new Error(`the file is not WebAssembly${type ? ` (the server sent ${type.split(';')[0]})` : ''}`);
  }
  return WebAssembly.compile(bytes);
}

async function instantiate(variant, base) {
  const wasmUrl = new URL(`attention-${variant}.wasm`, base);
  let wasmModule, createModule;
  try {
    [wasmModule, { default: createModule }] = await Promise.all([
      compileWasm(wasmUrl),
      import(new URL(`attention-${variant}.mjs`, base).href),
    ]);
  } catch (cause) {
    throw new Error(`attention-calc: could not load ${wasmUrl.href}: ${cause.message}`, { cause });
  }
  // The module is compiled above, so Emscripten's own fetch (and its console messages on
  // failure) never runs: instantiateWasm hands it the ready module.
  let fail;
  const failed = new Promise((_, reject) => (fail = reject));
  const ready = createModule({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => receive(instance, wasmModule), fail);
      return {};
    },
  });
  return Promise.race([ready, failed]);
}

/** The loaded core. Create it with loadAttention(). */
class Attention {
  #core;
  #outputShape = ''; // the sizes the core's attentionOutput buffers were last prepared for
  #outputAt = null;  // their heap addresses

  constructor(core, simd) {
    this.#core = core;
    /** Whether the SIMD build is running. */
    this.simd = simd;
    /** Instruction set the kernels were compiled for: "wasm" (SIMD) or "scalar". */
    this.arch = core.arch();
  }

  /**
   * Scaled dot-product attention with every intermediate step.
   * See attention.d.ts for the options and the result.
   */
  attention({ q, k, v, mask = 'none', scale, maskAfterSoftmax = false } = {}) {
    const Q = toMatrix(q, 'Q');
    const K = toMatrix(k, 'K');
    const V = toMatrix(v, 'V');
    const m = toMask(mask, Q.rows, K.rows);
    const raw = unwrap(
      this.#core.attention({
        q: Q.data, qRows: Q.rows, qCols: Q.cols,
        k: K.data, kRows: K.rows, kCols: K.cols,
        v: V.data, vRows: V.rows, vCols: V.cols,
        maskKind: m.kind, maskHidden: m.hidden,
        scale: toScale(scale),
        maskAfterSoftmax: toBoolean(maskAfterSoftmax, 'maskAfterSoftmax'),
      }),
    );
    const result = attentionResult(raw, Q.rows, K.rows, V.cols);
    result.checks = {
      rowSums: Array.from(raw.checks.rowSums),
      rowSumsToOne: Array.from(raw.checks.rowSumsToOne, Boolean),
      outputInHull: Array.from(raw.checks.outputInHull, Boolean),
      hull: raw.checks.hull,
      hullExact: raw.checks.hullExact,
      float64MaxAbsDiff: raw.checks.float64MaxAbsDiff,
    };
    return result;
  }

  /**
   * Multi-head self-attention: Q = X·W_Q + b_Q (likewise K, V), heads as column slices,
   * output = Concat(heads)·W_O + b_O. See attention.d.ts.
   */
  multiHead({ x, wq, wk, wv, wo, bq, bk, bv, bo, heads = 1, mask = 'none' } = {}) {
    const X = toMatrix(x, 'X');
    const h = toCount(heads, 'heads');
    const m = toMask(mask, X.rows, X.rows);
    const weights = {};
    for (const [key, value, name] of [['wq', wq, 'W_Q'], ['wk', wk, 'W_K'], ['wv', wv, 'W_V'], ['wo', wo, 'W_O']]) {
      const W = toMatrix(value, name);
      Object.assign(weights, { [key]: W.data, [`${key}Rows`]: W.rows, [`${key}Cols`]: W.cols });
    }
    const raw = unwrap(
      this.#core.multiHead({
        x: X.data, n: X.rows, d: X.cols, ...weights,
        bq: toVector(bq, 'b_Q'), bk: toVector(bk, 'b_K'), bv: toVector(bv, 'b_V'), bo: toVector(bo, 'b_O'),
        heads: h, maskKind: m.kind, maskHidden: m.hidden,
      }),
    );
    const n = X.rows, d = X.cols, dk = d / h;
    const perHead = raw.heads.map((head) => attentionResult(head, n, n, dk));
    return {
      q: toRows(raw.q, n, d),
      k: toRows(raw.k, n, d),
      v: toRows(raw.v, n, d),
      headWeights: perHead.map((head) => head.weights),
      headOutputs: perHead.map((head) => head.output),
      heads: perHead,
      concat: toRows(raw.concat, n, d),
      output: toRows(raw.output, n, d),
    };
  }

  /**
   * Output-only attention for long inputs: q (n×d), k (m×d), v (m×dv) as row-major
   * Float32Arrays in, a new Float32Array of n×dv out. The streaming path (online softmax over
   * blocks of keys) keeps no n×m matrix, so it runs at lengths the explaining attention()
   * refuses, and skips the masked half when causal. The inputs are copied straight into buffers
   * the core keeps, so repeated calls allocate nothing.
   */
  attentionOutput({ q, k, v, n, m = n, d, dv = d, causal = false } = {}) {
    for (const [value, name] of [[n, 'n'], [m, 'm'], [d, 'd'], [dv, 'dv']]) toCount(value, name);
    const sizes = { q: n * d, k: m * d, v: m * dv };
    for (const [name, array] of [['q', q], ['k', k], ['v', v]]) {
      if (!(array instanceof Float32Array)) throw new Error(`${name} must be a Float32Array (got ${describe(array)})`);
      if (array.length !== sizes[name]) {
        throw new Error(`${name} has ${count(array.length, 'value', 'values')} but ${name === 'q' ? 'n×d' : name === 'k' ? 'm×d' : 'm×dv'} = ${sizes[name]}`);
      }
    }
    toBoolean(causal, 'causal');
    // The core's buffers only move when a new size makes them grow.
    const shape = `${n} ${m} ${d} ${dv}`;
    if (this.#outputShape !== shape) {
      this.#outputAt = unwrap(this.#core.prepareOutput(n, m, d, dv));
      this.#outputShape = shape;
    }
    const at = this.#outputAt;
    const heap = this.#core.HEAPF32; // read after prepareOutput: the heap may have grown
    heap.set(q, at.q / 4);
    heap.set(k, at.k / 4);
    heap.set(v, at.v / 4);
    if (!this.#core.runOutput(n, m, d, dv, causal)) throw new Error(this.#core.outputError());
    // A fresh view: the run may have grown the heap (its workspace), detaching the old one.
    return this.#core.HEAPF32.slice(at.out / 4, at.out / 4 + n * dv);
  }

  /** Weights of one multi-head attention layer: 4d² (+ 4d with biases), whatever the heads. */
  parameterCount({ dModel, heads = 1, bias = false } = {}) {
    return unwrap(
      this.#core.parameterCount(toCount(dModel, 'dModel'), toCount(heads, 'heads'), toBoolean(bias, 'bias')),
    ).value;
  }

  /**
   * FLOPs of each product and bytes of the attention matrices; m defaults to n. Also the
   * self-attention length where the attention products overtake the projections (crossoverN =
   * 2·dModel) and which side dominates at these sizes ('projections' on a tie).
   */
  cost({ n, m = n, dModel, heads = 1 } = {}) {
    const { projectionFlops, scoreFlops, valueFlops, outputFlops, attentionBytes, crossoverN, dominant } = unwrap(
      this.#core.cost(toCount(n, 'n'), toCount(m, 'm'), toCount(dModel, 'dModel'), toCount(heads, 'heads')),
    );
    return { projectionFlops, scoreFlops, valueFlops, outputFlops, attentionBytes, crossoverN, dominant };
  }

  /**
   * A rows×cols matrix of normal numbers with mean 0 and standard deviation `std`, from a seeded
   * generator in the core (xoshiro256**, polar method): the same numbers for a seed in every
   * browser and build. Entries are rounded to float32, as the core uses them.
   * @param {{ rows: number, cols: number, seed?: number, std?: number }} options
   *   rows, cols: 1 to 256; seed: a whole number ≥ 0 (default 0); std: finite, > 0 (default 1).
   * @returns {number[][]}
   */
  normalMatrix({ rows, cols, seed = 0, std = 1 } = {}) {
    toRange(rows, 'rows', 1, MAX_NORMAL_SIDE);
    toRange(cols, 'cols', 1, MAX_NORMAL_SIDE);
    const raw = unwrap(this.#core.normalMatrix({ rows, cols, seed: toSeed(seed), std: toPositive(std, 'std') }));
    return toRows(raw.data, rows, cols);
  }

  /**
   * Entropy in nats of a probability vector, −Σ p ln p with 0·ln 0 = 0: 0 for one-hot, ln(n) for
   * uniform. The entries must be ≥ 0 and sum to 1 within 1e-5 (a row of attention weights does).
   * @param {ArrayLike<number>} weights
   * @returns {number}
   */
  entropy(weights) {
    if (!Array.isArray(weights) && !ArrayBuffer.isView(weights)) {
      throw new Error(`weights must be an array of numbers (got ${describe(weights)})`);
    }
    if (weights.length === 0) throw new Error('weights must have at least one entry');
    const p = Float64Array.from(weights, (x, j) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`weights entry ${j + 1} is not a finite number (got ${describe(x)})`);
      return x;
    });
    return unwrap(this.#core.entropy({ weights: p })).value;
  }

  /**
   * The lesson's √d_k experiment, sampled in the core: `pairs` pairs of standard-normal vectors
   * q, k of length dk, their dot products s = q·k before and after dividing by √dk (mean,
   * population std, histogram over ±4·√dk and ±4), and the softmax of the first `row` of them with
   * and without the scaling, with entropies in nats. See attention.d.ts for the result.
   * @param {{ dk: number, pairs?: number, seed?: number, bins?: number, row?: number }} options
   *   dk 1–1024; pairs 1–100000 (default 10000, at least `row`); seed ≥ 0 (default 0);
   *   bins 1–200 (default 40); row 2–256 (default 64).
   */
  scalingExperiment({ dk, pairs = 10000, seed = 0, bins = 40, row = 64 } = {}) {
    const options = {
      dk: toRange(dk, 'dk', 1, 1024),
      pairs: toRange(pairs, 'pairs', 1, 100000),
      seed: toSeed(seed),
      bins: toRange(bins, 'bins', 1, 200),
      row: toRange(row, 'row', 2, 256),
    };
    if (pairs < row) throw new Error(`row needs ${row} scores but pairs is ${pairs}: take at least as many pairs as the row has scores`);
    const raw = unwrap(this.#core.scalingExperiment(options));
    const sample = ({ mean, std, histogram: h }) => ({
      mean, std,
      histogram: { lo: h.lo, hi: h.hi, counts: Array.from(h.counts), below: h.below, above: h.above },
    });
    const softmaxRow = ({ weights, entropy }) => ({ weights: Array.from(weights), entropy });
    return {
      dk: options.dk, pairs: options.pairs, seed: options.seed,
      expectedStd: raw.expectedStd,
      unscaled: sample(raw.unscaled),
      scaled: sample(raw.scaled),
      softmax: {
        scores: Array.from(raw.softmax.scores),
        unscaled: softmaxRow(raw.softmax.unscaled),
        scaled: softmaxRow(raw.softmax.scaled),
        maxEntropy: raw.softmax.maxEntropy,
      },
    };
  }

  /**
   * "Construct a head": the sentence's tokens as features (one-hot position, then one-hot
   * lower-cased token), and constructed (not learned) W_Q, W_K for a previous-token,
   * first-token ("attention sink") or same-token head, to use with a causal mask.
   * @param {{ kind: 'previous-token' | 'first-token' | 'same-token', sentence?: string }} options
   *   sentence: split on whitespace, 1 to 16 tokens; default "The cat sat on the mat because it was tired".
   */
  constructedHead({ kind, sentence = DEFAULT_SENTENCE } = {}) {
    if (!HEAD_KINDS.includes(kind)) {
      throw new Error(`kind must be 'previous-token', 'first-token' or 'same-token' (got ${describe(kind)})`);
    }
    if (typeof sentence !== 'string') throw new Error(`sentence must be a string (got ${describe(sentence)})`);
    const raw = unwrap(this.#core.constructedHead({ kind, sentence }));
    const { n, d } = raw;
    return {
      tokens: raw.tokens,
      features: raw.features,
      x: toRows(raw.x, n, d),
      wq: toRows(raw.wq, d, d),
      wk: toRows(raw.wk, d, d),
      strength: raw.strength,
      expected: raw.expected,
    };
  }

  /**
   * Times the explaining attention path (every n×n matrix materialised) in the core on seeded
   * random n×d inputs, with the monotonic clock behind steady_clock (performance.now() in a
   * browser). seconds is per call: the fastest of `repeats` runs, each run as many back-to-back
   * calls (iterations) as last ≥ 1 ms, so a coarse browser clock still gives a positive time. attentionBytes: one n×n float32 matrix, 4·n².
   * Blocks the thread while it runs; call it from a Worker or between frames.
   * @param {{ n: number, d?: number, repeats?: number, seed?: number }} options
   *   n 1–2048; d 1–4096 (default 64); repeats 1–1000 (default 1); seed ≥ 0 (default 0).
   * @returns {{ seconds: number, attentionBytes: number, iterations: number }}
   */
  timeAttention({ n, d = 64, repeats = 1, seed = 0 } = {}) {
    const { seconds, attentionBytes, iterations } = unwrap(this.#core.timeAttention({
      n: toRange(n, 'n', 1, 2048),
      d: toRange(d, 'd', 1, 4096),
      repeats: toRange(repeats, 'repeats', 1, 1000),
      seed: toSeed(seed),
    }));
    return { seconds, attentionBytes, iterations };
  }

  /**
   * Corners of the convex hull of 2-D points, as indices, counter-clockwise. Collinear points
   * give the two ends, equal points one index.
   */
  convexHull(points) {
    const P = toMatrix(points, 'points');
    return unwrap(this.#core.convexHull({ points: P.data, m: P.rows, cols: P.cols })).hull;
  }

  /**
   * Fits y ≈ c·x^k by least squares on log-log axes: { exponent: k, coefficient: c }. Needs two
   * or more points with different x, every value finite and > 0.
   */
  fitPowerLaw({ x, y } = {}) {
    const numbers = (value, name) => {
      if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new Error(`${name} must be an array of numbers (got ${describe(value)})`);
      return Float64Array.from(value, (t, i) => {
        if (typeof t !== 'number') throw new Error(`${name}[${i}] must be a number (got ${describe(t)})`);
        return t;
      });
    };
    const { exponent, coefficient } = unwrap(this.#core.fitPowerLaw({ x: numbers(x, 'x'), y: numbers(y, 'y') }));
    return { exponent, coefficient };
  }

  /**
   * For benchmarks: runs `iterations` rounds of independent vector mul+add updates and
   * returns the FLOPs done (time it to get this build's peak GFLOP/s).
   */
  peakMulAdd(iterations) {
    this.#core.peakMulAdd(toCount(iterations, 'iterations'));
    return iterations * this.#core.peakChains() * this.#core.lanes() * 2;
  }

  /** Bytes currently allocated in the wasm heap (a diagnostic: it stays flat across calls). */
  heapBytesInUse() {
    return this.#core.heapBytesInUse();
  }
}

function unwrap(raw) {
  if (raw.error !== undefined) throw new Error(raw.error);
  return raw;
}

function attentionResult(raw, n, m, dv) {
  const fullyMasked = Array.from(raw.fullyMasked, Boolean);
  return {
    scale: raw.scale,
    scores: toRows(raw.scores, n, m),
    scaledBeforeMask: toRows(raw.scaled, n, m),
    scaled: toRows(raw.masked, n, m),
    rowMax: Array.from(raw.rowMax),
    exp: toRows(raw.exp, n, m),
    rowSum: Array.from(raw.rowSum),
    weights: toRows(raw.weights, n, m),
    output: toRows(raw.output, n, dv),
    hidden: toRows(raw.hidden, n, m).map((row) => row.map(Boolean)),
    fullyMasked,
  };
}

function toRows(flat, rows, cols) {
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = Array.from(flat.subarray(i * cols, (i + 1) * cols));
  return out;
}

// --- input conversion: the form of the input, not its math (the core checks sizes and values)

// "1 row", "3 rows"
const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value);
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : String(value);
}

function toFloat(x, where) {
  if (typeof x !== 'number') throw new Error(`${where} is not a number (got ${describe(x)})`);
  if (Number.isFinite(x) && Math.abs(x) > FLOAT32_MAX) {
    throw new Error(`${where} is ${x}, outside the float32 range (±3.4e38)`);
  }
  return x; // NaN and ±Infinity pass through: the core reports them with their position
}

// number[][] or { rows, cols, data } → { rows, cols, data: Float32Array }
function toMatrix(value, name) {
  if (Array.isArray(value)) {
    const rows = value.length;
    const cols = rows && Array.isArray(value[0]) ? value[0].length : 0;
    const data = new Float32Array(rows * cols);
    value.forEach((row, i) => {
      if (!Array.isArray(row)) throw new Error(`${name} row ${i + 1} is not an array (got ${describe(row)})`);
      if (row.length !== cols) {
        throw new Error(`${name} row ${i + 1} has ${count(row.length, 'entry', 'entries')} but row 1 has ${cols}: every row needs the same length`);
      }
      row.forEach((x, j) => (data[i * cols + j] = toFloat(x, `${name} row ${i + 1} column ${j + 1}`)));
    });
    return { rows, cols, data };
  }
  if (value && typeof value === 'object' && 'data' in value) {
    const rows = toSize(value.rows, `${name}.rows`);
    const cols = toSize(value.cols, `${name}.cols`);
    const { data } = value;
    if (!(data instanceof Float32Array) && !Array.isArray(data) && !ArrayBuffer.isView(data)) {
      throw new Error(`${name}.data must be a Float32Array or an array of numbers (got ${describe(data)})`);
    }
    if (data.length !== rows * cols) {
      throw new Error(`${name}.data has ${count(data.length, 'value', 'values')} but ${name} is ${rows}×${cols}, which needs ${rows * cols}`);
    }
    if (data instanceof Float32Array) return { rows, cols, data };
    const copy = new Float32Array(data.length);
    for (let t = 0; t < data.length; t++) {
      copy[t] = toFloat(data[t], `${name} row ${Math.floor(t / cols) + 1} column ${(t % cols) + 1}`);
    }
    return { rows, cols, data: copy };
  }
  throw new Error(`${name} must be an array of rows or { rows, cols, data } (got ${describe(value)})`);
}

function toVector(value, name) {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    throw new Error(`${name} must be an array of numbers (got ${describe(value)})`);
  }
  return Float32Array.from(value, (x, j) => toFloat(x, `${name} entry ${j + 1}`));
}

function toSize(value, name) {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number ≥ 0 (got ${describe(value)})`);
  return value;
}

function toCount(value, name) {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1 (got ${describe(value)})`);
  return value;
}

function toRange(value, name, lo, hi) {
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new Error(`${name} must be a whole number from ${lo} to ${hi} (got ${describe(value)})`);
  }
  return value;
}

function toSeed(value) {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`seed must be a whole number ≥ 0 (got ${describe(value)})`);
  return value;
}

function toPositive(value, name) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a finite number greater than 0 (got ${describe(value)})`);
  }
  return value;
}

function toBoolean(value, name) {
  if (typeof value !== 'boolean') throw new Error(`${name} must be true or false (got ${describe(value)})`);
  return value;
}

function toScale(value) {
  if (value === undefined || value === null) return NaN; // the core's default, 1/√d_k
  return toPositive(value, 'scale');
}

function toFlag(x, where) {
  if (x === true || x === 1) return 1;
  if (x === false || x === 0) return 0;
  throw new Error(`${where} must be true (hidden) or false (visible) (got ${describe(x)})`);
}

// 'none' | 'causal' | { keys: boolean[] } | boolean[][]  →  { kind, hidden: Uint8Array }
function toMask(mask, n, m) {
  const none = new Uint8Array(0);
  if (mask === undefined || mask === null || mask === 'none') return { kind: 'none', hidden: none };
  if (mask === 'causal') return { kind: 'causal', hidden: none };
  if (Array.isArray(mask)) {
    if (mask.length !== n) {
      throw new Error(`mask has ${count(mask.length, 'row', 'rows')} but Q has ${n}: a custom mask needs one row per query`);
    }
    const hidden = new Uint8Array(n * m);
    mask.forEach((row, i) => {
      if (!Array.isArray(row) || row.length !== m) {
        const got = Array.isArray(row) ? count(row.length, 'entry', 'entries') : 'no entries';
        throw new Error(`mask row ${i + 1} has ${got} but K has ${count(m, 'row', 'rows')}: a custom mask needs one entry per key`);
      }
      row.forEach((x, j) => (hidden[i * m + j] = toFlag(x, `mask row ${i + 1} column ${j + 1}`)));
    });
    return { kind: 'custom', hidden };
  }
  if (mask && typeof mask === 'object' && Array.isArray(mask.keys)) {
    return { kind: 'key_padding', hidden: Uint8Array.from(mask.keys, (x, j) => toFlag(x, `mask.keys[${j}]`)) };
  }
  throw new Error(`mask must be 'none', 'causal', { keys: boolean[] } or a boolean[][] grid (got ${describe(mask)})`);
}
