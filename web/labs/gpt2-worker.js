// The GPT-2 panel's module worker: GPT-2's module, the open model and its runs live here, never on
// the page's thread, where reading 498 MB of weights and a forward pass (about 90 ms for the
// lesson's sentence) would hold up every keystroke. It also keeps the open model in the Origin
// Private File System (gpt2-store.js), so that a reload opens it without the file or the network.
//
// Messages in:  { id, type, ... } answered by { id, value } or { id, error: { name, message } }:
//   open { baseUrl?, build, source (File | ArrayBuffer | URL string), name, config?, keep }
//        (baseUrl: the wasm folder under an author's base URL; else the worker's asset table)
//        → { config, memoryBytes, kept }   with { id, progress: [loaded, total] } on the way;
//        kept is { pending: true } while the copy is still being finished, then { kept } follows
//        (no id): { bytes, meta }, or { error } when nothing could be kept
//   openStored { baseUrl, build } → the same, or null when nothing is stored
//   stored → the stored model's description, or null;   forget → bytes freed
//   run { text, endOfTextFirst, layer, ablate?, lens?, attribute? } → a run: every head's scores,
//        the layer's weights (the last run is kept: asked again for another of its layers, it is
//        not run again); with ablate ([{ layer, head, mode }]) those heads switched off, and
//        baseNext, the next tokens without them; with lens, the logit lens; with attribute (a
//        token id, or 'top': the run's likeliest next token) its direct logit attribution
//   token { text } → { id, token }: the one token a text is (refused when it is more or none)
//   generate { text, endOfTextFirst, maxNewTokens, temperature, topK, seed, cache }
//        → { ids, tokens, msPerToken, cacheBytes }, with { id, token: { id, token, probability,
//        ms, cacheBytes } } after each new token
//   { abort: id } stops that open's reads, or that generation.
import { loadGpt2Core, openFlatGpt2 } from '../api/gpt2.js';
import { forgetStored, openStoredHandle, startKeeping, storedModel } from './gpt2/gpt2-store.js';


let core = null;     // Promise of GPT-2's module, once asked for
let model = null;    // the open FlatGpt2 (api/gpt2.js): its runs give flat weights
const aborts = new Map(); // open's id → its AbortController

const post = (message, transfer) => self.postMessage(message, transfer ?? []);

// The copy the last open kept, finished once the first run after the open has answered, so that
// the first heatmaps come first: a File is copied then, its pieces the open read (writing its
// 548 MB into storage while reading it held the first heatmaps back by about 1.4 s), a download was
// written as it came; then flushed, described, the older copy deleted. { kept } tells the page.
// Runs, tokens and generation do not wait for it; a look at the storage does, and a new open or
// Forget stops it.
let keptLater = null; // { keeper, file }: the copy to finish, once started
let keeping = null;   // { abort, done }: the copy being finished
function finishKeeping() {
  if (keptLater) {
    const { keeper, file } = keptLater;
    keptLater = null;
    const abort = new AbortController();
    const done = (async () => {
      try {
        if (file) await keeper.copy(file, abort.signal);
      } catch (error) {
        await keeper.abandon();
        if (!abort.signal.aborted) post({ kept: { error: `the file could not be read again to keep it (${error.message})` } });
        return;
      }
      post({ kept: await keeper.finish() });
    })().finally(() => { keeping = null; });
    keeping = { abort, done };
  }
  return keeping?.done ?? Promise.resolve();
}

// The copy dropped: a new open keeps its own, a forget wants none.
function stopKeeping() {
  const later = keptLater;
  keptLater = null;
  keeping?.abort.abort();
  return Promise.all([later?.keeper.abandon(), keeping?.done]);
}

const NOT_WAITING = new Set(['run', 'token', 'generate']);

