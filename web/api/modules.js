// The core's WebAssembly modules: which build this engine runs (wasm-features.js), and each module
// compiled from its bytes (read from disk under Node, fetched elsewhere) and instantiated through
// its Emscripten glue. attention.js loads the calculator's or the full core, learned.js the learned
// heads', gpt2.js GPT-2's.

import { fileUrl, importGlue } from '../assets.js';

export const IS_NODE = typeof process === 'object' && typeof process.versions?.node === 'string';

import { glueBuild } from './wasm-features.js';

export { bestBuild, wasmRelaxedSimdSupported, wasmSimdSupported } from './wasm-features.js';

const WASM_MAGIC = [0, 97, 115, 109]; // "\0asm"

// Compiles from the bytes, so a server that labels .wasm with the wrong MIME type still works;
// a page that is not WebAssembly at all (an HTML error page, say) gets a clear message.
async function compileWasm(url) {
  const { bytes, type } = await fetchBytes(url);
  if (!WASM_MAGIC.every((b, i) => bytes[i] === b)) {
    throw new Error(`the file is not WebAssembly${type ? ` (the server sent ${type.split(';')[0]})` : ''}`);
  }
  return WebAssembly.compile(bytes);
}

// A file's bytes: read from disk under Node (file: URLs), fetched elsewhere.
export async function fetchBytes(url) {
  if (IS_NODE && url.protocol === 'file:') {
    // process.getBuiltinModule (Node 20.16+), not import('node:…'): a site's bundler meets no
    // Node import in this file (webpack: "UnhandledSchemeError", Vite: a warning).
    const { readFile } = process.getBuiltinModule('node:fs/promises');
    return { bytes: new Uint8Array(await readFile(url)), type: '' };
  }
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  return {
    bytes: new Uint8Array(await response.arrayBuffer()),
    type: response.headers.get('content-type') ?? '',
  };
}

// The module `name` ('attention': the full core, 'calculator': its calculator half, 'learned',
// 'gpt2', 'next-labs') in `variant` ('relaxed', 'simd' or 'scalar'): its .wasm and .mjs glue from the asset table
// (web/assets.js, where a bundler finds them), or from the folder `base` when given.
export async function instantiate(name, variant, base) {
  const file = `${name}-${variant}`;
  const glue = `${name}-${glueBuild(variant)}.mjs`;
  const wasmUrl = base ? new URL(`${file}.wasm`, base) : fileUrl(`wasm/${file}.wasm`, null);
  let wasmModule, createModule;
  try {
    [wasmModule, { default: createModule }] = await Promise.all([
      compileWasm(wasmUrl),
      importGlue(glue, base ?? null).catch((cause) => {
        throw new Error(`its JavaScript glue ${glue} did not load${base ? ` from ${new URL(glue, base).href}` : ''}: ${cause.message}`, { cause });
      }),
    ]);
  } catch (cause) {
    throw new Error(`attention-calc: could not load ${file}.wasm from ${wasmUrl.href}: ${cause.message}`, { cause });
  }
  // The module is compiled above, so Emscripten's own fetch (and its console messages on
  // failure) never runs: instantiateWasm hands it the ready module.
  let fail;
  const failed = new Promise((_, reject) => (fail = reject));
  const ready = createModule({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => receive(instance, wasmModule), fail);
      return {};
    },
  });
  return Promise.race([ready, failed]);
}
