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

import { InputError, argument, count, describe, fail, optionsOf, toBoolean, typedArrayKind, unwrap, withDefault } from './api/arguments.js';
import { fetchBytes, instantiate } from './api/modules.js';
import { fileUrl } from './assets.js';

// Smallest module that uses a v128 instruction; WebAssembly.validate accepts it only where
// SIMD is supported (the bytes of wasm-feature-detect's simd() test).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

const FLOAT32_MAX = 3.4028234663852886e38;
const HEAD_KINDS = ['previous-token', 'first-token', 'same-token'];

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
 * @param {{ simd?: boolean, baseUrl?: string | URL, labs?: boolean }} [options]
 *   simd: force the SIMD (true) or scalar (false) build; default: detect.
 *   baseUrl: folder holding the modules' {attention,calculator,learned,gpt2}-{simd,scalar}.{mjs,wasm}
 *     (dist/wasm/ of a copy of the package, e.g. on a CDN), relative to this file unless absolute;
 *     default: the files a site's bundler copied (web/assets.js), or ./wasm/ beside this file.
 *   labs: false loads the calculator's module alone (calculator-{simd,scalar}: attention, masks,
 *     checks, convexHull, cost, limits), half the bytes, for a page that shows no lab; the labs'
 *     methods then throw. Where the full core is loaded or loading already, that one is returned.
 */
export function loadAttention(options) {
  let simd, base, labs;
  try {
    const o = optionsOf(options, 'loadAttention', '{ simd: false }');
    simd = argument('simd', () => toBoolean(o.simd ?? wasmSimdSupported(), 'simd'));
    base = o.baseUrl === undefined ? null : argument('baseUrl', () => toBaseUrl(o.baseUrl));
    labs = argument('labs', () => toBoolean(o.labs ?? true, 'labs'));
  } catch (error) {
    return Promise.reject(error);
  }
  if (simd && !wasmSimdSupported()) {
    return Promise.reject(new Error('attention-calc: this browser does not support WebAssembly SIMD'));
  }
  const variant = simd ? 'simd' : 'scalar';
  const full = `${variant} ${base?.href ?? 'bundled'}`;
  const key = labs || instances.has(full) ? full : `${full} calculator`;
  if (!instances.has(key)) {
    const loading = instantiate(labs ? 'attention' : 'calculator', variant, base).then((module) => new Attention(module, simd, variant, base));
    // A failed load is not cached, so a later call can try again.
    loading.catch(() => instances.delete(key));
    instances.set(key, loading);
  }
  return instances.get(key);
}

// This file's URL, as a value: new URL(value, import.meta.url) with a computed value makes a
// site's bundler warn (webpack: "Critical dependency: the request of a dependency is an expression").
const HERE = import.meta.url;

// A file's URL, relative to this file unless absolute.
function toUrl(value, name) {
  if (typeof value !== 'string' && !(value instanceof URL)) fail(`${name} must be a string or a URL (got ${describe(value)})`);
  try {
    return new URL(value, HERE);
  } catch {
    fail(`${name} is not a valid URL (got ${describe(String(value))})`);
  }
}

// The folder of the modules, relative to this file unless absolute.
const toBaseUrl = (value) => toUrl(value, 'baseUrl');

// The full module's functions the calculator's module leaves out (bindings/labs.cpp).
const LAB_FUNCTIONS = ['multiHead', 'parameterCount', 'fitPowerLaw', 'normalMatrix', 'entropy', 'scalingExperiment',
  'scalingRowStudy', 'constructedHead', 'timeAttention', 'prepareOutput', 'runOutput', 'outputError', 'peakMulAdd',
  'lanes', 'peakChains'];

/** The loaded core. Create it with loadAttention(). */
class Attention {
  #core;
  #limits;           // the core's documented limits (limits())
  #sizes;            // those limits with the core's own checks of sizes (see sizeRules)
  #hiddenBy;         // MaskReason bits → the names of the rules they stand for (see reasonNames)
  #outputShape = ''; // the sizes the core's attentionOutput buffers were last prepared for
  #outputAt = null;  // their heap addresses
  #variant;         // 'simd' or 'scalar'
  #base;            // the folder of the modules
  #learnedLoading = null; // Promise of the learned heads' module, once asked for
  #learnedCore = null;    // that module, once loaded
  #learned = new Map();   // checkpoint URL → Promise<LearnedModel>
  #gpt2Loading = null;    // Promise of GPT-2's module with its tokenizer, once asked for

  constructor(core, simd, variant, base) {
    // The calculator's module has no lab functions: each says where it is instead.
    for (const name of LAB_FUNCTIONS) {
      core[name] ??= () => fail(`${name} is in the labs' part of the core, which this page did not load: use loadAttention() without labs: false`);
    }
    this.#core = core;
    this.#variant = variant;
    this.#base = base;
    this.#limits = Object.freeze({ ...core.limits() });
    this.#sizes = sizeRules(core, this.#limits);
    this.#hiddenBy = reasonNames(core.maskReasonBits());
    /** Whether the SIMD build is running. */
    this.simd = simd;
    /** Instruction set the kernels were compiled for: "wasm" (SIMD) or "scalar". */
    this.arch = core.arch();
  }

