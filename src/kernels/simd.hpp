#pragma once
// Chooses the kernel implementation at compile time.
//
// ATTN_SIMD == 1: xsimd 13 vector kernels (SSE2/AVX natively, WebAssembly SIMD under -msimd128).
// ATTN_SIMD == 0: the WebAssembly build without -msimd128. xsimd 13 turns on its wasm backend
// whenever __EMSCRIPTEN__ is defined and then fails to compile without simd128, so this build
// must not include xsimd at all; the kernels forward to the scalar references.
#if defined(__EMSCRIPTEN__) && !defined(__wasm_simd128__)
#define ATTN_SIMD 0
#else
#define ATTN_SIMD 1
#include <xsimd/xsimd.hpp>
static_assert(XSIMD_VERSION_MAJOR >= 13,
              "attention-calc needs xsimd 13 or newer (Debian 12's xsimd 8 has no wasm backend); "
              "run tools/bootstrap.sh");
#endif

namespace attn::kernels {

// Name of the instruction set the kernels were compiled for, e.g. "sse2", "avx2", "wasm",
// "wasm-relaxed" (WebAssembly SIMD with relaxed SIMD's fused multiply-add), "scalar".
inline const char* arch_name() {
#if defined(__wasm_relaxed_simd__)
  return "wasm-relaxed";
#elif ATTN_SIMD
  return xsimd::default_arch::name();
#else
  return "scalar";
#endif
}

// Floats per vector register (1 for the scalar build).
inline constexpr std::size_t kLanes =
#if ATTN_SIMD
    xsimd::batch<float>::size;
#else
    1;
#endif

#if ATTN_SIMD
// a * b + c for every kernel. Fused natively where the target has FMA (xsimd::fma). In the
// relaxed-SIMD wasm build it is f32x4.relaxed_madd, one instruction that engines fuse where the
// processor can, instead of xsimd's f32x4.mul then f32x4.add: it rounds once or twice, so results
// move within float32 rounding and no more. LLVM 14 (Emscripten 3.1.6) emits the proposal's old
// opcode for it; tools/relaxed-opcodes.mjs renumbers it after the link. No other relaxed
// instruction is used: relaxed min/max would leave NaN's handling to the engine.
inline xsimd::batch<float> madd(xsimd::batch<float> a, xsimd::batch<float> b, xsimd::batch<float> c) {
#if defined(__wasm_relaxed_simd__)
  return xsimd::batch<float>(
      reinterpret_cast<v128_t>(__builtin_wasm_fma_f32x4(reinterpret_cast<__f32x4>(a.data), reinterpret_cast<__f32x4>(b.data),
                                                        reinterpret_cast<__f32x4>(c.data))));
#else
  return xsimd::fma(a, b, c);
#endif
}
#endif

}  // namespace attn::kernels