self.onmessage = ({ data }) => {
  if (data.abort !== undefined) {
    aborts.get(data.abort)?.abort(new DOMException('Loading stopped', 'AbortError'));
    return;
  }
  // Opens run alongside runs, so a run answers while a new file is read.
  let ready;
  if (NOT_WAITING.has(data.type)) ready = Promise.resolve();
  else if (data.type === 'open' || data.type === 'forget') ready = stopKeeping();
  else ready = finishKeeping();
  ready.then(() => handle(data)).then(
    ({ value, transfer }) => post({ id: data.id, value }, transfer),
    (error) => post({ id: data.id, error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) } }),
  ).then(() => {
    // A run answered, with heatmaps or with why there are none (an empty text, say): a copy that
    // waits for the first run may start.
    if (data.type === 'run') setTimeout(finishKeeping);
  });
};

async function handle(message) {
  switch (message.type) {
    case 'open': return { value: await open(message, message.source, { keep: message.keep, name: message.name }) };
    case 'openStored': {
      const stored = await storedModel();
      if (!stored) return { value: null };
      const access = await openStoredHandle(stored);
      try {
        return { value: { ...(await open({ ...message, config: stored.config ?? undefined }, access, { keep: false, name: stored.name })), stored } };
      } finally {
        access.close();
      }
    }
    case 'stored': return { value: await storedModel() };
    case 'forget': return { value: await forgetStored() };
    case 'run': return run(message);
    case 'token': return { value: token(message) };
    case 'generate': return { value: await generate(message) };
    default: throw new Error(`unknown message ${message.type}`);
  }
}

// Progress to the page at most every 50 ms and at the end: the reader reports every megabyte.
let progressAt = 0;
function progress(id, loaded, total) {
  const now = performance.now();
  if (loaded < total && loaded > 0 && now - progressAt < 50) return;
  progressAt = now;
  post({ id, progress: [loaded, total] });
}

async function open({ id, baseUrl, build, config }, source, { keep, name }) {
  const abort = new AbortController();
  aborts.set(id, abort);
  let keeper = null;
  try {
    core ??= loadGpt2Core(baseUrl ? new URL(baseUrl) : null, build).catch((error) => {
      core = null; // a failed load can be tried again
      throw error;
    });
    const env = { core: () => core };
    if (keep) keeper = await startKeeping({ name, source: typeof source === 'string' ? source : null, config });
    // A File is copied once the first heatmaps are shown (finishKeeping): now only its pieces are noted.
    const file = keeper && typeof Blob !== 'undefined' && source instanceof Blob ? source : null;
    const opened = await openFlatGpt2(env, source, {
      signal: abort.signal,
      config,
      onProgress: (loaded, total) => progress(id, loaded, total),
      onRead: keeper ? (offset, bytes, size) => (file ? keeper.note(offset, bytes.length) : keeper.write(offset, bytes, size)) : undefined,
    });
    // The new model replaces the open one only once it is whole: a failed open keeps the last.
    model?.dispose();
    model = opened;
    runs.last = runs.base = null;
    // Finished after the first run (above), or in 10 s if none comes (a page that never runs the
    // model); a storage that failed is said now.
    let kept = null;
    if (keeper?.failed) {
      kept = await keeper.finish();
    } else if (keeper) {
      kept = { pending: true };
      keptLater = { keeper, file };
      setTimeout(finishKeeping, 10_000);
    }
    keeper = null;
    return { config: { ...model.config }, memoryBytes: model.memoryBytes, kept };
  } finally {
    aborts.delete(id);
    await keeper?.abandon();
  }
}

function live() {
  if (!model) throw new Error('no GPT-2 model is open');
  return model;
}

// Runs the text: every layer's weights when they fit in one run (the core's maxKeptWeights), so
// that the all-heads grid and the lesson's check can search the whole model, else only the shown
// layer's. The text is tokenized once, and its tokens decide which. The runs asked with the same
// text and options are kept: the last, and the last without a head switched off (its next tokens
// are what an ablation is compared with).
const runs = { last: null, base: null };
const keyOf = (o) => JSON.stringify([o.text, o.endOfTextFirst, o.ablate ?? [], Boolean(o.lens), o.attribute ?? null]);

