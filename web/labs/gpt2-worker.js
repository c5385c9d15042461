// The GPT-2 panel's module worker: GPT-2's module, the open model and its runs live here, never on
// the page's thread, where reading 498 MB of weights and a forward pass (about 90 ms for the
// lesson's sentence) would hold up every keystroke. It also keeps the open model in the Origin
// Private File System (gpt2-store.js), so that a reload opens it without the file or the network.
//
// Messages in:  { id, type, ... } answered by { id, value } or { id, error: { name, message } }:
//   open { baseUrl?, simd, source (File | ArrayBuffer | URL string), name, config?, keep }
//        (baseUrl: the wasm folder under an author's base URL; else the worker's asset table)
//        → { config, memoryBytes, kept }   with { id, progress: [loaded, total] } on the way
//   openStored { baseUrl, simd } → the same, or null when nothing is stored
//   stored → the stored model's description, or null;   forget → bytes freed
//   run { text, endOfTextFirst, layer } → a run: every head's scores, the layer's weights (the
//        last run is kept: asked again for another of its layers, it is not run again)
//   { abort: id } stops that open's reads.
import { loadGpt2Core, openFlatGpt2 } from '../api/gpt2.js';
import { forgetStored, openStoredFile, startKeeping, storedModel } from './gpt2/gpt2-store.js';


let core = null;     // Promise of GPT-2's module, once asked for
let model = null;    // the open FlatGpt2 (api/gpt2.js): its runs give flat weights
let last = null;     // the last run, with the options it was run with
const aborts = new Map(); // open's id → its AbortController

const post = (message, transfer) => self.postMessage(message, transfer ?? []);

self.onmessage = ({ data }) => {
  if (data.abort !== undefined) {
    aborts.get(data.abort)?.abort(new DOMException('Loading stopped', 'AbortError'));
    return;
  }
  // Opens run alongside runs, so a run answers while a new file is read.
  handle(data).then(
    ({ value, transfer }) => post({ id: data.id, value }, transfer),
    (error) => post({ id: data.id, error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) } }),
  );
};

async function handle(message) {
  switch (message.type) {
    case 'open': return { value: await open(message, message.source, { keep: message.keep, name: message.name }) };
    case 'openStored': {
      const stored = await storedModel();
      if (!stored) return { value: null };
      const file = await openStoredFile(stored);
      return { value: { ...(await open({ ...message, config: stored.config ?? undefined }, file, { keep: false, name: stored.name })), stored } };
    }
    case 'stored': return { value: await storedModel() };
    case 'forget': return { value: await forgetStored() };
    case 'run': return run(message);
    default: throw new Error(`unknown message ${message.type}`);
  }
}

async function open({ id, baseUrl, simd, config }, source, { keep, name }) {
  const abort = new AbortController();
  aborts.set(id, abort);
  let keeper = null;
  try {
    core ??= loadGpt2Core(baseUrl ? new URL(baseUrl) : null, simd ? 'simd' : 'scalar').catch((error) => {
      core = null; // a failed load can be tried again
      throw error;
    });
    const env = { core: () => core };
    if (keep) keeper = await startKeeping({ name, source: typeof source === 'string' ? source : null, config });
    const opened = await openFlatGpt2(env, source, {
      signal: abort.signal,
      config,
      onProgress: (loaded, total) => post({ id, progress: [loaded, total] }),
      onRead: keeper ? (offset, bytes, size) => keeper.write(offset, bytes, size) : undefined,
    });
    // The new model replaces the open one only once it is whole: a failed open keeps the last.
    model?.dispose();
    model = opened;
    last = null;
    const kept = keeper ? await keeper.finish() : null;
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
// layer's. The text is tokenized once, and its tokens decide which.
function run({ text, endOfTextFirst, layer }) {
  const m = live();
  let result;
  if (last?.model === m && last.text === text && last.endOfTextFirst === endOfTextFirst && last.result.layers[layer]?.heads.length) {
    result = last.result;
  } else {
    const { layers, heads, context } = m.config;
    const input = m.input(text, { endOfTextFirst });
    const n = input.ids.length;
    const all = layers * heads * n * n <= m.limits.maxKeptWeights && n <= context;
    result = m.run(input, { layers: all ? undefined : [layer] });
    last = { model: m, text, endOfTextFirst, result };
  }
  const shown = withWeights(result, layer);
  return {
    value: {
      ids: result.ids,
      tokens: result.tokens,
      next: result.next,
      // Every run layer's scores; the weights travel only for the layer shown.
      scores: result.layers.map(({ heads: hs }) => hs.map(({ previousToken, firstToken, induction }) => ({ previousToken, firstToken, induction }))),
      layer: shown.value,
      memoryBytes: m.memoryBytes,
    },
    transfer: shown.transfer,
  };
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
