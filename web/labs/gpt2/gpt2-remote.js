// The GPT-2 panel's side of its worker (gpt2-worker.js): each call a message, each answer a
// promise. The worker starts on the first call, so nothing of GPT-2 loads before the panel asks.
import { gpt2Worker } from '../../assets.js';

/** An Error rebuilt from the worker's { name, message }. */
function rebuilt({ name, message }) {
  const error = name === 'AbortError' ? new DOMException(message, 'AbortError') : new Error(message);
  if (name !== 'AbortError') error.name = name;
  return error;
}

export class Gpt2Remote {
  #worker = null;
  #next = 1;
  #pending = new Map(); // id → { resolve, reject, onProgress, onToken }

  /**
   * @param {{ base: URL | null, build: 'relaxed' | 'simd' | 'scalar' }} where  the base URL of the
   *   widget's files (an author's), or null: the bundled ones; and which build to run
   */
  constructor({ base, build }) {
    this.base = base;
    this.baseUrl = base ? new URL('wasm/', base).href : undefined;
    this.build = build;
    /** Called with { bytes, meta } or { error } once the copy an open kept is finished. */
    this.onKept = null;
  }

  /**
   * Opens a model: a File, bytes, or a URL. Resolves to { config, memoryBytes, kept }, where kept
   * is { pending: true } when a copy is being kept (onKept then gets { bytes, meta } or { error }
   * once it is finished, after the first run), null when not asked to.
   */
  open(source, { name, config, keep = true, signal, onProgress } = {}) {
    return this.#call({ type: 'open', source, name, config, keep }, { signal, onProgress });
  }

  /** Opens the stored model, or resolves to null when nothing is stored. */
  openStored({ signal, onProgress } = {}) {
    return this.#call({ type: 'openStored' }, { signal, onProgress });
  }

  /** The stored model's description ({ name, source, size, bytes, savedAt, … }), or null. */
  stored() {
    return this.#call({ type: 'stored' });
  }

  /** Deletes the stored model; resolves to the bytes freed. */
  forget() {
    return this.#call({ type: 'forget' });
  }

  /**
   * Runs the open model on a text: every head's scores, and the weights of `layer` (another layer
   * of the last run is not run again); with `ablate` ([{ layer, head, mode }]) those heads switched
   * off (and baseNext, the next tokens without them), `lens` the logit lens, `attribute` (a token
   * id, or 'top') its direct logit attribution.
   */
  run(text, { endOfTextFirst, layer, ablate, lens, attribute }) {
    return this.#call({ type: 'run', text, endOfTextFirst, layer, ablate, lens, attribute });
  }

  /** The one token a text is: { id, token }; refused in words when it is none or more than one. */
  token(text) {
    return this.#call({ type: 'token', text });
  }

  /**
   * Generates after a text with the core's decoder, one token at a time: onToken({ id, token,
   * probability, ms, cacheBytes }) for each; resolves to { ids, tokens, msPerToken, cacheBytes }.
   * The signal stops it between two tokens.
   */
  generate(text, { endOfTextFirst, maxNewTokens, temperature, topK, seed, cache = true, signal, onToken }) {
    return this.#call({ type: 'generate', text, endOfTextFirst, maxNewTokens, temperature, topK, seed, cache }, { signal, onToken });
  }

  /** Stops the worker: the open model is freed with it. */
  terminate() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#fail(new Error('the GPT-2 worker was stopped'));
  }

  #start() {
    if (this.#worker) return this.#worker;
    const worker = gpt2Worker(this.base);
    worker.onmessage = ({ data }) => {
      // The stored copy of the last open, finished after its first run.
      if (data.kept !== undefined && data.id === undefined) {
        this.onKept?.(data.kept);
        return;
      }
      const call = this.#pending.get(data.id);
      if (!call) return;
      if (data.progress) {
        call.onProgress?.(...data.progress);
        return;
      }
      if (data.token) {
        call.onToken?.(data.token);
        return;
      }
      this.#pending.delete(data.id);
      if (data.error) call.reject(rebuilt(data.error));
      else call.resolve(data.value);
    };
    // A worker that could not start, or died (out of memory, say): every call waiting is told.
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.#worker = null;
      worker.terminate();
      this.#fail(new Error(`the GPT-2 worker stopped${event.message ? `: ${event.message}` : ' (it could not be loaded, or ran out of memory)'}`));
    };
    this.#worker = worker;
    return worker;
  }

  #fail(error) {
    for (const call of this.#pending.values()) call.reject(error);
    this.#pending.clear();
  }

  #call(message, { signal, onProgress, onToken } = {}) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const worker = this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onProgress, onToken });
      signal?.addEventListener('abort', () => worker.postMessage({ abort: id }), { once: true });
      try {
        worker.postMessage({ ...message, id, baseUrl: this.baseUrl, build: this.build });
      } catch (error) {
        this.#pending.delete(id);
        reject(error);
      }
    });
  }
}
