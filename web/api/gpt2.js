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
import { argument, describe, fail, optionsOf, unwrap } from './arguments.js';
import { FlatGpt2, Gpt2Model } from './gpt2-model.js';
import { headsOf } from './gpt2-options.js';
import { toSource } from './gpt2-sources.js';
import { fetchBytes, instantiate } from './modules.js';
import { fileUrl } from '../assets.js';

export { FlatGpt2 };

// wasm32's heap ends at 4 GiB (4.29 GB); a model may take 3.5 GB of it, the rest is left to runs
// and the glue.
const MEMORY_LIMIT = 3.5e9;
const MEMORY_LIMIT_WORDS = 'the 3.5 GB of WebAssembly memory a browser tab can give a model';

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
    if (file.readInto) {
      // A synchronous reader (the stored copy): each piece read straight into the staging buffer.
      for (const [begin, end] of ranges) {
        for (let at = begin; at < end; at += stagingBytes) {
          signal?.throwIfAborted();
          const length = Math.min(stagingBytes, end - at);
          const view = core.HEAPU8.subarray(staging, staging + length); // the heap may have grown
          file.readInto(view, at);
          onRead(at, view, size);
          unwrap(core.gpt2Write(handle, at, length));
          loaded += length;
          onProgress(loaded, plan.readBytes);
        }
      }
    } else if (whole) {
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
