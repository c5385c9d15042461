// The open GPT-2 (gpt2.js opens it): FlatGpt2, the GPT-2 panel's worker's, and Gpt2Model, the
// API's, which is FlatGpt2 with its arguments checked and the weights as rows. Both run the
// forward pass, with the interventions a learner of TransformerLens knows (a head switched off,
// the logit lens, direct logit attribution), and generate text with the core's KV cache.
import { argument, describe, fail, optionsOf, toBoolean, unwrap } from './arguments.js';
import { generateTokens } from './gpt2-generate.js';
import { ablateOf, attributeOf, generateOptionsOf, layersOf, lensOf } from './gpt2-options.js';

const END_OF_TEXT = 50256;

const release = new FinalizationRegistry(({ core, handle }) => core.gpt2Free(handle));

/**
 * An open GPT-2 whose weights live in the GPT-2 module's heap, as the panel's worker uses it:
 * input() turns a text into a run's tokens once, and run() gives each head's weights as one
 * n×n row-major Float32Array, which the worker moves to the page without building a number per
 * weight. Gpt2Model, the API's, is this with its arguments checked and the weights as rows.
 */
export class FlatGpt2 {
  #core;
  #handle;

  constructor(core, handle, config) {
    this.#core = core;
    this.#handle = handle;
    this.config = Object.freeze({ ...config });
    /** The core's limits: { maxKeptWeights, stagingBytes } (bindings/gpt2.cpp, gpt2Limits). */
    this.limits = Object.freeze({ ...core.gpt2Limits() });
    release.register(this, { core, handle }, this);
  }

  /** Bytes of WebAssembly memory GPT-2's module holds: see Gpt2Model.memoryBytes. */
  get memoryBytes() {
    return this.#core.HEAPU8.length;
  }

  get disposed() {
    return this.#handle === null;
  }

