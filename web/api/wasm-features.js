// Which WebAssembly build this engine runs, from tiny modules that validate or not. Imported by
// modules.js, which loads the build, and by core-preload.js, which fetches it early on the page.

// Smallest module that uses a v128 instruction; WebAssembly.validate accepts it only where
// SIMD is supported (the bytes of wasm-feature-detect's simd() test).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

/** True when this engine validates WebAssembly SIMD (v128) code. */
export function wasmSimdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// Smallest module that uses relaxed SIMD's f32x4.relaxed_madd, the one relaxed instruction the
// relaxed build holds: engines without relaxed SIMD (WebKit, Node 20 without its flag) refuse it.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 28, 1, 26, 0, 67, 0, 0, 0, 0,
  253, 19, 67, 0, 0, 0, 0, 253, 19, 67, 0, 0, 0, 0, 253, 19, 253, 133, 2, 11,
]);

/** True when this engine validates relaxed SIMD's fused multiply-add (f32x4.relaxed_madd). */
export function wasmRelaxedSimdSupported() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

/** The best build this engine runs: 'relaxed', else 'simd', else 'scalar'. */
export function bestBuild() {
  if (wasmRelaxedSimdSupported()) return 'relaxed';
  return wasmSimdSupported() ? 'simd' : 'scalar';
}

/** The build whose Emscripten glue a build runs with: the relaxed build's is the SIMD build's (the
 * two differ in their instructions only; tools/relaxed-opcodes.mjs checks it at every build). */
export const glueBuild = (build) => (build === 'relaxed' ? 'simd' : build);
