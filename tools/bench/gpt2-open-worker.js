// The worker of tools/bench-gpt2-open.mjs: each part of opening GPT-2 from a File, timed on its own,
// in a module worker as the GPT-2 panel's own (web/labs/gpt2-worker.js) runs them.
//   { step, file, build } → { ms, ... }
import { loadGpt2Core, openFlatGpt2 } from '../../web/api/gpt2.js';
import { toSource } from '../../web/api/gpt2-sources.js';
import { forgetStored, openStoredHandle, startKeeping, storedModel } from '../../web/labs/gpt2/gpt2-store.js';

const SLICE = 32 << 20; // the slices gpt2-sources.js reads a File in where it has no byte stream (the panel's way before)
const SENTENCE = 'The cat sat on the mat because it was tired';
let core = null;
let model = null;

const now = () => performance.now();

async function readAll(file, each) {
  const slice = (at) => file.slice(at, Math.min(file.size, at + SLICE)).arrayBuffer();
  let next = slice(0);
  for (let at = 0; at < file.size; at += SLICE) {
    const bytes = new Uint8Array(await next);
    if (at + SLICE < file.size) next = slice(at + SLICE);
    each(at, bytes);
  }
}

const steps = {
  async load({ build }) {
    const t = now();
    core = await loadGpt2Core(new URL('/web/wasm/', location.href), build);
    return { ms: now() - t };
  },
  // The File's bytes alone, in the panel's slices, touched and dropped.
  async read({ file }) {
    const t = now();
    let sum = 0;
    await readAll(file, (at, bytes) => { sum += bytes[bytes.length - 1]; });
    return { ms: now() - t, bytes: file.size, sum };
  },
  // The same, each slice then copied into the wasm heap (as the reader does into its staging buffer).
  async readCopy({ file }) {
    const at0 = core._malloc(SLICE);
    const t = now();
    await readAll(file, (at, bytes) => core.HEAPU8.set(bytes, at0));
    const ms = now() - t;
    core._free(at0);
    return { ms };
  },
  // The File as the panel reads it now (gpt2-sources.js): its byte stream, into one reused buffer.
  async stream({ file }) {
    const t = now();
    let sum = 0;
    await toSource(file).read(0, file.size, (at, bytes) => { sum += bytes[bytes.length - 1]; });
    return { ms: now() - t, sum };
  },
  // openFlatGpt2 as the panel calls it, without keeping a copy: read, staged and converted.
  async open({ file }) {
    model?.dispose();
    const t = now();
    model = await openFlatGpt2({ core: () => Promise.resolve(core) }, file, {});
    return { ms: now() - t };
  },
  // openFlatGpt2 in a worker of its own whose heap was never used: the weights' memory touched
  // for the first time, as in the panel (the steps above reuse the memory of the rounds before).
  async openFresh({ file, build }) {
    core = await loadGpt2Core(new URL('/web/wasm/', location.href), build);
    const t = now();
    model = await openFlatGpt2({ core: () => Promise.resolve(core) }, file, {});
    return { ms: now() - t };
  },
  async firstRun() {
    const t = now();
    const input = model.input(SENTENCE, { endOfTextFirst: false });
    model.run(input, {});
    return { ms: now() - t };
  },
  // The stored copy alone: the File's bytes written to the Origin Private File System.
  async store({ file }) {
    await forgetStored();
    const keeper = await startKeeping({ name: file.name, source: null, config: null });
    const t = now();
    await readAll(file, (at, bytes) => keeper.write(at, bytes, file.size));
    const written = now() - t;
    const kept = await keeper.finish();
    return { ms: now() - t, written, finish: now() - t - written, error: kept.error };
  },
  // What the panel does: open, noting the pieces read, then (once the first heatmaps are up) have
  // the browser write those pieces of the File to storage (keeper.copy).
  async openKeep({ file }) {
    model?.dispose();
    await forgetStored();
    const t = now();
    const keeper = await startKeeping({ name: file.name, source: null, config: null });
    model = await openFlatGpt2({ core: () => Promise.resolve(core) }, file, { onRead: (o, b) => keeper.note(o, b.length) });
    const opened = now() - t;
    await keeper.copy(file);
    const kept = await keeper.finish();
    return { ms: now() - t, opened, error: kept.error };
  },
  // As the panel did before: each piece written to storage as it is read.
  async openWriting({ file }) {
    model?.dispose();
    await forgetStored();
    const t = now();
    const keeper = await startKeeping({ name: file.name, source: null, config: null });
    model = await openFlatGpt2({ core: () => Promise.resolve(core) }, file, { onRead: (o, b, s) => keeper.write(o, b, s) });
    const opened = now() - t;
    const kept = await keeper.finish();
    return { ms: now() - t, opened, error: kept.error };
  },
  // A reload as it was: the stored copy opened as a File, through the File's reader.
  async openStoredFile() {
    model?.dispose();
    const t = now();
    const stored = await storedModel();
    if (!stored) throw new Error('nothing is stored');
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('attention-calc-gpt2');
    const file = await (await dir.getFileHandle(stored.file)).getFile();
    model = await openFlatGpt2({ core: () => Promise.resolve(core) }, file, {});
    return { ms: now() - t };
  },
  // A reload as the panel's worker does it: through the stored file's synchronous access handle,
  // each piece read straight into the core's staging buffer.
  async openStored() {
    model?.dispose();
    const t = now();
    const stored = await storedModel();
    if (!stored) throw new Error('nothing is stored');
    const access = await openStoredHandle(stored);
    try {
      model = await openFlatGpt2({ core: () => Promise.resolve(core) }, access, {});
    } finally {
      access.close();
    }
    return { ms: now() - t };
  },
  // The limit: the whole File read into one ArrayBuffer by the browser (File.arrayBuffer()).
  async plain({ file }) {
    const t = now();
    const buffer = await file.arrayBuffer();
    return { ms: now() - t, bytes: buffer.byteLength };
  },
  async forget() {
    model?.dispose();
    model = null;
    await forgetStored();
    return { ms: 0 };
  },
};

self.onmessage = async ({ data }) => {
  try {
    postMessage({ ok: true, ...(await steps[data.step](data)) });
  } catch (error) {
    postMessage({ ok: false, error: `${error.name}: ${error.message}` });
  }
};
