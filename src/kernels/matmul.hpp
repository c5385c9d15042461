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

// C = A·B (Accumulate = false) or C += A·B (true), vectorized across the p output columns:
// each step t broadcasts a[i][t] and multiplies it into row t of B.
template <bool Accumulate>
inline void matmul_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                      std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  assert(n != 0 && k != 0 && p != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const auto start = [&](const float* ci) { return Accumulate ? batch::load_unaligned(ci) : batch(0.0f); };
  std::size_t i = 0;
  // Micro-kernel: 4 rows × 2 vectors of columns in 8 accumulators. Per step, 2 loads of B
  // and 4 broadcasts of A feed 8 multiply-adds, and the 8 + 3 live vectors fit the 16
  // registers of SSE and of V8's wasm SIMD.
  for (; i + 4 <= n; i += 4) {
    const float* a0 = a + i * lda;
    const float* a1 = a0 + lda;
    const float* a2 = a1 + lda;
    const float* a3 = a2 + lda;
    float* c0 = c + i * ldc;
    float* c1 = c0 + ldc;
    float* c2 = c1 + ldc;
    float* c3 = c2 + ldc;
    std::size_t j = 0;
    for (; j + 2 * L <= p; j += 2 * L) {
      batch s00 = start(c0 + j), s01 = start(c0 + j + L), s10 = start(c1 + j), s11 = start(c1 + j + L);
      batch s20 = start(c2 + j), s21 = start(c2 + j + L), s30 = start(c3 + j), s31 = start(c3 + j + L);
      for (std::size_t t = 0; t < k; ++t) {
        const float* bt = b + t * ldb + j;
        const batch b0 = batch::load_unaligned(bt), b1 = batch::load_unaligned(bt + L);
        const batch w0(a0[t]), w1(a1[t]), w2(a2[t]), w3(a3[t]);
        s00 = xsimd::fma(w0, b0, s00); s01 = xsimd::fma(w0, b1, s01);
        s10 = xsimd::fma(w1, b0, s10); s11 = xsimd::fma(w1, b1, s11);
        s20 = xsimd::fma(w2, b0, s20); s21 = xsimd::fma(w2, b1, s21);
        s30 = xsimd::fma(w3, b0, s30); s31 = xsimd::fma(w3, b1, s31);
      }
      s00.store_unaligned(c0 + j); s01.store_unaligned(c0 + j + L);
      s10.store_unaligned(c1 + j); s11.store_unaligned(c1 + j + L);
      s20.store_unaligned(c2 + j); s21.store_unaligned(c2 + j + L);
      s30.store_unaligned(c3 + j); s31.store_unaligned(c3 + j + L);
    }
    for (; j + L <= p; j += L) {
      batch s0 = start(c0 + j), s1 = start(c1 + j), s2 = start(c2 + j), s3 = start(c3 + j);
      for (std::size_t t = 0; t < k; ++t) {
        const batch bt = batch::load_unaligned(b + t * ldb + j);
        s0 = xsimd::fma(batch(a0[t]), bt, s0);
        s1 = xsimd::fma(batch(a1[t]), bt, s1);
        s2 = xsimd::fma(batch(a2[t]), bt, s2);
        s3 = xsimd::fma(batch(a3[t]), bt, s3);
      }
      s0.store_unaligned(c0 + j); s1.store_unaligned(c1 + j);
      s2.store_unaligned(c2 + j); s3.store_unaligned(c3 + j);
    }
    for (; j < p; ++j) {
      for (std::size_t r = 0; r < 4; ++r) {
        const float* ar = a + (i + r) * lda;
        float s = Accumulate ? c[(i + r) * ldc + j] : 0.0f;
        for (std::size_t t = 0; t < k; ++t) s += ar[t] * b[t * ldb + j];
        c[(i + r) * ldc + j] = s;
      }
    }
  }
  // The last rows, one at a time.
  for (; i < n; ++i) {
    const float* ai = a + i * lda;
    float* ci = c + i * ldc;
    std::size_t j = 0;
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

// C (n×p, stride ldc) = A (n×k, stride lda) · B (k×p, stride ldb). Used for AV, X·W, and
// for QKᵀ in the streaming path, with Kᵀ packed once per call as B.
inline void matmul_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                      std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_ab<false>(a, lda, b, ldb, c, ldc, n, k, p);
}

// C += A·B, same shapes. The streaming path accumulates P·V over blocks of keys with it.
inline void matmul_ab_add(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                          float* c, std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_ab<true>(a, lda, b, ldb, c, ldc, n, k, p);
}

// dst (cols×rows, stride ldd) = srcᵀ, src rows×cols (stride lds). Packs K as Kᵀ so that QKᵀ
// runs through matmul_ab's broadcast form, with no horizontal sums. Pure data movement.
inline void transpose(const float* src, std::size_t lds, float* dst, std::size_t ldd, std::size_t rows,
                      std::size_t cols) {
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) dst[j * ldd + i] = src[i * lds + j];
  }
}

}  // namespace attn::kernels