  /** The core's size limits, the ranges every integer argument is checked against. See attention.d.ts. */
  limits() {
    return this.#limits;
  }

  /**
   * Scaled dot-product attention with every intermediate step.
   * See attention.d.ts for the options and the result.
   */
  attention(options) {
    const o = optionsOf(options, 'attention', '{ q, k, v }');
    const S = this.#sizes;
    const Q = argument('Q', () => toMatrix(o.q, 'Q', S));
    const K = argument('K', () => toMatrix(o.k, 'K', S));
    const V = argument('V', () => toMatrix(o.v, 'V', S));
    const mask = argument('mask', () => toMask(o.mask, Q.rows, K.rows, S));
    const { scaling, scale } = argument('scale', () => toScale(o.scale));
    const maskAfterSoftmax = argument('maskAfterSoftmax', () => toBoolean(withDefault(o.maskAfterSoftmax, false), 'maskAfterSoftmax'));
    // The plot's two columns of V (y null: one coordinate), so its hull comes with this call.
    const hull = o.hullAxes === undefined ? {} : argument('hullAxes', () => {
      if (!Array.isArray(o.hullAxes) || o.hullAxes.length !== 2) fail(`hullAxes must be [x, y] or [x, null], two columns of V (got ${describe(o.hullAxes)})`);
      const [x, y] = o.hullAxes;
      return { hullX: toRange(x, 'hullAxes[0]', 0, V.cols - 1), hullY: y === null ? -1 : toRange(y, 'hullAxes[1]', 0, V.cols - 1) };
    });
    const raw = unwrap(
      this.#core.attention({
        q: Q.data, qRows: Q.rows, qCols: Q.cols,
        k: K.data, kRows: K.rows, kCols: K.cols,
        v: V.data, vRows: V.rows, vCols: V.cols,
        ...mask, scaling, scale, maskAfterSoftmax, ...hull,
      }),
    );
    const result = attentionResult(raw, Q.rows, K.rows, V.cols, this.#hiddenBy);
    result.checks = {
      rowSums: Array.from(raw.checks.rowSums),
      rowSumsToOne: Array.from(raw.checks.rowSumsToOne, Boolean),
      outputInHull: Array.from(raw.checks.outputInHull, Boolean),
      hull: raw.checks.hull,
      hullExact: raw.checks.hullExact,
      float64MaxAbsDiff: raw.checks.float64MaxAbsDiff,
      verified: raw.checks.verified,
      verifiedTolerance: raw.checks.verifiedTolerance,
      valueScale: raw.checks.valueScale,
    };
    if (raw.checks.plotHull) result.checks.plotHull = raw.checks.plotHull;
    return result;
  }

  /**
   * Multi-head self-attention: Q = X·W_Q + b_Q (likewise K, V), heads as column slices,
   * output = Concat(heads)·W_O + b_O. See attention.d.ts.
   */
  multiHead(options) {
    const o = optionsOf(options, 'multiHead', '{ x, wq, wk, wv, wo }');
    const S = this.#sizes;
    const X = argument('X', () => toMatrix(o.x, 'X', S));
    const h = argument('heads', () => toRange(withDefault(o.heads, 1), 'heads', 1, S.limits.maxHeads));
    const mask = argument('mask', () => toMask(o.mask, X.rows, X.rows, S));
    const weights = {};
    for (const [key, name] of [['wq', 'W_Q'], ['wk', 'W_K'], ['wv', 'W_V'], ['wo', 'W_O']]) {
      const W = argument(name, () => toMatrix(o[key], name, S));
      Object.assign(weights, { [key]: W.data, [`${key}Rows`]: W.rows, [`${key}Cols`]: W.cols });
    }
    const biases = {};
    for (const [key, name] of [['bq', 'b_Q'], ['bk', 'b_K'], ['bv', 'b_V'], ['bo', 'b_O']]) {
      biases[key] = argument(name, () => toVector(o[key], name, S));
    }
    const raw = unwrap(
      this.#core.multiHead({
        x: X.data, n: X.rows, d: X.cols, ...weights, ...biases,
        heads: h, ...mask,
      }),
    );
    const n = X.rows, d = X.cols, dk = d / h;
    const perHead = raw.heads.map((head) => attentionResult(head, n, n, dk, this.#hiddenBy));
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
   * Why each of n×m cells is hidden by `mask` (any form attention() takes), computed by the core
   * from the mask alone: hiddenBy[i][j] lists 'causal', 'padding', 'custom' (those that hide key j
   * from query i, in that order; [] when visible), as attention()'s result.hiddenBy does.
   * m defaults to n.
   */
  maskReasons(options) {
    const o = optionsOf(options, 'maskReasons', "{ mask: 'causal', n: 3 }");
    const S = this.#sizes;
    const n = argument('n', () => toRange(o.n, 'n', 1, S.limits.maxRows));
    const m = argument('m', () => toRange(withDefault(o.m, n), 'm', 1, S.limits.maxRows));
    argument('n', () => S.scores(n, m));
    const mask = argument('mask', () => toMask(o.mask, n, m, S));
    const raw = unwrap(this.#core.maskReasons({ n, m, ...mask }));
    return toRows(raw.hidden, n, m).map((row) => row.map((bits) => this.#hiddenBy[bits]));
  }

  /**
   * Output-only attention for long inputs: q (n×d), k (m×d), v (m×dv) as row-major
   * Float32Arrays in, a new Float32Array of n×dv out. The streaming path (online softmax over
   * blocks of keys) keeps no n×m matrix, so it runs at lengths the explaining attention()
   * refuses, and skips the masked half when causal. The inputs are copied straight into buffers
   * the core keeps, so repeated calls allocate nothing.
   */
  attentionOutput(options) {
    const o = optionsOf(options, 'attentionOutput', '{ q, k, v, n, d }');
    const L = this.#limits;
    const n = argument('n', () => toRange(o.n, 'n', 1, L.maxRows));
    const m = argument('m', () => toRange(withDefault(o.m, n), 'm', 1, L.maxRows));
    const d = argument('d', () => toRange(o.d, 'd', 1, L.maxCols));
    const dv = argument('dv', () => toRange(withDefault(o.dv, d), 'dv', 1, L.maxCols));
    const sizes = { q: [n * d, 'n×d'], k: [m * d, 'm×d'], v: [m * dv, 'm×dv'] };
    const arrays = {};
    for (const name of ['q', 'k', 'v']) {
      arrays[name] = argument(name, () => {
        const array = o[name];
        if (typedArrayKind.call(array) !== 'Float32Array') fail(`${name} must be a Float32Array (got ${describe(array)})`);
        const [size, product] = sizes[name];
        if (array.length !== size) fail(`${name} has ${count(array.length, 'value', 'values')} but ${product} = ${size}`);
        return array;
      });
    }
    const causal = argument('causal', () => toBoolean(withDefault(o.causal, false), 'causal'));
    // The core's buffers only move when a new size makes them grow.
    const shape = `${n} ${m} ${d} ${dv}`;
    if (this.#outputShape !== shape) {
      // Forgotten first: a prepare that fails halfway may already have moved some buffers.
      this.#outputShape = '';
      this.#outputAt = unwrap(this.#core.prepareOutput(n, m, d, dv));
      this.#outputShape = shape;
    }
    const at = this.#outputAt;
    const heap = this.#core.HEAPF32; // read after prepareOutput: the heap may have grown
    heap.set(arrays.q, at.q / 4);
    heap.set(arrays.k, at.k / 4);
    heap.set(arrays.v, at.v / 4);
    if (!this.#core.runOutput(n, m, d, dv, causal)) throw new Error(this.#core.outputError());
    // A fresh view: the run may have grown the heap (its workspace), detaching the old one.
    return this.#core.HEAPF32.slice(at.out / 4, at.out / 4 + n * dv);
  }

  /**
   * Weights of one multi-head attention layer: 4d² (+ 4d with biases), whatever the heads.
   * A count above 2⁵³ − 1 is refused: a JS number could not hold it exactly.
   */
  parameterCount(options) {
    const o = optionsOf(options, 'parameterCount', '{ dModel }');
    const dModel = argument('dModel', () => toCount(o.dModel, 'dModel', this.#sizes));
    const heads = argument('heads', () => toRange(withDefault(o.heads, 1), 'heads', 1, this.#limits.maxHeads));
    const bias = argument('bias', () => toBoolean(withDefault(o.bias, false), 'bias'));
    return unwrap(this.#core.parameterCount(dModel, heads, bias)).value;
  }

  /**
   * FLOPs of each product and bytes of the attention matrices; m defaults to n. Also the
   * self-attention length where the attention products overtake the projections (crossoverN =
   * 2·dModel) and which side dominates at these sizes ('projections' on a tie). A count above
   * 2⁵³ − 1 is refused: a JS number could not hold it exactly.
   */
  cost(options) {
    const o = optionsOf(options, 'cost', '{ n, dModel }');
    const n = argument('n', () => toCount(o.n, 'n', this.#sizes));
    const m = argument('m', () => toCount(withDefault(o.m, n), 'm', this.#sizes));
    const dModel = argument('dModel', () => toCount(o.dModel, 'dModel', this.#sizes));
    const heads = argument('heads', () => toRange(withDefault(o.heads, 1), 'heads', 1, this.#limits.maxHeads));
    const { projectionFlops, scoreFlops, valueFlops, outputFlops, attentionBytes, crossoverN, dominant } = unwrap(
      this.#core.cost(n, m, dModel, heads),
    );
    return { projectionFlops, scoreFlops, valueFlops, outputFlops, attentionBytes, crossoverN, dominant };
  }

  /**
   * A rows×cols matrix of normal numbers with mean 0 and standard deviation `std`, from a seeded
   * generator in the core (xoshiro256**, polar method): the same numbers for a seed in every
   * browser and build. Entries are rounded to float32, as the core uses them.
   * @param {{ rows: number, cols: number, seed?: number, std?: number }} options
   *   rows, cols: 1 to limits().maxNormalSide; seed: a whole number ≥ 0 (default 0); std: finite, > 0 (default 1).
   * @returns {number[][]}
   */
  normalMatrix(options) {
    const o = optionsOf(options, 'normalMatrix', '{ rows, cols }');
    const L = this.#limits;
    const rows = argument('rows', () => toRange(o.rows, 'rows', 1, L.maxNormalSide));
    const cols = argument('cols', () => toRange(o.cols, 'cols', 1, L.maxNormalSide));
    const seed = argument('seed', () => toSeed(withDefault(o.seed, 0), this.#sizes));
    const std = argument('std', () => toPositive(withDefault(o.std, 1), 'std'));
    const raw = unwrap(this.#core.normalMatrix({ rows, cols, seed, std }));
    return toRows(raw.data, rows, cols);
  }

  /**
   * Entropy in nats of a probability vector, −Σ p ln p with 0·ln 0 = 0: 0 for one-hot, ln(n) for
   * uniform. The entries must be ≥ 0 and sum to 1 within 1e-5 (a row of attention weights does).
   * @param {ArrayLike<number>} weights
   * @returns {number}
   */
  entropy(weights) {
    const p = argument('weights', () => {
      const list = listOf(weights, 'weights') ?? fail(`weights must be an array of numbers (got ${describe(weights)})`);
      const values = readEach(list, (x, j) => {
        const where = `weights entry ${j + 1}`;
        if (x === HOLE) fail(`${where} is not a finite number (got ${HOLE_TEXT})`);
        if (typeof x !== 'number' || !Number.isFinite(x)) fail(`${where} is not a finite number (got ${describe(x)})`);
        return x;
      });
      if (values.length === 0) fail('weights must have at least one entry');
      return Float64Array.from(values);
    });
    return unwrap(this.#core.entropy({ weights: p })).value;
  }

  /**
   * The lesson's √d_k experiment, sampled in the core: `pairs` pairs of standard-normal vectors
   * q, k of length dk, their dot products s = q·k before and after dividing by √dk (mean,
   * population std, histogram over ±4·√dk and ±4), and the softmax of the first `row` of them with
   * and without the scaling, with entropies in nats. See attention.d.ts for the result.
   * @param {{ dk: number, pairs?: number, seed?: number, bins?: number, row?: number }} options
   *   dk 1 to limits().maxScalingDk; pairs 1 to maxScalingPairs (default 10000, at least `row`);
   *   seed ≥ 0 (default 0); bins 1 to maxScalingBins (default 40); row 2 to maxScalingRow (default 64).
   */
  scalingExperiment(options) {
    const o = optionsOf(options, 'scalingExperiment', '{ dk }');
    const L = this.#limits;
    const args = {
      dk: argument('dk', () => toRange(o.dk, 'dk', 1, L.maxScalingDk)),
      pairs: argument('pairs', () => toRange(withDefault(o.pairs, 10000), 'pairs', 1, L.maxScalingPairs)),
      seed: argument('seed', () => toSeed(withDefault(o.seed, 0), this.#sizes)),
      bins: argument('bins', () => toRange(withDefault(o.bins, 40), 'bins', 1, L.maxScalingBins)),
      row: argument('row', () => toRange(withDefault(o.row, 64), 'row', 2, L.maxScalingRow)),
    };
    const raw = unwrap(this.#core.scalingExperiment(args));
    const sample = ({ mean, std, histogram: h }) => ({
      mean, std,
      histogram: { lo: h.lo, hi: h.hi, counts: Array.from(h.counts), below: h.below, above: h.above },
    });
    const softmaxRow = ({ weights, entropy }) => ({ weights: Array.from(weights), entropy });
    return {
      dk: args.dk, pairs: args.pairs, seed: args.seed,
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
   * The √d_k lab's *why*, over many rows: `rows` rows of `row` scores s = q·k (q, k of length dk,
   * standard normal), each through the softmax unscaled and divided by √dk; per row the size of
   * the softmax's Jacobian ‖∂softmax/∂s‖_F and the entropy, summarised by quartiles and mean, and
   * for the gradient the share of rows below `threshold`. See attention.d.ts for the result.
   * @param {{ dk: number, rows?: number, row?: number, seed?: number, threshold?: number }} options
   *   dk 1 to limits().maxScalingDk; rows 1 to maxScalingRows (default 2000); row 2 to
   *   maxScalingRow (default 64); seed ≥ 0 (default 0); threshold > 0 (default 0.01).
   */
  scalingRowStudy(options) {
    const o = optionsOf(options, 'scalingRowStudy', '{ dk }');
    const L = this.#limits;
    const args = {
      dk: argument('dk', () => toRange(o.dk, 'dk', 1, L.maxScalingDk)),
      rows: argument('rows', () => toRange(withDefault(o.rows, 2000), 'rows', 1, L.maxScalingRows)),
      row: argument('row', () => toRange(withDefault(o.row, 64), 'row', 2, L.maxScalingRow)),
      seed: argument('seed', () => toSeed(withDefault(o.seed, 0), this.#sizes)),
      threshold: argument('threshold', () => toPositive(withDefault(o.threshold, 0.01), 'threshold')),
    };
    const raw = unwrap(this.#core.scalingRowStudy(args));
    const measure = ({ q1, median, q3, mean, shareBelow }) => (shareBelow === undefined ? { q1, median, q3, mean } : { q1, median, q3, mean, shareBelow });
    return {
      ...args,
      gradient: { unscaled: measure(raw.gradient.unscaled), scaled: measure(raw.gradient.scaled), uniform: raw.gradient.uniform },
      entropy: { unscaled: measure(raw.entropy.unscaled), scaled: measure(raw.entropy.scaled), max: raw.entropy.max },
    };
  }

  /**
   * "Construct a head": the sentence's tokens as features (one-hot position, then one-hot
   * lower-cased token), and constructed (not learned) W_Q, W_K for a previous-token,
   * first-token ("attention sink") or same-token head, to use with a causal mask.
   * @param {{ kind: 'previous-token' | 'first-token' | 'same-token', sentence?: string }} options
   *   sentence: split on whitespace, 1 to limits().maxConstructTokens tokens; default "The cat sat on the mat because it was tired".
   */
  constructedHead(options) {
    const o = optionsOf(options, 'constructedHead', "{ kind: 'previous-token' }");
    const kind = argument('kind', () => {
      const value = o.kind;
      if (!HEAD_KINDS.includes(value)) {
        fail(`kind must be 'previous-token', 'first-token' or 'same-token' (got ${describe(value)})`);
      }
      return value;
    });
    const sentence = argument('sentence', () => {
      const value = o.sentence; // undefined: the core's default sentence
      if (value !== undefined && typeof value !== 'string') fail(`sentence must be a string (got ${describe(value)})`);
      return value;
    });
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
   *   n 1 to limits().maxTimingN; d 1 to maxCols (default 64); repeats 1 to maxTimingRepeats (default 1);
   *   seed ≥ 0 (default 0).
   * @returns {{ seconds: number, attentionBytes: number, iterations: number }}
   */
  timeAttention(options) {
    const o = optionsOf(options, 'timeAttention', '{ n }');
    const L = this.#limits;
    const { seconds, attentionBytes, iterations } = unwrap(this.#core.timeAttention({
      n: argument('n', () => toRange(o.n, 'n', 1, L.maxTimingN)),
      d: argument('d', () => toRange(withDefault(o.d, 64), 'd', 1, L.maxCols)),
      repeats: argument('repeats', () => toRange(withDefault(o.repeats, 1), 'repeats', 1, L.maxTimingRepeats)),
      seed: argument('seed', () => toSeed(withDefault(o.seed, 0), this.#sizes)),
    }));
    return { seconds, attentionBytes, iterations };
  }

  /**
   * Corners of the convex hull of 2-D points, as indices, counter-clockwise. Collinear points
   * give the two ends, equal points one index. Every coordinate must be finite (the core names
   * the first that is not).
   */
  convexHull(points) {
    const P = argument('points', () => toMatrix(points, 'points', this.#sizes));
    return unwrap(this.#core.convexHull({ points: P.data, m: P.rows, cols: P.cols })).hull;
  }

  /**
   * Fits y ≈ c·x^k by least squares on log-log axes: { exponent: k, coefficient: c }. Needs two
   * or more points with different x, every value finite and > 0.
   */
  fitPowerLaw(options) {
    const o = optionsOf(options, 'fitPowerLaw', '{ x, y }');
    const numbers = (name) => argument(name, () => {
      const value = o[name];
      const list = listOf(value, name) ?? fail(`${name} must be an array of numbers (got ${describe(value)})`);
      return Float64Array.from(readEach(list, (t, i) => {
        if (typeof t !== 'number') fail(`${name}[${i}] is not a number (got ${t === HOLE ? HOLE_TEXT : describe(t)})`);
        return t;
      }));
    });
    const { exponent, coefficient } = unwrap(this.#core.fitPowerLaw({ x: numbers('x'), y: numbers('y') }));
    return { exponent, coefficient };
  }

  /**
   * For benchmarks: runs `iterations` rounds of independent vector mul+add updates and
   * returns the FLOPs done (time it to get this build's peak GFLOP/s).
   */
  peakMulAdd(iterations) {
    argument('iterations', () => toRange(iterations, 'iterations', 1, this.#limits.maxPeakIterations));
    unwrap(this.#core.peakMulAdd(iterations));
    return iterations * this.#core.peakChains() * this.#core.lanes() * 2;
  }

  /**
   * The shipped learned-heads checkpoint (learned-heads.bin beside this file, written by
   * `npm run train`), fetched on first use and shared by later calls. See attention.d.ts.
   * @param {{ url?: string | URL }} [options] url: another checkpoint file.
   */
  learnedModel(options) {
    let url;
    try {
      const o = optionsOf(options, 'learnedModel', "{ url: './learned-heads.bin' }");
      url = o.url === undefined ? this.#checkpoint() : argument('url', () => toUrl(o.url, 'url'));
    } catch (error) {
      return Promise.reject(error);
    }
    if (!this.#learned.has(url.href)) {
      const bytes = fetchBytes(url).catch((cause) => {
        throw new Error(`attention-calc: could not load ${url.href}: ${cause.message}`, { cause });
      });
      const loading = Promise.all([this.loadLearned(), bytes]).then(() => bytes).then(({ bytes: data }) => {
        const core = this.#learnedCore;
        const loaded = core.learnedLoad(data);
        if (loaded.error !== undefined) {
          throw new Error(`attention-calc: ${url.href} is not a usable checkpoint: ${loaded.error}`);
        }
        return new LearnedModel(core, loaded.handle);
      });
      loading.catch(() => this.#learned.delete(url.href)); // a failed load can be tried again
      this.#learned.set(url.href, loading);
    }
    return this.#learned.get(url.href);
  }

  /**
   * Opens a GPT-2 safetensors file: a File or Blob, its bytes, or its URL (read by HTTP Range).
   * GPT-2's module (gpt2-{simd,scalar}.mjs/.wasm) and tokenizer (gpt2-tokenizer.bin) load on first
   * use. See attention.d.ts.
   */
  openGpt2(source, options) {
    return import('./gpt2.js').then((gpt2) => gpt2.openGpt2({ core: () => this.#gpt2Core() }, source, options));
  }

  // The shipped checkpoint: beside the wasm folder given as baseUrl (dist/'s layout), or bundled.
  #checkpoint() {
    return this.#base ? new URL('../learned-heads.bin', this.#base) : fileUrl('learned-heads.bin', null);
  }

  #gpt2Core() {
    if (!this.#gpt2Loading) {
      this.#gpt2Loading = import('./gpt2.js').then((gpt2) => gpt2.loadGpt2Core(this.#base, this.#variant));
      this.#gpt2Loading.catch(() => (this.#gpt2Loading = null)); // a failed load can be tried again
    }
    return this.#gpt2Loading;
  }

  /**
   * Loads the learned heads' module (learned-{simd,scalar}.mjs/.wasm beside the calculator's),
   * once; learnedModel() does it too. createTrainer() needs it loaded.
   */
  loadLearned() {
    if (!this.#learnedLoading) {
      this.#learnedLoading = instantiate('learned', this.#variant, this.#base).then((core) => {
        this.#learnedCore = core;
      });
      this.#learnedLoading.catch(() => (this.#learnedLoading = null)); // a failed load can be tried again
    }
    return this.#learnedLoading;
  }

  /**
   * A trainer of a fresh learned-heads model, from a seeded initialisation, on the copy task.
   * The defaults are the shipped checkpoint's recipe. See attention.d.ts. Needs the learned
   * heads' module: await learnedModel() or loadLearned() first.
   */
  createTrainer(options) {
    const core = this.#learnedCore;
    if (!core) {
      fail('createTrainer needs the learned heads\' module, which loads on first use: await attn.learnedModel() or attn.loadLearned() first');
    }
    const o = optionsOf(options, 'createTrainer', '{ seed: 1 }');
    // The shipped checkpoint's recipe (the defaults), and the core's limits (src/limits.hpp).
    const d = core.learnedRecipe();
    const L = core.learnedLimits();
    for (const key of Object.keys(o)) {
      if (!Object.hasOwn(d, key)) {
        fail(`createTrainer has no option ${describe(key)} (its options: ${Object.keys(d).join(', ')})`);
      }
    }
    const args = {
      seed: argument('seed', () => toSeed(withDefault(o.seed, d.seed), this.#sizes)),
      layers: argument('layers', () => toRange(withDefault(o.layers, d.layers), 'layers', 1, L.maxLayers)),
      heads: argument('heads', () => toRange(withDefault(o.heads, d.heads), 'heads', 1, L.maxHeads)),
      dModel: argument('dModel', () => toRange(withDefault(o.dModel, d.dModel), 'dModel', L.minDModel, L.maxDModel)),
      context: argument('context', () => toRange(withDefault(o.context, d.context), 'context', L.minContext, L.maxContext)),
      batch: argument('batch', () => toRange(withDefault(o.batch, d.batch), 'batch', 1, L.maxBatch)),
      learningRate: argument('learningRate', () => {
        const lr = toPositive(withDefault(o.learningRate, d.learningRate), 'learningRate');
        if (lr > 1) fail(`learningRate must be at most 1 (got ${describe(lr)})`);
        return lr;
      }),
      scale: argument('scale', () => {
        const scale = withDefault(o.scale, d.scale);
        if (scale !== 'sqrt' && scale !== 'none') fail(`scale must be 'sqrt' (1/√d_k) or 'none' (got ${describe(scale)})`);
        return scale;
      }),
    };
    return new Trainer(core, unwrap(core.learnedTrainerCreate(args)).handle, L.maxSteps);
  }

  /**
   * The learned heads' goals, as the core defines them (src/learned/goals.hpp): the thresholds,
   * the evaluation set and the trainer's schedule; given a model, its scores on that set and
   * whether they meet the goals. See attention.d.ts. Needs the learned heads' module loaded.
   */
  learnedGoals(model) {
    let core = this.#learnedCore, handle = -1;
    if (model !== undefined) {
      if (!(model instanceof LearnedModel)) fail(`learnedGoals takes a model from learnedModel() or trainer.model() (got ${describe(model)})`);
      [core, handle] = modelInCore(model);
    } else if (!core) {
      fail('learnedGoals needs the learned heads\' module, which loads on first use: await attn.learnedModel() or attn.loadLearned() first');
    }
    const { thresholds, seed, sequences, checkEvery, maxSteps, scores, met } = unwrap(core.learnedGoals(handle));
    const goals = { thresholds: { ...thresholds }, seed, sequences, checkEvery, maxSteps };
    return scores ? { ...goals, scores: { ...scores }, met } : goals;
  }

  /**
   * Bytes currently allocated in the wasm heaps, the calculator's and (once loaded) the learned
   * heads' (a diagnostic: it stays flat across calls).
   */
  heapBytesInUse() {
    return this.#core.heapBytesInUse() + (this.#learnedCore?.heapBytesInUse() ?? 0);
  }
}

// The C++ models and trainers behind LearnedModel and Trainer live in the wasm heap, named by a
// handle; each is freed when its JS object is garbage-collected, or at once by dispose().
const release = new FinalizationRegistry(({ free, handle }) => free(handle));

// A model's module and handle, for learnedGoals(): set by LearnedModel, whose fields are private.
let modelInCore;

/** A learned-heads model: the shipped checkpoint, or a trainer's weights at one step. */
class LearnedModel {
  #core;
  #handle;

  static {
    modelInCore = (model) => {
      if (model.#handle === null) fail('this model was disposed');
      return [model.#core, model.#handle];
    };
  }

  constructor(core, handle) {
    this.#core = core;
    this.#handle = handle;
    release.register(this, { free: core.learnedModelFree, handle }, this);
    /** { layers, heads, dModel, context, vocabulary, scale, seed, steps } */
    this.config = Object.freeze({ ...unwrap(core.learnedModelConfig(handle)) });
  }

  /**
   * Runs the model on BOS + text. → { tokens (BOS first), loss (per predicted position),
   * layers: [{ heads: [{ weights (n×n, causal), previousToken, firstToken, induction }] }] }.
   * A score is null where it averages over no positions (induction without a repeated token).
   */
  run(text) {
    if (typeof text !== 'string') {
      fail(`run takes a string of the letters a to z and spaces (got ${describe(text)})`);
    }
    if (this.#handle === null) fail('this model was disposed');
    const raw = unwrap(this.#core.learnedModelRun(this.#handle, text));
    const n = raw.n;
    return {
      tokens: raw.tokens,
      loss: Array.from(raw.loss),
      layers: raw.layers.map((layer) => ({
        heads: layer.heads.map((h) => ({
          weights: toRows(h.weights, n, n),
          previousToken: h.previousToken,
          firstToken: h.firstToken,
          induction: h.induction,
        })),
      })),
    };
  }

  /** Frees the weights in the wasm heap now, rather than when this object is collected. */
  dispose() {
    if (this.#handle === null) return;
    release.unregister(this);
    this.#core.learnedModelFree(this.#handle);
    this.#handle = null;
  }
}

/** Trains a learned-heads model in the core (hand-written backward pass, AdamW). */
class Trainer {
  #core;
  #handle;
  #maxSteps; // the core's limit on k (src/limits.hpp)

  constructor(core, handle, maxSteps) {
    this.#core = core;
    this.#handle = handle;
    this.#maxSteps = maxSteps;
    release.register(this, { free: core.learnedTrainerFree, handle }, this);
  }

  /** Runs k optimisation steps (default 1). → { step, loss, lossFirstCopy, lossSecondCopy } of the last. */
  step(k = 1) {
    const steps = argument('k', () => toRange(k, 'k', 1, this.#maxSteps));
    const { step, loss, lossFirstCopy, lossSecondCopy } = unwrap(this.#core.learnedTrainerStep(this.#alive(), steps));
    return { step, loss, lossFirstCopy, lossSecondCopy };
  }

  /** The model with the current weights (a copy: later steps do not change it). */
  model() {
    return new LearnedModel(this.#core, unwrap(this.#core.learnedTrainerModel(this.#alive())).handle);
  }

  /** Frees the trainer's state in the wasm heap now. */
  dispose() {
    if (this.#handle === null) return;
    release.unregister(this);
    this.#core.learnedTrainerFree(this.#handle);
    this.#handle = null;
  }

  #alive() {
    if (this.#handle === null) fail('this trainer was disposed');
    return this.#handle;
  }
}

// The core's fields under the same names (bindings/embind.cpp), as JS arrays.
function attentionResult(raw, n, m, dv, hiddenBy) {
  const reasons = toRows(raw.hidden, n, m); // MaskReason bits per cell (src/mask.hpp)
  return {
    scale: raw.scale,
    scores: toRows(raw.scores, n, m),
    scaledBeforeMask: toRows(raw.scaledBeforeMask, n, m),
    scaled: toRows(raw.scaled, n, m),
    rowMax: Array.from(raw.rowMax),
    exp: toRows(raw.exp, n, m),
    rowSum: Array.from(raw.rowSum),
    weights: toRows(raw.weights, n, m),
    output: toRows(raw.output, n, dv),
    hidden: reasons.map((row) => row.map(Boolean)),
    hiddenBy: reasons.map((row) => row.map((bits) => hiddenBy[bits])),
    fullyMasked: Array.from(raw.fullyMasked, Boolean),
  };
}

// The core's MaskReason bits by rule name ({ causal: 1, padding: 2, custom: 4 }, maskReasonBits())
// → for each combination of bits one frozen list of the names they stand for, in bit order and
// shared by every cell.
function reasonNames(bits) {
  const rules = Object.entries(bits).sort(([, a], [, b]) => a - b);
  const all = rules.reduce((sum, [, bit]) => sum | bit, 0);
  return Array.from({ length: all + 1 }, (_, cell) =>
    Object.freeze(rules.filter(([, bit]) => cell & bit).map(([name]) => name)));
}

function toRows(flat, rows, cols) {
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = Array.from(flat.subarray(i * cols, (i + 1) * cols));
  return out;
}

// --- input conversion: the form of the input, not its math (the core checks sizes and values)
// (the general helpers are in api/arguments.js)

// value as a list to read entries from: an array, or a typed array of numbers; undefined when it
// is neither. A DataView (no entries to index) and a BigInt64Array (BigInts, not numbers) are
// refused by name, so the message says what to pass instead.
function listOf(value, name) {
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
const HOLE = Symbol('hole');
const HOLE_TEXT = 'an empty slot of a sparse array';
const entry = (list, i) => (i in list ? list[i] : HOLE);

// map over every entry, holes included (forEach and Array.from skip or fill them), reading each
// entry once; stops at the first entry `convert` refuses, so a sparse array of length 2³² − 1
// fails at its first hole instead of filling memory.
function readEach(list, convert) {
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
function sizeRules(core, limits) {
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
function toMatrix(value, name, sizes) {
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

function toVector(value, name, sizes) {
  if (value === undefined || value === null) return undefined;
  const list = listOf(value, name) ?? fail(`${name} must be an array of numbers (got ${describe(value)})`);
  // A bias has d_model entries: one longer than any matrix row is refused before it is read.
  const { maxCols } = sizes.limits;
  if (list.length > maxCols) fail(`${name} has ${list.length} entries, more than d_model can be (at most ${maxCols})`);
  return Float32Array.from(readEach(list, (x, j) => toFloat(x, `${name} entry ${j + 1}`)));
}

// A whole number from lo to hi, checked before the core narrows it (2³² + 1 heads must not become 1).
function toRange(value, name, lo, hi) {
  if (!Number.isInteger(value) || value < lo || value > hi) {
    fail(`${name} must be a whole number from ${lo} to ${hi} (got ${describe(value)})`);
  }
  return value;
}

// A whole number ≥ min that a double holds exactly (up to limits().maxExactCount), so the core
// gets exactly the number given; one over it gets the core's message (sizeRules).
function toCount(value, name, sizes, min = 1) {
  if (Number.isInteger(value)) sizes.count(name, value);
  if (!Number.isSafeInteger(value) || value < min) fail(`${name} must be a whole number ≥ ${min} (got ${describe(value)})`);
  return value;
}

const toSeed = (value, sizes) => toCount(value, 'seed', sizes, 0);

function toPositive(value, name) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(`${name} must be a finite number greater than 0 (got ${describe(value)})`);
  }
  return value;
}

// The scale option → { scaling, scale } for the core: 'sqrt' (the default, 1/√d_k), the pitfalls
// 'dk' (1/d_k) and 'none' (1), each computed by the core, or a fixed number (scale). A number is a
// float32 in the core: checked here against float32's range, so the message shows it as given
// (1e-50 would otherwise reach the core as 0, 1e39 as inf).
const SCALINGS = ['sqrt', 'dk', 'none'];
function toScale(value) {
  if (value === undefined || value === null) return { scaling: 'sqrt', scale: NaN };
  if (typeof value === 'string') {
    if (!SCALINGS.includes(value)) fail(`scale must be 'sqrt', 'dk', 'none' or a number greater than 0 (got ${describe(value)})`);
    return { scaling: value, scale: NaN };
  }
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
function toMask(mask, n, m, sizes) {
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
