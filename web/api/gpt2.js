// GPT-2 in the browser, from the learner's own model.safetensors, run by this project's core
// (issue 26). attention.js's attn.openGpt2() loads this module on first use, so no calculator embed
// downloads it; the C++ side is bindings/gpt2.cpp over src/gpt2/. As everywhere in the API, JS
// checks the form of an input and the core its values and limits: the layers, the context, the
// attention weights one run may return.
//
//   const model = await attn.openGpt2(file);        // a File, bytes, or a URL read by HTTP Range
//   model.run('The cat sat on the mat because it was tired').layers[5].heads[1].previousToken;
//
// A file is read in slices, never whole: first its header, which the core checks and turns into a
// plan (the tensors GPT-2 needs, their byte ranges, the memory they take), then only those ranges,
// each chunk copied into the core's staging buffer and converted there into the float32 weights.
// The attn.bias buffers and a tied lm_head are never read, nor fetched.
import { argument, describe, fail, optionsOf, toBoolean, unwrap } from './arguments.js';
import { fetchBytes, instantiate } from './modules.js';
import { fileUrl } from '../assets.js';

const END_OF_TEXT = 50256;
// wasm32's heap ends at 4 GiB (4.29 GB); a model may take 3.5 GB of it, the rest is left to runs
// and the glue.
const MEMORY_LIMIT = 3.5e9;
const MEMORY_LIMIT_WORDS = 'the 3.5 GB of WebAssembly memory a browser tab can give a model';
const MEBIBYTE = 1 << 20;
// The header, read first: safetensors caps it at 100 MB; GPT-2 small's is 15 KB, so one request
// of 64 KB usually holds it.
const HEADER_GUESS = MEBIBYTE >> 4; // 64 KiB
const MAX_HEADER = 100_000_000;

/**
 * GPT-2's module (gpt2-{simd,scalar}.mjs/.wasm) with its tokenizer (gpt2-tokenizer.bin) loaded
 * into it: from the wasm folder `base` when given, else from the asset table (web/assets.js).
 * attention.js loads it once per Attention; the GPT-2 panel's worker (labs/gpt2-worker.js) once
 * per worker.
 * @param {URL | null} base  @param {'simd' | 'scalar'} variant
 */
export async function loadGpt2Core(base, variant) {
  const tokenizerUrl = base ? new URL('gpt2-tokenizer.bin', base) : fileUrl('wasm/gpt2-tokenizer.bin', null);
  const tokenizer = fetchBytes(tokenizerUrl).catch((cause) => {
    throw new Error(`attention-calc: could not load ${tokenizerUrl.href}: ${cause.message}`, { cause });
  });
  const [core, { bytes }] = await Promise.all([instantiate('gpt2', variant, base), tokenizer]);
  unwrap(core.gpt2LoadTokenizer(bytes));
  return core;
}

/**
 * Opens a GPT-2 safetensors file. See attention.d.ts (Attention.openGpt2).
 * @param {{ core: () => Promise<object> }} env  the GPT-2 module with its tokenizer loaded, once per
 *   Attention (attention.js)
 */
export async function openGpt2(env, source, options) {
  return new Gpt2Model(await openFlatGpt2(env, source, options));
}

/**
 * The GPT-2 panel's worker's entry (labs/gpt2-worker.js), not the API's: opens a file as openGpt2
 * does, as a FlatGpt2.
 */
