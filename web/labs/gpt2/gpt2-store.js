// The open GPT-2 kept in the browser's storage, the Origin Private File System, by the GPT-2 panel's
// worker (synchronous access handles exist only in workers). What is kept is the file as it was
// read: its header and the tensors GPT-2 needs, each written at its own offset in a file of the
// original's size, so it opens as the same model through the same reader. The unread attn.bias
// buffers stay holes of zeros. Beside it, model.json says what it is.
//
//   attention-calc-gpt2/model-<time>.safetensors   the kept bytes
//   attention-calc-gpt2/model.json                 { file, name, source, size, bytes, config, savedAt }

const FOLDER = 'attention-calc-gpt2';
const META = 'model.json';

// The folder, or an error that says storage is not there (an old browser, a private window).
async function folder() {
  if (typeof navigator === 'undefined' || !navigator.storage?.getDirectory) {
    throw storageError('this browser has no Origin Private File System');
  }
  let root;
  try {
    root = await navigator.storage.getDirectory();
  } catch (error) {
    throw storageError(`this browser refused its storage (${error.message}); a private window refuses it`);
  }
  return root.getDirectoryHandle(FOLDER, { create: true });
}

function storageError(message, cause) {
  const error = new Error(message, { cause });
  error.name = 'StorageError';
  return error;
}

const isQuota = (error) => error?.name === 'QuotaExceededError' || /quota|space/i.test(error?.message ?? '');
// A failed write, in the learner's words.
const writeError = (e) => storageError(isQuota(e) ? 'the browser’s storage is full' : `the browser’s storage could not be written (${e.message})`, e);

/** What is stored: { file, name, source, size, bytes, config, savedAt }, or null. */
export async function storedModel() {
  let dir;
  try {
    dir = await folder();
  } catch {
    return null;
  }
  try {
    const meta = JSON.parse(await (await (await dir.getFileHandle(META)).getFile()).text());
    const file = await (await dir.getFileHandle(meta.file)).getFile();
    return file.size === meta.size ? meta : null;
  } catch {
    return null; // nothing stored, or a model.json without its file
  }
}

/**
 * The stored file's synchronous access handle, which reads straight into the wasm heap (six
 * times the speed of reading it as a File here). The caller closes it once the model is open.
 */
export async function openStoredHandle(meta) {
  const dir = await folder();
  return (await dir.getFileHandle(meta.file)).createSyncAccessHandle();
}

/** Deletes what is stored; resolves to the bytes it held. */
export async function forgetStored() {
  const dir = await folder();
  const meta = await storedModel();
  for await (const name of dir.keys()) await dir.removeEntry(name).catch(() => {});
  return meta?.bytes ?? 0;
}

// The slices a File is read again in for its copy, where the browser cannot write a File itself.
const COPY_SLICE = 8 << 20;

/**
 * Starts keeping a model as it is read: keeper.write(offset, bytes, size) for each piece (openGpt2's
 * onRead), then keeper.finish() once it opened, or keeper.abandon() when it did not. A File need not
 * be written as it is read: keeper.note(offset, length) for each piece, then keeper.copy(file,
 * signal) writes those pieces of it, once the model is open and its first heatmaps shown. A
 * storage that is missing, refused or full never stops the open: finish() then says why nothing
 * was kept.
 * @returns {Promise<{ failed: boolean, write(offset: number, bytes: Uint8Array, size: number): void, note(offset: number, length: number): void, copy(file: Blob, signal?: AbortSignal): Promise<void>, finish(): Promise<object>, abandon(): Promise<void> }>}
 */
export async function startKeeping({ name, source, config }) {
  let dir = null, handle = null, access = null, error = null, size = 0, bytes = 0;
  let copied = false; // copy() wrote the file through a writable stream, its sync handle closed
  const noted = []; // [begin, end) of the pieces read, joined where they touch
  const file = `model-${Date.now()}.safetensors`;
  try {
    dir = await folder();
    handle = await dir.getFileHandle(file, { create: true });
    access = await handle.createSyncAccessHandle();
  } catch (e) {
    error = e.name === 'StorageError' ? e : writeError(e);
  }
  const close = () => {
    try { access?.close(); } catch { /* already closed */ }
    access = null;
  };
  const drop = async () => {
    close();
    if (dir && handle) await dir.removeEntry(file).catch(() => {});
  };
  return {
    /** True once nothing can be kept (storage missing, refused or full): finish() only says why. */
    get failed() {
      return access === null;
    },
    write(offset, piece, fileSize) {
      if (!access) return;
      size = fileSize;
      try {
        const written = access.write(piece, { at: offset });
        if (written !== piece.length) throw new DOMException(`${written} of ${piece.length} bytes written`, 'QuotaExceededError');
        bytes += written;
      } catch (e) {
        error = writeError(e);
        close();
      }
    },
    note(offset, length) {
      const last = noted.at(-1);
      if (last && last[1] === offset) last[1] += length;
      else noted.push([offset, offset + length]);
    },
    async copy(file, signal) {
      if (!access) return;
      size = file.size;
      if (handle.createWritable) {
        // The browser writes the File's pieces itself, and none passes through this thread's
        // memory: read back as slices, they stayed there until a garbage collection, which an idle
        // worker did not have (about 280 MB of them for GPT-2 small, measured in Chromium).
        close(); // a writable stream and a sync access handle exclude each other
        let writable = null;
        try {
          writable = await handle.createWritable();
          for (const [begin, end] of noted) {
            signal?.throwIfAborted();
            await writable.write({ type: 'write', position: begin, data: file.slice(begin, end) });
            bytes += end - begin;
          }
          await writable.truncate(size); // the file's own size, its unread tail a hole
          await writable.close();
          copied = true;
        } catch (e) {
          await writable?.abort().catch(() => {});
          // The File gone or changed is the caller's to say; the storage's own failures, finish()'s.
          if (signal?.aborted || e?.name === 'NotReadableError' || e?.name === 'NotFoundError') throw e;
          error = writeError(e);
        }
        return;
      }
      for (const [begin, end] of noted) {
        for (let at = begin; at < end && access; at += COPY_SLICE) {
          signal?.throwIfAborted();
          const stop = Math.min(end, at + COPY_SLICE);
          const piece = new Uint8Array(await file.slice(at, stop).arrayBuffer());
          if (piece.length !== stop - at) throw new Error('the file changed since it was opened');
          this.write(at, piece, size);
        }
      }
    },
    async finish() {
      if (access || copied) {
        try {
          if (access) {
            access.truncate(size); // the file's own size, its unread tail a hole
            access.flush();
            close();
          }
          const meta = { file, name, source, size, bytes, config: config ?? null, savedAt: new Date().toISOString() };
          await writeText(dir, META, JSON.stringify(meta));
          for await (const entry of dir.keys()) if (entry !== file && entry !== META) await dir.removeEntry(entry).catch(() => {});
          return { bytes, meta };
        } catch (e) {
          error = writeError(e);
        }
      }
      await drop();
      return { error: error?.message ?? 'the browser’s storage could not be written' };
    },
    abandon: drop,
  };
}

async function writeText(dir, name, text) {
  const access = await (await dir.getFileHandle(name, { create: true })).createSyncAccessHandle();
  try {
    const bytes = new TextEncoder().encode(text);
    access.truncate(0);
    access.write(bytes, { at: 0 });
    access.flush();
  } finally {
    access.close();
  }
}
