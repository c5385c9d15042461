// The labs' API: multi-head attention, the streaming output-only path, the √d_k experiment and
// row study, constructed heads, timing, the power-law fit, parameter counts and the benchmark's
// peak, over the labs' functions of the core (bindings/labs.cpp, in the full module only).
// Types: attention.d.ts.

import { argument, count, describe, fail, optionsOf, toBoolean, typedArrayKind, unwrap, withDefault } from './arguments.js';
import { HOLE, HOLE_TEXT, listOf, readEach, sizeRules, toChoice, toCount, toMask, toMatrix, toPositive, toWhole, toRows, toSeed, toVector } from './convert.js';
import { attentionResult, reasonNames } from './calculator.js';

// The full module's functions the calculator's module leaves out (bindings/labs.cpp).
const LAB_FUNCTIONS = ['multiHead', 'parameterCount', 'fitPowerLaw', 'normalMatrix', 'entropy', 'scalingExperiment',
  'scalingRowStudy', 'constructedHead', 'timeAttention', 'prepareOutput', 'runOutput', 'outputError', 'peakMulAdd',
  'lanes', 'peakChains'];

/** The labs' methods of Attention, on a loaded core. */
export class Labs {
  #core;
  #sizes;            // those limits with the core's own checks of sizes (see sizeRules)
  #hiddenBy;         // MaskReason bits → the names of the rules they stand for (see reasonNames)
  #outputShape = ''; // the sizes the core's attentionOutput buffers were last prepared for
  #outputAt = null;  // their heap addresses

  constructor(core, limits) {
    // The calculator's module has no lab functions: each says where it is instead.
    for (const name of LAB_FUNCTIONS) {
      core[name] ??= () => fail(`${name} is in the labs' part of the core, which this page did not load: use loadAttention() without labs: false`);
    }
    this.#core = core;
    this.#sizes = sizeRules(core, limits);
    this.#hiddenBy = reasonNames(core.maskReasonBits());
  }

  /**
   * Multi-head self-attention: Q = X·W_Q + b_Q (likewise K, V), heads as column slices,
   * output = Concat(heads)·W_O + b_O. See attention.d.ts.
   */
  multiHead(options) {
    const o = optionsOf(options, 'multiHead', '{ x, wq, wk, wv, wo }');
    const S = this.#sizes;
    const X = argument('X', () => toMatrix(o.x, 'X', S));
    const h = argument('heads', () => toWhole(withDefault(o.heads, 1), 'heads'));
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
   * Output-only attention for long inputs: q (n×d), k (m×d), v (m×dv) as row-major
   * Float32Arrays in, a new Float32Array of n×dv out. The streaming path (online softmax over
   * blocks of keys) keeps no n×m matrix, so it runs at lengths the explaining attention()
   * refuses, and skips the masked half when causal. The inputs are copied straight into buffers
   * the core keeps, so repeated calls allocate nothing.
   */
  attentionOutput(options) {
    const o = optionsOf(options, 'attentionOutput', '{ q, k, v, n, d }');
    const n = argument('n', () => toWhole(o.n, 'n'));
    const m = argument('m', () => toWhole(withDefault(o.m, n), 'm'));
    const d = argument('d', () => toWhole(o.d, 'd'));
    const dv = argument('dv', () => toWhole(withDefault(o.dv, d), 'dv'));
    // The core checks the sizes (and only then grows its buffers, which move only when a new size
    // makes them grow), before an array is read against them.
    const shape = `${n} ${m} ${d} ${dv}`;
    if (this.#outputShape !== shape) {
      // Forgotten first: a prepare that fails halfway may already have moved some buffers.
      this.#outputShape = '';
      this.#outputAt = unwrap(this.#core.prepareOutput(n, m, d, dv));
      this.#outputShape = shape;
    }
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
    const heads = argument('heads', () => toWhole(withDefault(o.heads, 1), 'heads'));
    const bias = argument('bias', () => toBoolean(withDefault(o.bias, false), 'bias'));
    return unwrap(this.#core.parameterCount(dModel, heads, bias)).value;
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
    const rows = argument('rows', () => toWhole(o.rows, 'rows'));
    const cols = argument('cols', () => toWhole(o.cols, 'cols'));
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
    const args = {
      dk: argument('dk', () => toWhole(o.dk, 'dk')),
      pairs: argument('pairs', () => toWhole(withDefault(o.pairs, 10000), 'pairs')),
      seed: argument('seed', () => toSeed(withDefault(o.seed, 0), this.#sizes)),
      bins: argument('bins', () => toWhole(withDefault(o.bins, 40), 'bins')),
      row: argument('row', () => toWhole(withDefault(o.row, 64), 'row')),
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
    const args = {
      dk: argument('dk', () => toWhole(o.dk, 'dk')),
      rows: argument('rows', () => toWhole(withDefault(o.rows, 2000), 'rows')),
      row: argument('row', () => toWhole(withDefault(o.row, 64), 'row')),
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
    const kind = argument('kind', () => toChoice(o.kind, 'kind', 'previous-token')); // the kinds are the core's
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
   * Times attention in the core on seeded random n×d inputs, with the monotonic clock behind
   * steady_clock (performance.now() in a browser): path 'explaining' (every n×n matrix
   * materialised) or 'streaming' (the fused kernel's online softmax, one tile of scores held).
   * seconds is per call: the fastest of `repeats` runs, each run as many back-to-back calls
   * (iterations) as last ≥ 1 ms, so a coarse browser clock still gives a positive time.
   * attentionBytes: the scores the path holds at once, in float32 (4·n², or the streaming tile's).
   * Blocks the thread while it runs; call it from a Worker or between frames.
   * @param {{ n: number, d?: number, repeats?: number, seed?: number, path?: 'explaining' | 'streaming' }} options
   *   n 1 to limits().maxTimingN; d 1 to maxCols (default 64); repeats 1 to maxTimingRepeats (default 1);
   *   seed ≥ 0 (default 0); path default 'explaining'.
   * @returns {{ seconds: number, attentionBytes: number, iterations: number }}
   */
  timeAttention(options) {
    const o = optionsOf(options, 'timeAttention', '{ n }');
    const { seconds, attentionBytes, iterations } = unwrap(this.#core.timeAttention({
      n: argument('n', () => toWhole(o.n, 'n')),
      d: argument('d', () => toWhole(withDefault(o.d, 64), 'd')),
      repeats: argument('repeats', () => toWhole(withDefault(o.repeats, 1), 'repeats')),
      seed: argument('seed', () => toSeed(withDefault(o.seed, 0), this.#sizes)),
      path: argument('path', () => toChoice(withDefault(o.path, 'explaining'), 'path', 'streaming')),
    }));
    return { seconds, attentionBytes, iterations };
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
    argument('iterations', () => toWhole(iterations, 'iterations'));
    unwrap(this.#core.peakMulAdd(iterations));
    return iterations * this.#core.peakChains() * this.#core.lanes() * 2;
  }
}