export async function openFlatGpt2(env, source, options) {
  const o = optionsOf(options, 'openGpt2', '{ onProgress(loaded, total) {} }');
  const onProgress = argument('onProgress', () => {
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') fail(`onProgress must be a function (got ${describe(o.onProgress)})`);
    return o.onProgress ?? (() => {});
  });
  const signal = argument('signal', () => {
    if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) fail(`signal must be an AbortSignal (got ${describe(o.signal)})`);
    return o.signal;
  });
  const onRead = argument('onRead', () => {
    if (o.onRead !== undefined && typeof o.onRead !== 'function') fail(`onRead must be a function (got ${describe(o.onRead)})`);
    return o.onRead ?? (() => {});
  });
  const heads = argument('heads', () => headsOf(o));
  const file = argument('source', () => toSource(source));
  signal?.throwIfAborted();

  const core = await env.core();
  signal?.throwIfAborted();
  const { stagingBytes } = core.gpt2Limits();

  const { size, header, whole } = await file.header(signal);
  const plan = unwrap(core.gpt2Plan({ header, fileSize: size, heads: heads.value, headsName: heads.name, memoryLimit: MEMORY_LIMIT, memoryLimitWords: MEMORY_LIMIT_WORDS }));
  const { handle } = plan;
  try {
    // The file's first bytes as they are on disk: the header's length, then the header.
    const start = new Uint8Array(8 + header.length);
    new DataView(start.buffer).setBigUint64(0, BigInt(header.length), true);
    start.set(header, 8);
    onRead(0, start, size);
    const staging = core.gpt2Staging(handle);
    if (!staging) throw new Error('out of memory: this page could not set aside the buffer to read the file through');
    let loaded = 0;
    onProgress(0, plan.readBytes);
    // Copies `bytes` (the file's, from `offset` on) into the core, a staging buffer at a time.
    const feed = (offset, bytes) => {
      onRead(offset, bytes, size);
      for (let at = 0; at < bytes.length; at += stagingBytes) {
        const part = bytes.subarray(at, at + stagingBytes);
        core.HEAPU8.set(part, staging); // HEAPU8 is read each time: the heap may have grown
        unwrap(core.gpt2Write(handle, offset + at, part.length));
      }
    };
    const ranges = [];
    for (let i = 0; i < plan.ranges.length; i += 2) ranges.push([plan.ranges[i], plan.ranges[i + 1]]);
    if (whole) {
      // A server that ignored Range: the whole file, fed as it arrives (the core keeps only the
      // tensors' bytes), with progress over the tensors' bytes as they pass.
      await whole((offset, bytes) => {
        feed(offset, bytes);
        loaded += overlap(ranges, offset, offset + bytes.length);
        onProgress(loaded, plan.readBytes);
      }, signal);
    } else {
      for (const [begin, end] of ranges) {
        await file.read(begin, end, (offset, bytes) => {
          feed(offset, bytes);
          loaded += bytes.length;
          onProgress(loaded, plan.readBytes);
        }, signal);
      }
    }
    unwrap(core.gpt2Finish(handle));
    return new FlatGpt2(core, handle, plan.config);
  } catch (error) {
    core.gpt2Free(handle);
    throw error;
  }
}

// Bytes of [begin, end) inside the ranges.
function overlap(ranges, begin, end) {
  let bytes = 0;
  for (const [b, e] of ranges) bytes += Math.max(0, Math.min(end, e) - Math.max(begin, b));
  return bytes;
}

// options.heads, else config.json's n_head, else 0 (the core's d_model / 64), with the name a
// message gives it. Its form is checked here; how many heads a model may have, by the core.
function headsOf(o) {
  if (o.config !== undefined && (o.config === null || typeof o.config !== 'object')) {
    fail(`config must be a parsed config.json object (got ${describe(o.config)})`);
  }
  const value = o.heads ?? o.config?.n_head ?? 0;
  const name = o.heads !== undefined ? 'heads' : 'config.n_head';
  if (!Number.isSafeInteger(value) || value < 0) fail(`${name} must be a whole number of heads (got ${describe(value)})`);
  return { value, name };
}

const isBlob = (value) => typeof Blob !== 'undefined' && value instanceof Blob;

// A source as { name, header(signal), read(begin, end, onChunk, signal) }; header() resolves to
// { size, header: the JSON bytes, whole?: a reader of the whole file when a server ignored Range }.
function toSource(source) {
  if (isBlob(source)) return blobSource(source);
  if (source instanceof ArrayBuffer) return bytesSource(new Uint8Array(source));
  if (source instanceof Uint8Array) return bytesSource(source);
  if (typeof source === 'string' || source instanceof URL) {
    let url;
    try {
      url = new URL(source, typeof location === 'undefined' ? undefined : location.href);
    } catch {
      fail(`source is not a valid URL (got ${describe(String(source))})`);
    }
    return urlSource(url);
  }
  fail(`source must be a File or Blob, an ArrayBuffer, a Uint8Array, or a URL of a model.safetensors (got ${describe(source)})`);
}

// The header's length: the first 8 bytes, little-endian; checked against the file's size here, so
// that no request asks for bytes past its end.
function headerLength(first8, size) {
  if (size < 8) throw new Error(`this file is not a safetensors file: it is ${size} bytes long, shorter than the 8 bytes that say how long its header is`);
  const length = Number(new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true));
  if (length > MAX_HEADER) throw new Error(`this file is not a safetensors file: its first 8 bytes give a header of ${length.toLocaleString('en-US')} bytes, more than the format's 100 MB`);
  if (8 + length > size) throw new Error(`this file is not a safetensors file, or it is cut short: its header should be ${length.toLocaleString('en-US')} bytes, but the file ends ${(size - 8).toLocaleString('en-US')} bytes after the length`);
  return length;
}

