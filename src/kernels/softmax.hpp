#pragma once
// The three passes of a numerically stable row softmax: the row max, exp(x - max) with its sum
// (exp.hpp), and the scaling by 1/sum. Scalar references: reference/softmax_ref.hpp.
#include <cassert>
#include <cmath>
#include <cstddef>
#include <limits>

#include "../reference/softmax_ref.hpp"
#include "exp.hpp"
#include "simd.hpp"

namespace attn::kernels {

// Largest element; -inf when every element is -inf (a fully masked row).
inline float reduce_max(const float* x, std::size_t n) {
  assert(n != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  float best = -std::numeric_limits<float>::infinity();
  std::size_t i = 0;
  if (n >= L) {
    batch m = batch::load_unaligned(x);
    for (i = L; i + L <= n; i += L) m = xsimd::max(m, batch::load_unaligned(x + i));
    best = xsimd::reduce_max(m);
  }
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
#else
  return reference::reduce_max_ref(x, n);
#endif
}

// Every |x[i]| < limit; false for NaN. The fast pass of the float32 range rule (float_checks.hpp).
inline bool all_magnitudes_below(const float* x, std::size_t n, float limit) {
  std::size_t i = 0;
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const batch vlimit(limit);
  xsimd::batch_bool<float> ok(true);
  for (; i + L <= n; i += L) ok = ok & (xsimd::abs(batch::load_unaligned(x + i)) < vlimit);
  if (!xsimd::all(ok)) return false;
#endif
  for (; i < n; ++i) {
    if (!(std::fabs(x[i]) < limit)) return false;
  }
  return true;
}

// The largest element, and whether every |x[i]| < limit (false for NaN): the streaming path
// needs both of every score row (the softmax's max and the range rule's fast check), and one
// pass over the row does both.
using reference::MaxInRange;
inline MaxInRange reduce_max_in_range(const float* x, std::size_t n, float limit) {
  assert(n != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  float best = -std::numeric_limits<float>::infinity();
  bool in_range = true;
  std::size_t i = 0;
  if (n >= L) {
    const batch vlimit(limit);
    batch m = batch::load_unaligned(x);
    xsimd::batch_bool<float> ok = xsimd::abs(m) < vlimit;
    for (i = L; i + L <= n; i += L) {
      const batch xi = batch::load_unaligned(x + i);
      m = xsimd::max(m, xi);
      ok = ok & (xsimd::abs(xi) < vlimit);
    }
    best = xsimd::reduce_max(m);
    in_range = xsimd::all(ok);
  }
  for (; i < n; ++i) {
    best = x[i] > best ? x[i] : best;
    in_range = in_range && std::fabs(x[i]) < limit;
  }
  return {best, in_range};
#else
  return reference::reduce_max_in_range_ref(x, n, limit);
#endif
}

// y[i] = exp((x[i] - max)·scale), returns Σ y[i]: the streaming softmax, which leaves the
// scores unscaled and applies 1/√d here, in the same pass as the exp. scale > 0; max must be
// finite and >= every x[i], so each exponent is <= 0 and exp cannot overflow; masked entries
// (-inf) give exactly 0. Subtracting first keeps the argument's rounding relative to x - max.
inline float exp_scaled_minus_max_sum(const float* x, float max, float scale, float* y, std::size_t n) {
  assert(n != 0 && std::isfinite(max) && scale > 0.0f);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const batch vmax(max), vscale(scale);
  const ExpConstants<batch> constants;
  batch vsum(0.0f);
  std::size_t i = 0;
  for (; i + L <= n; i += L) {
    const batch e = exp_nonpositive((batch::load_unaligned(x + i) - vmax) * vscale, constants);
    e.store_unaligned(y + i);
    vsum += e;
  }
  float sum = xsimd::reduce_add(vsum);
  for (; i < n; ++i) {
    y[i] = std::exp((x[i] - max) * scale);
    sum += y[i];
  }
  return sum;
#else
  return reference::exp_scaled_minus_max_sum_ref(x, max, scale, y, n);
#endif
}

// y[i] = exp(x[i] - max), returns Σ y[i]; the same contract with scale 1.
inline float exp_minus_max_sum(const float* x, float max, float* y, std::size_t n) {
  return exp_scaled_minus_max_sum(x, max, 1.0f, y, n);
}

// y[i] *= s
inline void scale(float* y, float s, std::size_t n) {
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const batch vs(s);
  std::size_t i = 0;
  for (; i + L <= n; i += L) (batch::load_unaligned(y + i) * vs).store_unaligned(y + i);
  for (; i < n; ++i) y[i] *= s;
#else
  reference::scale_ref(y, s, n);
#endif
}

}  // namespace attn::kernels
