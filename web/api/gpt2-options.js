// The form of GPT-2's options (gpt2.js's openGpt2, gpt2-model.js's run and generate): JS checks
// that each is the right kind of value, the core its range (a layer or head of this model, a
// token of its vocabulary, maxNewTokens ≥ 1, the temperature, topK and seed), in words that read
// alike: both name the argument and show the value as given.
import { describe, fail, toBoolean } from './arguments.js';

const ABLATIONS = ['zero', 'mean'];
const ABLATE_EXAMPLE = "[{ layer: 5, head: 1, mode: 'zero' }]";

// options.heads, else config.json's n_head, else 0 (the core's d_model / 64), with the name a
// message gives it. Its form is checked here; how many heads a model may have, by the core.
export function headsOf(o) {
  if (o.config !== undefined && (o.config === null || typeof o.config !== 'object')) {
    fail(`config must be a parsed config.json object (got ${describe(o.config)})`);
  }
  const value = o.heads ?? o.config?.n_head ?? 0;
  const name = o.heads !== undefined ? 'heads' : 'config.n_head';
  if (!Number.isSafeInteger(value) || value < 0) fail(`${name} must be a whole number of heads (got ${describe(value)})`);
  return { value, name };
}

// options.layers: undefined (every layer), or an array of layer numbers. JS checks their form, the
// core that each is one of the model's layers; the two refusals read alike.
export function layersOf(layers, count) {
  if (layers === undefined) return undefined;
  if (!Array.isArray(layers)) fail(`layers must be an array of layer numbers from 0 to ${count - 1} (got ${describe(layers)})`);
  for (const l of layers) {
    if (!Number.isSafeInteger(l) || l < 0) fail(`layers holds ${describe(l)}: GPT-2's layers here are numbered 0 to ${count - 1}`);
  }
  return [...layers];
}

// options.ablate: undefined (no head switched off), or [{ layer, head, mode? }] with mode 'zero'
// (the default) or 'mean'. Returns fresh entries with the mode filled, as the core reads them.
// The core refuses a layer or head out of range and a head named twice, in the same words as
// here: "ablate holds layer L head H: …".
export function ablateOf(ablate, config) {
  if (ablate === undefined) return undefined;
  if (!Array.isArray(ablate)) fail(`ablate must be an array of heads to switch off, such as ${ABLATE_EXAMPLE} (got ${describe(ablate)})`);
  return ablate.map((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      fail(`ablate[${i}] must be a head to switch off, such as { layer: 5, head: 1 } (got ${describe(entry)})`);
    }
    const { layer, head, mode = 'zero' } = entry;
    const named = `ablate holds layer ${describe(layer)} head ${describe(head)}`;
    if (!Number.isSafeInteger(layer) || layer < 0) fail(`${named}: GPT-2's layers here are numbered 0 to ${config.layers - 1}`);
    if (!Number.isSafeInteger(head) || head < 0) fail(`${named}: each layer's heads here are numbered 0 to ${config.heads - 1}`);
    if (!ABLATIONS.includes(mode)) fail(`${named} with mode ${describe(mode)}: mode must be 'zero' or 'mean'`);
    return { layer, head, mode };
  });
}

// options.lens: undefined (false) or a boolean.
export const lensOf = (lens) => (lens === undefined ? false : toBoolean(lens, 'lens'));

// options.attribute: undefined, a token id whose logit is attributed, or 'top': the run's own
// likeliest next token (next[0]), found in the same pass. The core checks that the vocabulary
// holds the id.
export function attributeOf(attribute, config) {
  if (attribute === undefined || attribute === 'top') return attribute;
  if (!Number.isSafeInteger(attribute) || attribute < 0) {
    fail(`attribute must be a token id, a whole number from 0 to ${(config.vocabSize - 1).toLocaleString('en-US')}, or 'top' (got ${describe(attribute)})`);
  }
  return attribute;
}

// A count or a seed whose range the core checks: its form is a whole number.
function wholeOf(value, name, what) {
  if (!Number.isSafeInteger(value) || value < 0) fail(`${name} must be a whole number${what} (got ${describe(value)})`);
  return value;
}

/**
 * generate()'s options, their form checked and their defaults filled: { maxNewTokens,
 * endOfTextFirst, temperature, topK, seed, signal, onToken } and, with `withCache` (FlatGpt2's),
 * cache. `read(name, convert)` reads one option (arguments.js's argument, which names it).
 */
export function generateOptionsOf(o, read, { withCache }) {
  const options = {
    maxNewTokens: read('maxNewTokens', () => {
      if (o.maxNewTokens === undefined) fail('generate needs maxNewTokens, the number of tokens to generate, such as { maxNewTokens: 20 }');
      return wholeOf(o.maxNewTokens, 'maxNewTokens', ' of tokens to generate');
    }),
    endOfTextFirst: read('endOfTextFirst', () => toBoolean(o.endOfTextFirst ?? false, 'endOfTextFirst')),
    temperature: read('temperature', () => {
      const t = o.temperature ?? 0;
      if (typeof t !== 'number' || !Number.isFinite(t)) fail(`temperature must be a finite number, 0 (greedy) or more (got ${describe(t)})`);
      return t;
    }),
    // undefined: the whole vocabulary (the core's default).
    topK: read('topK', () => (o.topK === undefined ? undefined : wholeOf(o.topK, 'topK', ' of tokens to sample from'))),
    seed: read('seed', () => wholeOf(o.seed ?? 0, 'seed', '')),
    signal: read('signal', () => {
      if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) fail(`signal must be an AbortSignal (got ${describe(o.signal)})`);
      return o.signal;
    }),
    onToken: read('onToken', () => {
      if (o.onToken !== undefined && typeof o.onToken !== 'function') fail(`onToken must be a function (got ${describe(o.onToken)})`);
      return o.onToken;
    }),
  };
  if (withCache) options.cache = read('cache', () => toBoolean(o.cache ?? true, 'cache'));
  return options;
}
