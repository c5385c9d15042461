#pragma once
// LayerNorm over one row (GPT-2's ln_1, ln_2 and ln_f): eps 1e-5 and the biased variance, as
// PyTorch computes it. Scalar reference: reference/layernorm_ref.hpp, same signature.
#include <cassert>
#include <cmath>
#include <cstddef>

#include "../reference/layernorm_ref.hpp"
#include "simd.hpp"

namespace attn::kernels {

// y[i] = (x[i] − mean)/√(var + eps)·gamma[i] + beta[i], var = Σ(x − mean)²/n. y may be x.
// Two passes over x, not the one-pass Σx² − n·mean², which cancels catastrophically when the
// mean is large against the spread (a residual stream with a big constant offset). The second
// pass also sums x − mean, which corrects the first pass's rounding of the mean (the "corrected
// two-pass" algorithm). Valid while (x − mean)² stays a finite float (|x − mean| < ~1e18).
inline void layernorm(const float* x, const float* gamma, const float* beta, float* y, std::size_t n,
                      float eps = 1e-5f) {
  assert(n != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const std::size_t n_vec = n - n % L;
  // Two accumulators: one would wait out an add's latency at every vector.
  batch s0(0.0f), s1(0.0f);
  std::size_t i = 0;
  for (; i + 2 * L <= n_vec; i += 2 * L) {
    s0 += batch::load_unaligned(x + i);
    s1 += batch::load_unaligned(x + i + L);
  }
  for (; i < n_vec; i += L) s0 += batch::load_unaligned(x + i);
  float sum = xsimd::reduce_add(s0 + s1);
  for (; i < n; ++i) sum += x[i];
  const float m = sum / float(n);  // the first pass's mean, rounded

  const batch vm(m);
  batch d0(0.0f), d1(0.0f), q0(0.0f), q1(0.0f);
  for (i = 0; i + 2 * L <= n_vec; i += 2 * L) {
    const batch a = batch::load_unaligned(x + i) - vm;
    const batch b = batch::load_unaligned(x + i + L) - vm;
    d0 += a;
    d1 += b;
    q0 = madd(a, a, q0);
    q1 = madd(b, b, q1);
  }
  for (; i < n_vec; i += L) {
    const batch a = batch::load_unaligned(x + i) - vm;
    d0 += a;
    q0 = madd(a, a, q0);
  }
  float dev = xsimd::reduce_add(d0 + d1);
  float sq = xsimd::reduce_add(q0 + q1);
  for (; i < n; ++i) {
    const float a = x[i] - m;
    dev += a;
    sq += a * a;
  }
  // The mean is m + c with c = Σ(x − m)/n, kept apart from m: where the mean is large against
  // the spread, a float cannot hold m + c to better than half an ulp of m, but x − m is exact
  // (x and m are close) and (x − m) − c then loses nothing. Σ(x − m)² = Σ(x − mean)² + n·c².
  const float c = dev / float(n);
  const float var = sq / float(n) - c * c;
  const float rstd = 1.0f / std::sqrt((var > 0.0f ? var : 0.0f) + eps);

  const batch vc(c), vr(rstd);
  for (i = 0; i < n_vec; i += L) {
    const batch a = ((batch::load_unaligned(x + i) - vm) - vc) * vr;
    madd(a, batch::load_unaligned(gamma + i), batch::load_unaligned(beta + i)).store_unaligned(y + i);
  }
  for (; i < n; ++i) y[i] = ((x[i] - m) - c) * rstd * gamma[i] + beta[i];
#else
  reference::layernorm_ref(x, gamma, beta, y, n, eps);
#endif
}

}  // namespace attn::kernels
