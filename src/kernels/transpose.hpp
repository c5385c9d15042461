#pragma once
// Packing a matrix as its transpose: the streaming attention packs K as Kᵀ once per call so that
// QKᵀ runs through the broadcast form of the products (kernels/matmul.hpp), and pack_rows packs
// each block of queries with it. Its reference is the plain
// double loop at the end of the function, which also takes the tails.
#include <cstddef>

#include "simd.hpp"

namespace attn::kernels {

// dst (cols×rows, stride ldd) = srcᵀ, src rows×cols (stride lds). Packs K as Kᵀ so that QKᵀ
// runs through the products' broadcast form, with no horizontal sums. Pure data movement.
// With 4-lane vectors (SSE2, wasm SIMD) it moves 4×4 blocks through registers (xsimd's
// in-register transpose): the per-call packing is a visible part of a call at n = 64.
inline void transpose(const float* src, std::size_t lds, float* dst, std::size_t ldd, std::size_t rows,
                      std::size_t cols) {
  std::size_t i = 0;
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  if constexpr (L == 4) {
    for (; i + L <= rows; i += L) {
      std::size_t j = 0;
      for (; j + L <= cols; j += L) {
        batch block[L];
        for (std::size_t r = 0; r < L; ++r) block[r] = batch::load_unaligned(src + (i + r) * lds + j);
        xsimd::transpose(block, block + L);
        for (std::size_t c = 0; c < L; ++c) block[c].store_unaligned(dst + (j + c) * ldd + i);
      }
      for (; j < cols; ++j) {
        for (std::size_t r = i; r < i + L; ++r) dst[j * ldd + r] = src[r * lds + j];
      }
    }
  }
#endif
  for (; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) dst[j * ldd + i] = src[i * lds + j];
  }
}

}  // namespace attn::kernels
