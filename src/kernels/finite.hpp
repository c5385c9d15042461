#pragma once
// Whether every float is finite: the fast pass of input validation, which runs on every call of
// the streaming path. x·0 is 0 for every finite x and NaN for ±Inf and NaN, so one vector sum
// answers for the whole row; the slow scan that names the position runs only when it fails.
#include <cmath>
#include <cstddef>

#include "simd.hpp"

namespace attn::kernels {

inline bool all_finite(const float* x, std::size_t n) {
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const batch zero(0.0f);
  // Four independent sums: one would wait out an add's latency at every vector.
  batch acc0(0.0f), acc1(0.0f), acc2(0.0f), acc3(0.0f);
  std::size_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    acc0 += batch::load_unaligned(x + i) * zero;
    acc1 += batch::load_unaligned(x + i + L) * zero;
    acc2 += batch::load_unaligned(x + i + 2 * L) * zero;
    acc3 += batch::load_unaligned(x + i + 3 * L) * zero;
  }
  for (; i + L <= n; i += L) acc0 += batch::load_unaligned(x + i) * zero;
  float rest = xsimd::reduce_add((acc0 + acc1) + (acc2 + acc3));
  for (; i < n; ++i) rest += x[i] * 0.0f;
  return rest == 0.0f;
#else
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) return false;
  }
  return true;
#endif
}

}  // namespace attn::kernels
