// The API of the labs past the lesson (issue 40): positional schemes, FlashAttention's online softmax step by step,
// decoding with a KV cache, grouped K/V heads and a cache's size. Their own module (next-labs-{simd,scalar}.mjs/.wasm, from bindings/next_labs.cpp,
// with the calculator's functions): loaded by loadNextLabs(), so that an embed of the lesson's labs transfers none of it, or
// by loadAttention({ labs: false, nextLabs: true }) as the page's only module. Once it
// has loaded, each method answers synchronously, as the calculator's do. Types: attention.d.ts.

import { argument, count, fail, optionsOf, toBoolean, unwrap, withDefault } from './arguments.js';
import { listOf, readEach, toChoice, toMatrix, toPositive, toRows, toSeed, toVector, toWhole } from './convert.js';
import { attentionResult } from './calculator.js';
import { instantiate } from './modules.js';

/** The next labs' methods of Attention, and their module's loader. */
export class NextLabs {
  #variant;         // 'simd' or 'scalar'
  #base;            // the folder of the modules, or null: the asset table's files
  #sizes;           // the calculator's checks of sizes (convert.js's sizeRules)
  #hiddenBy;        // MaskReason bits → the names of the rules (the calculator's module's)
  #loading = null;  // Promise of the module, once asked for
  #core = null;     // the module, once loaded

  // core: the module, when the page loaded it as its calculator already (loadAttention's nextLabs).
  constructor(variant, base, sizes, hiddenBy, core = null) {
    this.#variant = variant;
    this.#base = base;
    this.#sizes = sizes;
    this.#hiddenBy = hiddenBy;
    this.#core = core;
    if (core) this.#loading = Promise.resolve();
  }