function runOnce(m, { text, endOfTextFirst, layer, ablate, lens, attribute }) {
  const key = keyOf({ text, endOfTextFirst, ablate, lens, attribute });
  for (const k of [runs.last, runs.base]) {
    if (k?.model === m && k.key === key && k.result.layers[layer]?.heads.length) return k.result;
  }
  const { layers, heads, context } = m.config;
  const input = m.input(text, { endOfTextFirst });
  const n = input.ids.length;
  const all = layers * heads * n * n <= m.limits.maxKeptWeights && n <= context;
  const result = m.run(input, { layers: all ? undefined : [layer], ablate: ablate?.length ? ablate : undefined, lens: lens || undefined, attribute });
  runs.last = { model: m, key, result };
  if (!ablate?.length) runs.base = { ...runs.last, text, endOfTextFirst };
  return result;
}

// The next tokens of the text with every head at work: kept from the last such run, or run now
// (no weights kept: only its next tokens are wanted).
function baseline(m, { text, endOfTextFirst }) {
  const b = runs.base;
  if (b?.model === m && b.text === text && b.endOfTextFirst === endOfTextFirst) return b.result.next;
  const result = m.run(m.input(text, { endOfTextFirst }), { layers: [] });
  // Kept for the next run of this text with heads switched off; runOnce never takes it for a run
  // that shows weights, as it holds none.
  runs.base = { model: m, key: null, result, text, endOfTextFirst };
  return result.next;
}

function run({ text, endOfTextFirst, layer, ablate, lens, attribute }) {
  const m = live();
  // 'top' attributes the run's own likeliest next token, in the same pass.
  const result = runOnce(m, { text, endOfTextFirst, layer, ablate, lens, attribute: attribute ?? undefined });
  const attributed = attribute === 'top' ? result.next[0]?.id : attribute;
  const baseNext = ablate?.length ? baseline(m, { text, endOfTextFirst }) : undefined;
  const shown = withWeights(result, layer);
  return {
    value: {
      ids: result.ids,
      tokens: result.tokens,
      next: result.next,
      baseNext,
      lens: result.lens,
      attribution: result.attribution && { ...result.attribution, id: attributed },
      // Every run layer's scores; the weights travel only for the layer shown.
      scores: result.layers.map(({ heads: hs }) => hs.map(({ previousToken, firstToken, induction }) => ({ previousToken, firstToken, induction }))),
      layer: shown.value,
      memoryBytes: m.memoryBytes,
    },
    transfer: shown.transfer,
  };
}

// The one token a text is, for "who wrote the answer" on a token the learner types.
function token({ text }) {
  const m = live();
  // Tokenized as it is: " " and "\n" are tokens of their own (220 and 198).
  const { ids, tokens } = text === '' ? { ids: [], tokens: [] } : m.tokenize(text);
  if (ids.length !== 1) {
    throw new Error(ids.length === 0
      ? 'type a token: the box is empty'
      : `“${text}” is ${ids.length} tokens for GPT-2 (${tokens.map((t) => JSON.stringify(t)).join(', ')}): type one of them, with its leading space if it has one`);
  }
  return { id: ids[0], token: tokens[0] };
}

// Generates after the text, each token sent to the page as it comes; { abort: id } stops it.
async function generate({ id, text, endOfTextFirst, maxNewTokens, temperature, topK, seed, cache }) {
  const m = live();
  const abort = new AbortController();
  aborts.set(id, abort);
  try {
    return await m.generate(m.input(text, { endOfTextFirst }), {
      maxNewTokens, temperature, topK, seed, cache, signal: abort.signal,
      onToken: (t) => post({ id, token: t }),
    });
  } finally {
    aborts.delete(id);
  }
}

// One layer's heads, each head's n×n weights in one Float32Array: a copy of the kept run's (which
// stays whole for the next layer asked), moved to the page.
function withWeights(result, layer) {
  const n = result.ids.length;
  const heads = result.layers[layer].heads.map((head) => ({
    previousToken: head.previousToken, firstToken: head.firstToken, induction: head.induction, weights: head.weights.slice(),
  }));
  return { value: { layer, n, heads }, transfer: heads.map((h) => h.weights.buffer) };
}