// A byte array is handed to the core in slices of 16 MiB, so that an abort stops within one.
const BYTES_SLICE = 1 << 24;
// The answers a Range request may get: the range asked for, or the whole file from a server
// that ignores Range.
const HTTP_PARTIAL_CONTENT = 206;
const HTTP_OK = 200;

// Bytes after the header that the header's tensors span (the largest end of their data_offsets);
// 0 for a header that is not JSON, which the core then refuses in its own words.
function dataLength(header) {
  let parsed;
  try {
    parsed = JSON.parse(new TextDecoder().decode(header));
  } catch {
    return 0;
  }
  let end = 0;
  for (const [name, tensor] of Object.entries(parsed ?? {})) {
    const stop = name === '__metadata__' ? 0 : Number(tensor?.data_offsets?.[1]);
    if (Number.isSafeInteger(stop) && stop > end) end = stop;
  }
  return end;
}

function bytesSource(bytes) {
  return {
    async header() {
      const length = headerLength(bytes.subarray(0, 8), bytes.length);
      return { size: bytes.length, header: bytes.slice(8, 8 + length) };
    },
    async read(begin, end, onChunk, signal) {
      for (let at = begin; at < end; at += BYTES_SLICE) {
        signal?.throwIfAborted();
        onChunk(at, bytes.subarray(at, Math.min(end, at + BYTES_SLICE)));
      }
    },
  };
}

// A File's slices, read one after another: the file never sits in memory whole.
function blobSource(blob) {
  const bytesOf = async (begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer());
  return {
    async header() {
      const length = headerLength(await bytesOf(0, 8), blob.size);
      return { size: blob.size, header: await bytesOf(8, 8 + length) };
    },
    async read(begin, end, onChunk, signal) {
      for (let at = begin; at < end; at += 8 * MEBIBYTE) {
        signal?.throwIfAborted();
        const stop = Math.min(end, at + 8 * MEBIBYTE);
        const bytes = await bytesOf(at, stop);
        if (bytes.length !== stop - at) throw new Error(`the file changed or could not be read: ${stop - at} bytes asked for at byte ${at}, ${bytes.length} read`);
        onChunk(at, bytes);
      }
    },
  };
}

