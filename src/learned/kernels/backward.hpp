#pragma once
// The training kernels the forward core does not have: Aᵀ·B (weight gradients, dV and dK),
// the softmax's backward row, and the AdamW update. Raw pointers and sizes, no allocation.
// Scalar references with the same contracts: reference/backward_ref.hpp.
#include <cassert>
#include <cmath>
#include <cstddef>

#include "../../kernels/simd.hpp"
#include "../reference/backward_ref.hpp"

namespace attn::learned::kernels {

// C (d×p) (+)= Aᵀ·B, A n×d, B n×p: a sum of n rank-one updates a_tᵀ b_t, vectorized across
// the p columns of B and C, so both are read along rows and no transpose is packed.
template <bool Accumulate>
inline void matmul_atb(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                       std::size_t ldc, std::size_t n, std::size_t d, std::size_t p) {
  assert(n != 0 && d != 0 && p != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const std::size_t p_vec = p - p % L;
  if constexpr (!Accumulate) {
    for (std::size_t i = 0; i < d; ++i) {
      for (std::size_t j = 0; j < p; ++j) c[i * ldc + j] = 0.0f;
    }
  }
  // Row i of C stays in registers while the n rows of B stream past it: one vector of C
  // at a time would reload B n times per vector, this reloads it once per row of C.
  for (std::size_t i = 0; i < d; ++i) {
    float* ci = c + i * ldc;
    std::size_t j = 0;
    for (; j + 2 * L <= p_vec; j += 2 * L) {
      batch s0 = batch::load_unaligned(ci + j), s1 = batch::load_unaligned(ci + j + L);
      for (std::size_t t = 0; t < n; ++t) {
        const batch w(a[t * lda + i]);
        s0 = attn::kernels::madd(w, batch::load_unaligned(b + t * ldb + j), s0);
        s1 = attn::kernels::madd(w, batch::load_unaligned(b + t * ldb + j + L), s1);
      }
      s0.store_unaligned(ci + j);
      s1.store_unaligned(ci + j + L);
    }
    for (; j < p_vec; j += L) {
      batch s = batch::load_unaligned(ci + j);
      for (std::size_t t = 0; t < n; ++t) {
        s = attn::kernels::madd(batch(a[t * lda + i]), batch::load_unaligned(b + t * ldb + j), s);
      }
      s.store_unaligned(ci + j);
    }
    for (; j < p; ++j) {
      float s = ci[j];
      for (std::size_t t = 0; t < n; ++t) s += a[t * lda + i] * b[t * ldb + j];
      ci[j] = s;
    }
  }
#else
  reference::matmul_atb_ref(a, lda, b, ldb, c, ldc, n, d, p, Accumulate);
#endif
}

// ds[j] = scale · p[j] · (dp[j] − r), r = Σ p·dp; ds may alias dp.
inline void softmax_backward_row(const float* p, const float* dp, float* ds, std::size_t m, float scale) {
  assert(m != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const std::size_t m_vec = m - m % L;
  batch acc(0.0f);
  for (std::size_t j = 0; j < m_vec; j += L) {
    acc = attn::kernels::madd(batch::load_unaligned(p + j), batch::load_unaligned(dp + j), acc);
  }
  float r = xsimd::reduce_add(acc);
  for (std::size_t j = m_vec; j < m; ++j) r += p[j] * dp[j];
  const batch vr(r), vs(scale);
  for (std::size_t j = 0; j < m_vec; j += L) {
    const batch pj = batch::load_unaligned(p + j);
    (vs * pj * (batch::load_unaligned(dp + j) - vr)).store_unaligned(ds + j);
  }
  for (std::size_t j = m_vec; j < m; ++j) ds[j] = scale * p[j] * (dp[j] - r);
#else
  reference::softmax_backward_row_ref(p, dp, ds, m, scale);
#endif
}

using reference::AdamWStep;

// One AdamW step on n weights; the same formula as reference::adamw_ref.
inline void adamw(float* w, const float* g, float* m, float* v, std::size_t n, const AdamWStep& s) {
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const batch b1(s.beta1), b2(s.beta2), c1(1.0f - s.beta1), c2(1.0f - s.beta2);
  const batch inv1(1.0f / s.correction1), inv2(1.0f / s.correction2), lr(s.lr), eps(s.eps), decay(s.decay);
  std::size_t i = 0;
  for (; i + L <= n; i += L) {
    const batch gi = batch::load_unaligned(g + i);
    const batch mi = b1 * batch::load_unaligned(m + i) + c1 * gi;
    const batch vi = b2 * batch::load_unaligned(v + i) + c2 * gi * gi;
    mi.store_unaligned(m + i);
    vi.store_unaligned(v + i);
    const batch wi = batch::load_unaligned(w + i);
    (wi - lr * ((mi * inv1) / (xsimd::sqrt(vi * inv2) + eps) + decay * wi)).store_unaligned(w + i);
  }
  if (i < n) reference::adamw_ref(w + i, g + i, m + i, v + i, n - i, s);
#else
  reference::adamw_ref(w, g, m, v, n, s);
#endif
}

}  // namespace attn::learned::kernels
