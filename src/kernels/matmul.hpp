#pragma once
// Matrix products of the attention core: QKᵀ (matmul_abt) and AV / X·W (matmul_ab).
// Raw pointers, sizes and row strides in; no allocation. The scalar reference of each sits in
// reference/matmul_ref.hpp with the same signature.
#include <cassert>
#include <cstddef>

#include "../reference/matmul_ref.hpp"
#include "simd.hpp"

namespace attn::kernels {

// C (n×m, stride ldc) = A (n×d, stride lda) · Bᵀ with B m×d (stride ldb).
// Both operands are read along rows, so each C entry is one contiguous dot product.
inline void matmul_abt(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                       std::size_t ldc, std::size_t n, std::size_t m, std::size_t d) {
  assert(n != 0 && m != 0 && d != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const std::size_t d_vec = d - d % L;
  for (std::size_t i = 0; i < n; ++i) {
    const float* ai = a + i * lda;
    float* ci = c + i * ldc;
    std::size_t j = 0;
    // Four keys at a time: each load of a query chunk feeds four independent accumulators.
    for (; j + 4 <= m; j += 4) {
      const float* b0 = b + j * ldb;
      const float* b1 = b0 + ldb;
      const float* b2 = b1 + ldb;
      const float* b3 = b2 + ldb;
      batch s0(0.0f), s1(0.0f), s2(0.0f), s3(0.0f);
      for (std::size_t t = 0; t < d_vec; t += L) {
        const batch q = batch::load_unaligned(ai + t);
        s0 = xsimd::fma(q, batch::load_unaligned(b0 + t), s0);
        s1 = xsimd::fma(q, batch::load_unaligned(b1 + t), s1);
        s2 = xsimd::fma(q, batch::load_unaligned(b2 + t), s2);
        s3 = xsimd::fma(q, batch::load_unaligned(b3 + t), s3);
      }
      float r0 = xsimd::reduce_add(s0), r1 = xsimd::reduce_add(s1);
      float r2 = xsimd::reduce_add(s2), r3 = xsimd::reduce_add(s3);
      for (std::size_t t = d_vec; t < d; ++t) {
        r0 += ai[t] * b0[t];
        r1 += ai[t] * b1[t];
        r2 += ai[t] * b2[t];
        r3 += ai[t] * b3[t];
      }
      ci[j] = r0;
      ci[j + 1] = r1;
      ci[j + 2] = r2;
      ci[j + 3] = r3;
    }
    for (; j < m; ++j) {
      const float* bj = b + j * ldb;
      batch s(0.0f);
      for (std::size_t t = 0; t < d_vec; t += L) {
        s = xsimd::fma(batch::load_unaligned(ai + t), batch::load_unaligned(bj + t), s);
      }
      float r = xsimd::reduce_add(s);
      for (std::size_t t = d_vec; t < d; ++t) r += ai[t] * bj[t];
      ci[j] = r;
    }
  }
#else
  reference::matmul_abt_ref(a, lda, b, ldb, c, ldc, n, m, d);
#endif
}

namespace detail {

// C = A·B (Accumulate = false) or C += A·B (true). Each output row is built as
// Σ_t a[i][t] · (row t of B), vectorized across the p columns.
template <bool Accumulate>
inline void matmul_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                      std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  assert(n != 0 && k != 0 && p != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const auto start = [&](const float* ci) { return Accumulate ? batch::load_unaligned(ci) : batch(0.0f); };
  for (std::size_t i = 0; i < n; ++i) {
    const float* ai = a + i * lda;
    float* ci = c + i * ldc;
    std::size_t j = 0;
    // Four vectors of output columns stay in registers across the whole k loop.
    for (; j + 4 * L <= p; j += 4 * L) {
      batch s0 = start(ci + j), s1 = start(ci + j + L), s2 = start(ci + j + 2 * L), s3 = start(ci + j + 3 * L);
      for (std::size_t t = 0; t < k; ++t) {
        const batch w(ai[t]);
        const float* bt = b + t * ldb + j;
        s0 = xsimd::fma(w, batch::load_unaligned(bt), s0);
        s1 = xsimd::fma(w, batch::load_unaligned(bt + L), s1);
        s2 = xsimd::fma(w, batch::load_unaligned(bt + 2 * L), s2);
        s3 = xsimd::fma(w, batch::load_unaligned(bt + 3 * L), s3);
      }
      s0.store_unaligned(ci + j);
      s1.store_unaligned(ci + j + L);
      s2.store_unaligned(ci + j + 2 * L);
      s3.store_unaligned(ci + j + 3 * L);
    }
    for (; j + L <= p; j += L) {
      batch s = start(ci + j);
      for (std::size_t t = 0; t < k; ++t) {
        s = xsimd::fma(batch(ai[t]), batch::load_unaligned(b + t * ldb + j), s);
      }
      s.store_unaligned(ci + j);
    }
    for (; j < p; ++j) {
      float s = Accumulate ? ci[j] : 0.0f;
      for (std::size_t t = 0; t < k; ++t) s += ai[t] * b[t * ldb + j];
      ci[j] = s;
    }
  }
#else
  if constexpr (Accumulate) {
    reference::matmul_ab_add_ref(a, lda, b, ldb, c, ldc, n, k, p);
  } else {
    reference::matmul_ab_ref(a, lda, b, ldb, c, ldc, n, k, p);
  }
#endif
}

}  // namespace detail

// C (n×p, stride ldc) = A (n×k, stride lda) · B (k×p, stride ldb). Used for AV and X·W.
inline void matmul_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                      std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_ab<false>(a, lda, b, ldb, c, ldc, n, k, p);
}

// C += A·B, same shapes. The streaming path accumulates P·V over blocks of keys with it.
inline void matmul_ab_add(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                          float* c, std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_ab<true>(a, lda, b, ldb, c, ldc, n, k, p);
}

}  // namespace attn::kernels