  /** GPT-2's tokens of `text` (a string): { ids, tokens }. */
  tokenize(text) {
    this.#live();
    const { ids, tokens } = unwrap(this.#core.gpt2Tokenize(new TextEncoder().encode(text)));
    return { ids: Array.from(ids), tokens };
  }

  /**
   * What a run of `text` reads: its tokens, after <|endoftext|> when endOfTextFirst (a boolean).
   * The text must be a string with something to read; the core counts its tokens against the
   * context when it runs.
   */
  input(text, { endOfTextFirst }) {
    this.#live();
    if (typeof text !== 'string') fail(`text must be a string (got ${describe(text)})`);
    if (text.trim() === '') fail('the text is empty: type a sentence for GPT-2 to read');
    const { ids, tokens } = this.tokenize(text);
    return endOfTextFirst
      ? { ids: [END_OF_TEXT, ...ids], tokens: ['<|endoftext|>', ...tokens], endOfTextFirst }
      : { ids, tokens, endOfTextFirst };
  }

  /**
   * The forward pass over input()'s tokens: the weights of `layers` (whole numbers; undefined:
   * every layer), each head's roles, the next tokens; with `ablate` ([{ layer, head, mode }], mode
   * 'zero' or 'mean', default 'zero') those heads switched off, with `lens` (a boolean) the logit
   * lens, with `attribute` (a token id, or 'top': next[0]) its direct logit attribution. The forms are checked here
   * (the options may come from a message), the values by the core: the layers and heads, the
   * token, the context and how many weights one run returns.
   */
  run({ ids, tokens, endOfTextFirst }, { layers, ablate, lens, attribute } = {}) {
    this.#live();
    const args = {
      ids: Int32Array.from(ids),
      endOfTextFirst,
      layers: argument('layers', () => layersOf(layers, this.config.layers)),
      ablate: argument('ablate', () => ablateOf(ablate, this.config)),
      lens: argument('lens', () => lensOf(lens)),
      attribute: argument('attribute', () => attributeOf(attribute, this.config)),
    };
    const raw = unwrap(this.#core.gpt2Run(this.#handle, args));
    const result = {
      ids,
      tokens,
      layers: raw.layers.map(({ heads }) => ({
        heads: heads[0]?.weights === null ? [] : heads.map((h) => ({
          weights: h.weights,
          previousToken: h.previousToken,
          firstToken: h.firstToken,
          induction: h.induction,
        })),
      })),
      next: raw.next.map(tokenOf),
    };
    if (args.lens) result.lens = raw.lens.map((guesses) => guesses.map(tokenOf));
    if (args.attribute !== undefined) {
      // The token is the caller's own `attribute`, or next[0] for 'top'.
      const { heads, mlps, embeddings, biases, logit } = raw.attribution;
      result.attribution = { heads: heads.map((row) => [...row]), mlps: [...mlps], embeddings, biases, logit };
    }
    return result;
  }

  /**
   * Generates after input()'s tokens, a token at a time, until <|endoftext|> (then the last id),
   * `maxNewTokens`, or the context's end: resolves to { ids, tokens, msPerToken, cacheBytes },
   * the new tokens only. Options: { maxNewTokens, temperature = 0 (greedy), topK, seed = 0,
   * cache = true (false: every step reads the whole text again, the panel's comparison), signal,
   * onToken({ id, token, probability, ms, cacheBytes }) }. Between tokens it waits for the next
   * task, so a signal's abort stops it: it then rejects with the signal's reason.
   */
  async generate(input, options) {
    this.#live();
    const checked = generateOptionsOf(optionsOf(options, 'generate', '{ maxNewTokens: 20 }'), argument, { withCache: true });
    return generateTokens({ core: this.#core, handle: this.#handle, disposed: () => this.disposed }, input, checked);
  }

  /** Frees the weights; the model can no longer run. */
  dispose() {
    if (this.#handle === null) return;
    release.unregister(this);
    this.#core.gpt2Free(this.#handle);
    this.#handle = null;
  }

  #live() {
    if (this.#handle === null) fail('this GPT-2 model was disposed');
  }
}

/** A GPT-2 whose weights live in the GPT-2 module's heap. See attention.d.ts (Gpt2Model). */
export class Gpt2Model {
  #flat;

  constructor(flat) {
    this.#flat = flat;
    this.config = flat.config;
  }

  /**
   * Bytes of WebAssembly memory GPT-2's module holds: every open model's weights and the working
   * memory of runs. It never shrinks (WebAssembly memory cannot), so it is also the peak so far.
   */
  get memoryBytes() {
    return this.#flat.memoryBytes;
  }

  /** GPT-2's tokens of `text`: the ids gpt-3-encoder's encode() gives, and each token's text. */
  tokenize(text) {
    this.#live();
    if (typeof text !== 'string') fail(`text must be a string (got ${describe(text)})`);
    return this.#flat.tokenize(text);
  }

  /**
   * The forward pass over `text`: the kept layers' attention weights, each head's roles, the next
   * tokens; with ablate, lens and attribute, the interventions (see FlatGpt2.run).
   */
  run(text, options) {
    this.#live();
    const o = optionsOf(options, 'run', '{ endOfTextFirst: true, layers: [5] }');
    const endOfTextFirst = argument('endOfTextFirst', () => toBoolean(o.endOfTextFirst ?? false, 'endOfTextFirst'));
    // Each option read once, here: a getter of the caller's is not run twice.
    const chosen = {};
    for (const name of ['layers', 'ablate', 'lens', 'attribute']) chosen[name] = argument(name, () => o[name]);
    const result = this.#flat.run(this.#flat.input(text, { endOfTextFirst }), chosen);
    const n = result.ids.length;
    for (const layer of result.layers) {
      for (const head of layer.heads) {
        head.matrix = head.weights;
        rowsWhenRead(head, n);
      }
    }
    return result;
  }

  /**
   * Generates after `text`, greedy unless a temperature is given, with the core's KV cache:
   * resolves to { ids, tokens, msPerToken, cacheBytes }, the new tokens only.
   */
  async generate(text, options) {
    this.#live();
    const o = optionsOf(options, 'generate', '{ maxNewTokens: 20 }');
    const checked = generateOptionsOf(o, argument, { withCache: false });
    const input = this.#flat.input(text, { endOfTextFirst: checked.endOfTextFirst });
    const { onToken } = checked;
    // The token report: { id, token, probability, ms }.
    const report = onToken && (({ id, token, probability, ms }) => onToken({ id, token, probability, ms }));
    return this.#flat.generate(input, { ...checked, cache: true, onToken: report });
  }

  /** Frees the weights; the model can no longer run. */
  dispose() {
    this.#flat.dispose();
  }

  #live() {
    if (this.#flat.disposed) fail('this GPT-2 model was disposed');
  }
}

const tokenOf = ({ id, token, probability }) => ({ id, token, probability });

/**
 * head.weights as Rows, made from head.matrix (n×n, row-major) the first time it is read (then it
 * stays that array, and may be changed or replaced as any property): run() returns 144 heads of n²
 * weights, and building 9.4 million numbers at 256 tokens cost as much as the forward pass itself.
 * One getter a head, not one a row: 144 × n getters on arrays took 17 ms at 64 tokens and 60 ms at
 * 256 in Node 20 on an AMD EPYC. The rows are a plain Array of number[], so indexing, map, for…of,
 * JSON.stringify and structuredClone read them as they read rows.
 */
function rowsWhenRead(head, n) {
  const keep = (rows) => Object.defineProperty(head, 'weights', { value: rows, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(head, 'weights', {
    enumerable: true,
    configurable: true,
    get() {
      const { matrix } = head;
      const rows = Array.from({ length: n }, (_, i) => Array.from(matrix.subarray(i * n, (i + 1) * n)));
      keep(rows);
      return rows;
    },
    set: keep,
  });
}
