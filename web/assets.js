// Every file attention-calc loads, each named by a literal new URL('./…', import.meta.url) or a
// literal import('./…'): a site's bundler (Vite, webpack, Turbopack, Rollup, Parcel, esbuild)
// follows those, copies the file into its output and rewrites the URL. Nothing here builds a
// file's name at run time, except under an author's base URL (below).
//
// The paths are relative to this file, in web/, and in dist/ too: tools/dist.mjs bundles this
// module into a top-level chunk of dist/ and keeps the folders wasm/ and labs/ (the workers) there.
// (dist/labs/learned-worker.js carries its own copy, with the paths rewritten to ../.)
//
// A base URL (the element's base-url attribute, AttentionCalcElement.baseUrl, loadAttention's
// baseUrl) overrides the table: files are then looked up under it with dist/'s layout, e.g. a
// CDN copy of dist/.

/** The files, by their path in dist/ (and web/). */
const FILES = {
  'learned-heads.bin': () => new URL('./learned-heads.bin', import.meta.url),
  'wasm/gpt2-tokenizer.bin': () => new URL('./wasm/gpt2-tokenizer.bin', import.meta.url),
  'wasm/attention-relaxed.wasm': () => new URL('./wasm/attention-relaxed.wasm', import.meta.url),
  'wasm/attention-simd.wasm': () => new URL('./wasm/attention-simd.wasm', import.meta.url),
  'wasm/attention-scalar.wasm': () => new URL('./wasm/attention-scalar.wasm', import.meta.url),
  'wasm/calculator-relaxed.wasm': () => new URL('./wasm/calculator-relaxed.wasm', import.meta.url),
  'wasm/calculator-simd.wasm': () => new URL('./wasm/calculator-simd.wasm', import.meta.url),
  'wasm/calculator-scalar.wasm': () => new URL('./wasm/calculator-scalar.wasm', import.meta.url),
  'wasm/learned-relaxed.wasm': () => new URL('./wasm/learned-relaxed.wasm', import.meta.url),
  'wasm/learned-simd.wasm': () => new URL('./wasm/learned-simd.wasm', import.meta.url),
  'wasm/learned-scalar.wasm': () => new URL('./wasm/learned-scalar.wasm', import.meta.url),
  'wasm/gpt2-relaxed.wasm': () => new URL('./wasm/gpt2-relaxed.wasm', import.meta.url),
  'wasm/gpt2-simd.wasm': () => new URL('./wasm/gpt2-simd.wasm', import.meta.url),
  'wasm/gpt2-scalar.wasm': () => new URL('./wasm/gpt2-scalar.wasm', import.meta.url),
  'wasm/next-labs-relaxed.wasm': () => new URL('./wasm/next-labs-relaxed.wasm', import.meta.url),
  'wasm/next-labs-simd.wasm': () => new URL('./wasm/next-labs-simd.wasm', import.meta.url),
  'wasm/next-labs-scalar.wasm': () => new URL('./wasm/next-labs-scalar.wasm', import.meta.url),
};

/** The Emscripten glue of each module, by its path: imported, so a bundler bundles it. */
const GLUE = {
  'wasm/attention-simd.mjs': () => import('./wasm/attention-simd.mjs'),
  'wasm/attention-scalar.mjs': () => import('./wasm/attention-scalar.mjs'),
  'wasm/calculator-simd.mjs': () => import('./wasm/calculator-simd.mjs'),
  'wasm/calculator-scalar.mjs': () => import('./wasm/calculator-scalar.mjs'),
  'wasm/learned-simd.mjs': () => import('./wasm/learned-simd.mjs'),
  'wasm/learned-scalar.mjs': () => import('./wasm/learned-scalar.mjs'),
  'wasm/gpt2-simd.mjs': () => import('./wasm/gpt2-simd.mjs'),
  'wasm/gpt2-scalar.mjs': () => import('./wasm/gpt2-scalar.mjs'),
  'wasm/next-labs-simd.mjs': () => import('./wasm/next-labs-simd.mjs'),
  'wasm/next-labs-scalar.mjs': () => import('./wasm/next-labs-scalar.mjs'),
};

let defaultBase = null; // AttentionCalcElement.baseUrl: null, the files above

/** The base URL every element uses unless its base-url attribute names another; null: none. */
export const getDefaultBase = () => defaultBase;
export function setDefaultBase(url) {
  defaultBase = url === null || url === undefined || url === '' ? null : toBase(url);
}

/** A base URL as a URL object ending in /, relative to the page; throws a message naming it. */
export function toBase(url) {
  let parsed;
  try {
    parsed = new URL(String(url), globalThis.document?.baseURI ?? globalThis.location?.href);
  } catch {
    throw new Error(`attention-calc: the base URL ${JSON.stringify(String(url))} is not a valid URL`);
  }
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return parsed;
}

/**
 * The URL of one of the files above, by its path in dist/ (e.g. 'learned-heads.bin'): under
 * `base` when given (an author's base URL, the layout of dist/), else where the bundler put it.
 */
export function fileUrl(path, base = defaultBase) {
  if (base) return new URL(path, base);
  const url = FILES[path];
  if (!url) throw new Error(`attention-calc: no file ${path}`);
  return url();
}

/**
 * The glue module `name` (e.g. 'attention-simd.mjs'): from the wasm folder `base` when given,
 * or the bundled one.
 */
export function importGlue(name, base) {
  if (base) {
    const url = new URL(name, base).href;
    return import(/* webpackIgnore: true */ /* @vite-ignore */ url);
  }
  return GLUE[`wasm/${name}`]();
}

/** The learned-heads panel's training worker, a module worker. */
export function trainingWorker(base = defaultBase) {
  const options = { type: 'module' };
  if (base) {
    const url = new URL('labs/learned-worker.js', base);
    return new Worker(url, options);
  }
  return new Worker(new URL('./labs/learned-worker.js', import.meta.url), { type: 'module' });
}

/** The GPT-2 panel's worker (GPT-2's module, the open model, its runs), a module worker. */
export function gpt2Worker(base = defaultBase) {
  if (base) return new Worker(new URL('labs/gpt2-worker.js', base), { type: 'module' });
  return new Worker(new URL('./labs/gpt2-worker.js', import.meta.url), { type: 'module' });
}

/**
 * Any other file of dist/ by its path, beside this module (or under the base URL), for links
 * (frame.html): computed, so a bundler does not copy it.
 */
export const asset = (path) => new URL(path, defaultBase ?? HERE).href;
const HERE = import.meta.url; // a value: new URL(path, import.meta.url) would make webpack warn