  /** Loads the next labs' module (next-labs-{simd,scalar} beside the calculator's), once, unless it is the calculator's. */
  loadNextLabs() {
    if (!this.#loading) {
      this.#loading = instantiate('next-labs', this.#variant, this.#base).then((core) => {
        this.#core = core;
      });
      this.#loading.catch(() => (this.#loading = null)); // a failed load can be tried again
    }
    return this.#loading;
  }

  #loaded(name) {
    return this.#core ?? fail(`${name} needs the next labs' module, which has not loaded: await loadNextLabs() first`);
  }

  /**
   * Self-attention over n tokens with positions injected: `order` (a permutation of 0…n−1) first
   * puts token order[i] at position i, then `scheme` adds a position's vector to q, k and v
   * (sinusoidal, learned), rotates q's and k's pairs (rope) or biases the scores (alibi, −m·|i − j|,
   * m = alibiSlope, 2⁻⁸ by default: ALiBi's slopes for h heads are 2^(−8k/h), k = 1…h).
   */
  positionalAttention(options) {
    const core = this.#loaded('positionalAttention');
    const o = optionsOf(options, 'positionalAttention', "{ q, k, v, scheme: 'rope' }");
    const S = this.#sizes;
    const Q = argument('q', () => toMatrix(o.q, 'q', S));
    const K = argument('k', () => toMatrix(o.k, 'k', S));
    const V = argument('v', () => toMatrix(o.v, 'v', S));
    const scheme = argument('scheme', () => toChoice(withDefault(o.scheme, 'none'), 'scheme', 'rope'));
    const order = argument('order', () => (o.order === undefined ? [] : readEach(
      listOf(o.order, 'order') ?? fail(`order must be a list of token indices such as [2, 0, 1] (got ${typeof o.order})`),
      (i, at) => toWhole(i, `order's entry ${at + 1}`))));
    const causal = argument('causal', () => toBoolean(withDefault(o.causal, false), 'causal'));
    const seed = argument('seed', () => toSeed(withDefault(o.seed, 1), S));
    const alibiSlope = argument('alibiSlope', () => toPositive(withDefault(o.alibiSlope, 2 ** -8), 'alibiSlope'));
    if (K.rows !== Q.rows || K.cols !== Q.cols) fail(`k is ${K.rows}×${K.cols} but must be the shape of q, ${Q.rows}×${Q.cols}: one key per token, of q's length`);
    if (V.rows !== Q.rows) fail(`v has ${count(V.rows, 'row', 'rows')} but q has ${Q.rows}: one value per token`);
    const raw = unwrap(core.positionalAttention({ q: Q.data, k: K.data, v: V.data, n: Q.rows, dK: Q.cols, dV: V.cols, scheme, order, causal, seed, alibiSlope }));
    const n = Q.rows;
    return {
      q: toRows(raw.q, n, Q.cols),
      k: toRows(raw.k, n, Q.cols),
      v: toRows(raw.v, n, V.cols),
      bias: toRows(raw.bias, n, n),
      scale: raw.scale,
      scores: toRows(raw.scores, n, n),
      weights: toRows(raw.weights, n, n),
      output: toRows(raw.output, n, V.cols),
    };
  }

  /**
   * FlashAttention's online softmax step by step: each query row meets K and V one tile of
   * `tile` keys at a time, keeping a running max, sum and output; tiles lists every step, row by
   * row, and output is Z after the last. skipped counts the tiles a causal mask never reads.
   */
  tiledAttention(q, k, v, options) {
    const core = this.#loaded('tiledAttention');
    const o = optionsOf(options, 'tiledAttention', '{ tile }');
    const S = this.#sizes;
    const Q = argument('q', () => toMatrix(q, 'q', S));
    const K = argument('k', () => toMatrix(k, 'k', S));
    const V = argument('v', () => toMatrix(v, 'v', S));
    const tile = argument('tile', () => toWhole(o.tile, 'tile'));
    const causal = argument('causal', () => toBoolean(withDefault(o.causal, false), 'causal'));
    if (K.cols !== Q.cols) fail(`k has ${count(K.cols, 'column', 'columns')} but q has ${Q.cols}: queries and keys must have the same length d_k`);
    if (V.rows !== K.rows) fail(`v has ${count(V.rows, 'row', 'rows')} but k has ${K.rows}: every key needs exactly one value`);
    const raw = unwrap(core.tiledAttention({ q: Q.data, k: K.data, v: V.data, n: Q.rows, m: K.rows, d: Q.cols, dV: V.cols, tile, causal }));
    return {
      output: toRows(raw.output, Q.rows, V.cols),
      tiles: raw.tiles.map((t) => ({ ...t, scores: Array.from(t.scores), output: Array.from(t.output) })),
      skipped: raw.skipped,
      peakFloats: raw.peakFloats,
      fullPeakFloats: raw.fullPeakFloats,
    };
  }

  /**
   * The flash lab's memory curve: the most floats each path held at once, counted by the core's
   * allocator, for self-attention over n tokens of seeded inputs (d, dV; dV defaults to d), the
   * tiled path in tiles of `tile` keys (steps not kept). n up to 4,096: the plain path's n² scores.
   */
  attentionPeakFloats(options) {
    const core = this.#loaded('attentionPeakFloats');
    const o = optionsOf(options, 'attentionPeakFloats', '{ n, d, tile }');
    const n = argument('n', () => toWhole(o.n, 'n'));
    const d = argument('d', () => toWhole(o.d, 'd'));
    const dV = argument('dV', () => toWhole(withDefault(o.dV, d), 'dV'));
    const tile = argument('tile', () => toWhole(o.tile, 'tile'));
    const causal = argument('causal', () => toBoolean(withDefault(o.causal, false), 'causal'));
    const seed = argument('seed', () => toSeed(withDefault(o.seed, 1), this.#sizes));
    const raw = unwrap(core.attentionPeakFloats({ n, d, dV, tile, causal, seed }));
    return { peakFloats: raw.peakFloats, fullPeakFloats: raw.fullPeakFloats };
  }

  /**
   * One decoding step against a KV cache: the new token's query meets the m cached keys and its
   * own (m + 1 scores), and the cache comes back one row longer. k, v may be [] (m = 0).
   */
  decodeStep(options) {
    const core = this.#loaded('decodeStep');
    const o = optionsOf(options, 'decodeStep', '{ k, v, q, kNew, vNew }');
    const S = this.#sizes;
    const q = argument('q', () => toVector(o.q, 'q', S) ?? fail('q is missing: the new token\'s query, d_k numbers'));
    const kNew = argument('kNew', () => toVector(o.kNew, 'kNew', S) ?? fail('kNew is missing: the new token\'s key, d_k numbers'));
    const vNew = argument('vNew', () => toVector(o.vNew, 'vNew', S) ?? fail('vNew is missing: the new token\'s value, d_v numbers'));
    const cache = (value, name, cols) => (Array.isArray(value) && value.length === 0
      ? { data: new Float32Array(0), rows: 0, cols } : argument(name, () => toMatrix(value, name, S)));
    const K = cache(o.k ?? [], 'k', q.length), V = cache(o.v ?? [], 'v', vNew.length);
    if (K.rows !== V.rows) fail(`k has ${count(K.rows, 'row', 'rows')} and v ${count(V.rows, 'row', 'rows')}: the cache holds one row of each per token`);
    const raw = unwrap(core.decodeStep({ k: K.data, v: V.data, m: K.rows, dK: K.cols, dV: V.cols, q, kNew, vNew }));
    const m = K.rows + 1;
    return {
      scale: raw.scale,
      scores: Array.from(raw.scores),
      weights: Array.from(raw.weights),
      output: Array.from(raw.output),
      k: toRows(raw.k, m, q.length),
      v: toRows(raw.v, m, vNew.length),
    };
  }

  /**
   * h query heads over h_kv K/V heads (MHA, GQA, MQA): q is n×d, k and v n×(d·kvHeads/heads);
   * query head i reads K/V head ⌊i / (heads / kvHeads)⌋.
   */
  groupedAttention(q, k, v, options) {
    const core = this.#loaded('groupedAttention');
    const o = optionsOf(options, 'groupedAttention', '{ heads, kvHeads }');
    const S = this.#sizes;
    const Q = argument('q', () => toMatrix(q, 'q', S));
    const K = argument('k', () => toMatrix(k, 'k', S));
    const V = argument('v', () => toMatrix(v, 'v', S));
    const heads = argument('heads', () => toWhole(o.heads, 'heads'));
    const kvHeads = argument('kvHeads', () => toWhole(o.kvHeads, 'kvHeads'));
    const causal = argument('causal', () => toBoolean(withDefault(o.causal, false), 'causal'));
    if (V.rows !== K.rows || V.cols !== K.cols) fail(`v is ${V.rows}×${V.cols} but must be the shape of k, ${K.rows}×${K.cols}`);
    const raw = unwrap(core.groupedAttention({ q: Q.data, k: K.data, v: V.data, n: Q.rows, d: Q.cols, dKv: K.cols, heads, kvHeads, causal }));
    const n = Q.rows, dk = Q.cols / heads;
    return {
      heads: raw.heads.map((head) => ({ ...attentionResult(head, n, n, dk, this.#hiddenBy), kvHead: head.kvHead })),
      output: toRows(raw.output, n, Q.cols),
      parameters: raw.parameters,
      cacheBytesPerToken: raw.cacheBytesPerToken,
    };
  }

  /** 2 × layers × kvHeads × dHead × tokens × bytesPerValue: a model's KV cache in bytes. */
  kvCacheBytes(options) {
    const core = this.#loaded('kvCacheBytes');
    const o = optionsOf(options, 'kvCacheBytes', '{ layers, kvHeads, dHead, tokens, bytesPerValue }');
    const args = {};
    for (const key of ['layers', 'kvHeads', 'dHead', 'tokens', 'bytesPerValue']) args[key] = argument(key, () => toWhole(o[key], key));
    return unwrap(core.kvCacheBytes(args)).value;
  }
}
