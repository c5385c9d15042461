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

// Name of the instruction set the kernels were compiled for, e.g. "sse2", "avx2", "wasm", "scalar".
inline const char* arch_name() {
#if ATTN_SIMD
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

}  // namespace attn::kernels
