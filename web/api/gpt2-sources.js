// The files a GPT-2 is opened from (gpt2.js's openFlatGpt2): a File or Blob read in slices, bytes,
// or a URL read by HTTP Range requests, each as a source that gives the header first, then the
// byte ranges the core's plan asks for. Nothing here knows GPT-2: only safetensors' first 8 bytes.
import { describe, fail } from './arguments.js';

const MEBIBYTE = 1 << 20;
// The header, read first: safetensors caps it at 100 MB; GPT-2 small's is 15 KB, so one request
// of 64 KB usually holds it.
const HEADER_GUESS = MEBIBYTE >> 4; // 64 KiB
const MAX_HEADER = 100_000_000;

const isBlob = (value) => typeof Blob !== 'undefined' && value instanceof Blob;
const isSyncHandle = (value) => typeof FileSystemSyncAccessHandle !== 'undefined' && value instanceof FileSystemSyncAccessHandle;

// A source as { name, header(signal), read(begin, end, onChunk, signal) }; header() resolves to
// { size, header: the JSON bytes, whole?: a reader of the whole file when a server ignored Range }.
// A source that reads synchronously into a given view (a FileSystemSyncAccessHandle, in a worker)
// has readInto(view, at) instead of read: gpt2.js then reads into the core's buffer itself.
export function toSource(source) {
  if (isSyncHandle(source)) return syncHandleSource(source);
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
  fail(`source must be a File or Blob, an ArrayBuffer, a Uint8Array, a URL of a model.safetensors, or a FileSystemSyncAccessHandle (got ${describe(source)})`);
}

// The header's length: the first 8 bytes, little-endian; checked against the file's size here, so
// that no request asks for bytes past its end.
function headerLength(first8, size) {
  if (size < 8) throw new Error(`this file is not a safetensors file: it is ${size} bytes long, shorter than the 8 bytes that say how long its header is`);
  const length = Number(new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true));
  if (length > MAX_HEADER) throw new Error('this file is not a safetensors file: its first 8 bytes do not give the length of a safetensors header');
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

// A file of the Origin Private File System through its synchronous access handle (the GPT-2
// panel's stored copy): read straight into the view it is given, the core's own buffer, with no
// Blob, no ArrayBuffer and no copy between (about 3 GB/s here, against 0.5 GB/s through a File).
function syncHandleSource(access) {
  const readInto = (view, at) => {
    const read = access.read(view, { at });
    if (read !== view.length) throw new Error(`the stored file could not be read: ${view.length} bytes asked for at byte ${at}, ${read} read`);
  };
  return {
    async header() {
      const size = access.getSize();
      const first8 = new Uint8Array(Math.min(8, size));
      readInto(first8, 0);
      const length = headerLength(first8, size);
      const header = new Uint8Array(length);
      readInto(header, 8);
      return { size, header };
    },
    readInto,
  };
}

// A File's tensors through its byte stream, each piece read into one buffer that is used again
// and again: the file never sits in memory whole, and reading it asks for no new memory. New
// memory is most of what a read costs where first touching a page is slow: in Chromium on the
// machine of the README's table, GPT-2 small's 548 MB took 0.65 s this way, against 1.95 s for
// File.arrayBuffer() and 2.16 s in 32 MiB slices (each slice a new ArrayBuffer).
const STREAM_BUFFER = 8 * MEBIBYTE;
// Where a Blob's stream has no bytes reader: slices, the next one asked for while the last is
// converted. Each slice is a round trip to the browser's file reader, so they are large (in
// Chromium, 548 MB read in 32 MiB slices took 2.2 s, in 8 MiB slices 3.0 s).
const BLOB_SLICE = 32 * MEBIBYTE;

// `cause`: the engine's error, when the read failed rather than came up short.
const unreadable = (begin, end, read, cause) => new Error(`the file changed or could not be read: ${end - begin} bytes asked for at byte ${begin}, ${read} read${cause ? ` (${cause.message})` : ''}`, cause && { cause });

// A reader that fills the views it is given ("byob"), or null where the engine has none for a Blob.
function bytesReaderOf(blob) {
  try {
    return blob.stream().getReader({ mode: 'byob' });
  } catch {
    return null;
  }
}

function blobSource(blob) {
  const bytesOf = async (begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer());
  const readSlices = async (begin, end, onChunk, signal) => {
    let next = begin < end ? bytesOf(begin, Math.min(end, begin + BLOB_SLICE)) : null;
    for (let at = begin; at < end; at += BLOB_SLICE) {
      const stop = Math.min(end, at + BLOB_SLICE);
      const bytes = await next;
      next = stop < end ? bytesOf(stop, Math.min(end, stop + BLOB_SLICE)) : null;
      next?.catch(() => {}); // a slice asked for ahead and not wanted after all fails quietly
      signal?.throwIfAborted();
      if (bytes.length !== stop - at) throw unreadable(at, stop, bytes.length);
      onChunk(at, bytes);
    }
  };
  // Each read hands the buffer's memory back filled, as a new ArrayBuffer (the one given is
  // detached); the last is kept for the next range. After a failed read, the one given stays
  // detached, and a new one is made.
  let buffer = null;
  return {
    async header() {
      const length = headerLength(await bytesOf(0, 8), blob.size);
      return { size: blob.size, header: await bytesOf(8, 8 + length) };
    },
    // onChunk's bytes are the reused buffer's: valid only during the call (gpt2.js copies them).
    async read(begin, end, onChunk, signal) {
      if (begin >= end) return;
      const reader = bytesReaderOf(blob.slice(begin, end));
      if (!reader) return readSlices(begin, end, onChunk, signal);
      if (!buffer || buffer.byteLength === 0) buffer = new ArrayBuffer(Math.min(STREAM_BUFFER, blob.size));
      let at = begin;
      try {
        while (at < end) {
          let piece;
          try {
            piece = await reader.read(new Uint8Array(buffer));
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            throw unreadable(begin, end, at - begin, error);
          }
          if (piece.value) buffer = piece.value.buffer;
          if (piece.done) break;
          signal?.throwIfAborted();
          onChunk(at, piece.value);
          at += piece.value.length;
        }
      } finally {
        reader.cancel().catch(() => {}); // stops a read cut short; a stream read to its end is left as it was
      }
      if (at !== end) throw unreadable(begin, end, at - begin);
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
      throw new Error(`could not read ${where}: the download stopped at byte ${at.toLocaleString('en-US')} (${error.message})`, { cause: error });
    }
    if (expected !== undefined && at !== expected) throw new Error(`could not read ${where}: the download ended at byte ${at.toLocaleString('en-US')}, before byte ${expected.toLocaleString('en-US')}`);
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
