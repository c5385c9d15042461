#pragma once
// Scalar references for the softmax pieces, in double. See matmul_ref.hpp for their two roles.
#include <cassert>
#include <cmath>
#include <cstddef>
#include <limits>

namespace attn::reference {

// Largest element; -inf for a row that is all -inf (a fully masked row).
inline float reduce_max_ref(const float* x, std::size_t n) {
  assert(n != 0);
  float best = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

// The largest element (as reduce_max_ref) and whether every |x[i]| < limit (false for NaN).
struct MaxInRange {
  float max;
  bool in_range;
};
inline MaxInRange reduce_max_in_range_ref(const float* x, std::size_t n, float limit) {
  assert(n != 0);
  bool in_range = true;
  for (std::size_t i = 0; i < n; ++i) in_range = in_range && std::fabs(x[i]) < limit;
  return {reduce_max_ref(x, n), in_range};
}

// y[i] = exp(x[i] - max) and returns Σ y[i]. Subtracting the row max keeps every exponent <= 0,
// so exp never overflows however large the scores are. -inf entries (masked) give exactly 0.
inline float exp_minus_max_sum_ref(const float* x, float max, float* y, std::size_t n) {
  assert(n != 0);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::exp(double(x[i]) - double(max));
    y[i] = float(e);
    sum += e;
  }
  return float(sum);
}

// y[i] = exp((x[i] - max)·scale) and returns Σ y[i]: the streaming path's form, with the
// 1/√d scale applied inside the exp.
inline float exp_scaled_minus_max_sum_ref(const float* x, float max, float scale, float* y, std::size_t n) {
  assert(n != 0);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::exp((double(x[i]) - double(max)) * double(scale));
    y[i] = float(e);
    sum += e;
  }
  return float(sum);
}

// y[i] *= s
inline void scale_ref(float* y, float s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = float(double(y[i]) * double(s));
}

}  // namespace attn::reference