// A hosted file, by HTTP Range requests: the header, then each run of needed tensors as one
// request, its body streamed in. A server that ignores Range sends the whole file to the first
// request: it is then read from that one download.
function urlSource(url) {
  const where = url.href;
  const request = async (begin, end, signal) => {
    let response;
    try {
      response = await fetch(url, { headers: { Range: `bytes=${begin}-${end - 1}` }, signal, credentials: 'same-origin' });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new Error(`could not read ${where}: the request for bytes ${begin}–${end - 1} failed (${error.message})`, { cause: error });
    }
    if (response.status !== HTTP_PARTIAL_CONTENT && response.status !== HTTP_OK) {
      throw new Error(`could not read ${where}: the request for bytes ${begin}–${end - 1} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    }
    return response;
  };
  // Streams a response's body to onChunk(offset, bytes), from `offset` on.
  const stream = async (response, offset, onChunk, signal, expected) => {
    const reader = response.body.getReader();
    let at = offset;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        signal?.throwIfAborted();
        onChunk(at, value);
        at += value.length;
      }
    } catch (error) {
      reader.cancel().catch(() => {});
      if (signal?.aborted) throw signal.reason;
      if (error instanceof Error && !(error instanceof TypeError)) throw error;
      throw new Error(`could not read ${where}: the download stopped at byte ${at} (${error.message})`, { cause: error });
    }
    if (expected !== undefined && at !== expected) throw new Error(`could not read ${where}: the download ended at byte ${at}, before byte ${expected}`);
  };
  return {
    async header(signal) {
      const first = await request(0, HEADER_GUESS, signal);
      if (first.status === HTTP_OK) return wholeFile(first);
      const size = totalOf(first);
      const head = new Uint8Array(await first.arrayBuffer());
      const length = headerLength(head.subarray(0, 8), size);
      if (8 + length <= head.length) return { size, header: head.slice(8, 8 + length) };
      const rest = await request(head.length, 8 + length, signal);
      const tail = new Uint8Array(await rest.arrayBuffer());
      const header = new Uint8Array(length);
      header.set(head.subarray(8));
      header.set(tail.subarray(0, length - (head.length - 8)), head.length - 8);
      return { size, header };
    },
    // A run of tensors in requests of at most 4 MB: an abort stops within one, and no single
    // request holds a large tensor (wte is 154 MB).
    async read(begin, end, onChunk, signal) {
      for (let at = begin; at < end; at += 4 * MEBIBYTE) {
        const stop = Math.min(end, at + 4 * MEBIBYTE);
        const response = await request(at, stop, signal);
        if (response.status !== HTTP_PARTIAL_CONTENT) throw new Error(`could not read ${where}: the server answered a request for bytes ${at}–${stop - 1} with the whole file`);
        await stream(response, at, onChunk, signal, stop);
      }
    },
  };

  // "Content-Range: bytes 0-65535/548105232" → 548105232
  function totalOf(response) {
    const total = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '')?.[1];
    if (total === undefined) throw new Error(`could not read ${where}: the server's answer to a range request does not say how long the file is (no Content-Range total)`);
    return Number(total);
  }

  // The whole file in one response: the header is read from its start, the rest is streamed on
  // to the core by whole().
  async function wholeFile(response) {
    const size = Number(response.headers.get('content-length') ?? NaN);
    const reader = response.body.getReader();
    let buffered = new Uint8Array(0);
    const take = async (length) => {
      while (buffered.length < length) {
        const { done, value } = await reader.read();
        if (done) break;
        const joined = new Uint8Array(buffered.length + value.length);
        joined.set(buffered);
        joined.set(value, buffered.length);
        buffered = joined;
      }
    };
    await take(8);
    const length = headerLength(buffered.subarray(0, 8), Number.isFinite(size) ? size : Infinity);
    await take(8 + length);
    if (buffered.length < 8 + length) throw new Error(`could not read ${where}: the file ends inside its header`);
    const header = buffered.slice(8, 8 + length);
    // A server that sends no Content-Length (chunked, as tools/serve.mjs does): the file ends
    // where its header says the last tensor ends, and the download is held to that.
    const known = Number.isFinite(size) ? size : 8 + length + dataLength(header);
    return {
      size: known,
      header,
      async whole(onChunk, signal) {
        onChunk(0, buffered);
        const rest = new Response(new ReadableStream({ pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) controller.close(); else controller.enqueue(value);
        } }));
        await stream(rest, buffered.length, onChunk, signal, known);
      },
    };
  }
}

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
   * every layer), each head's roles, the next tokens. The core checks the layers, the context and
   * how many weights one run returns.
   */
  run({ ids, tokens, endOfTextFirst }, { layers }) {
    this.#live();
    const raw = unwrap(this.#core.gpt2Run(this.#handle, { ids: Int32Array.from(ids), endOfTextFirst, layers }));
    return {
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
      next: raw.next.map(({ id, token, probability }) => ({ id, token, probability })),
    };
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
class Gpt2Model {
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

  /** The forward pass over `text`: the kept layers' attention weights, each head's roles, the next tokens. */
  run(text, options) {
    this.#live();
    const o = optionsOf(options, 'run', '{ endOfTextFirst: true, layers: [5] }');
    const endOfTextFirst = argument('endOfTextFirst', () => toBoolean(o.endOfTextFirst ?? false, 'endOfTextFirst'));
    const layers = argument('layers', () => layersOf(o.layers, this.config.layers));
    const result = this.#flat.run(this.#flat.input(text, { endOfTextFirst }), { layers });
    const n = result.ids.length;
    for (const layer of result.layers) for (const head of layer.heads) head.weights = toRows(head.weights, n);
    return result;
  }

  /** Frees the weights; the model can no longer run. */
  dispose() {
    this.#flat.dispose();
  }

  #live() {
    if (this.#flat.disposed) fail('this GPT-2 model was disposed');
  }
}

// options.layers: undefined (every layer), or an array of layer numbers. JS checks their form, the
// core that each is one of the model's layers; the two refusals read alike.
function layersOf(layers, count) {
  if (layers === undefined) return undefined;
  if (!Array.isArray(layers)) fail(`layers must be an array of layer numbers from 0 to ${count - 1} (got ${describe(layers)})`);
  for (const l of layers) {
    if (!Number.isSafeInteger(l) || l < 0) fail(`layers holds ${describe(l)}: GPT-2's layers here are numbered 0 to ${count - 1}`);
  }
  return [...layers];
}

function toRows(flat, n) {
  const rows = new Array(n);
  for (let i = 0; i < n; i++) rows[i] = Array.from(flat.subarray(i * n, (i + 1) * n));
  return rows;
}
