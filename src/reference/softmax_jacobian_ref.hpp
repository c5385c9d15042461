#pragma once
// The float64 references of softmax_row_measures (scaling.hpp). The Jacobian's norm, by the definition and nothing
// cleverer: the whole n×n Jacobian J_ij = p_i(δ_ij − p_j) in long double (80-bit natively, 128-bit
// under Emscripten), squared entry by entry and summed. Only the diagonal's 1 − p_i is taken as
// the sum of the other weights, which is what it is: a nearly one-hot row would otherwise lose
// every digit of it. Tests only; O(n²).
#include <cassert>
#include <cmath>
#include <cstddef>
#include <vector>

namespace attn::reference {

inline double softmax_jacobian_norm_ref(const double* s, std::size_t n) {
  assert(n != 0);
  long double max = -INFINITY;
  for (std::size_t i = 0; i < n; ++i) max = s[i] > max ? s[i] : max;
  if (std::isinf(max)) return 0.0;
  std::vector<long double> p(n);
  long double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += p[i] = std::exp(static_cast<long double>(s[i]) - max);
  for (long double& x : p) x /= sum;
  long double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      long double d;
      if (i == j) {
        long double others = 0;
        for (std::size_t k = 0; k < n; ++k) others += k == i ? 0 : p[k];
        d = p[i] * others;
      } else {
        d = -p[i] * p[j];
      }
      total += d * d;
    }
  }
  return static_cast<double>(std::sqrt(total));
}

// The entropy of softmax(s) in nats, −Σ p_i ln p_i in long double with ln p_i = (s_i − max) − ln Z
// and ln Z = log1p(the other keys' sum): ln p_max taken as ln(1/Z) after rounding would lose the
// whole p_max·ln p_max ≈ −(1 − p_max) term of a nearly one-hot row. Hidden keys add nothing.
inline double softmax_entropy_ref(const double* s, std::size_t n) {
  assert(n != 0);
  std::size_t top = 0;
  for (std::size_t i = 0; i < n; ++i) top = s[i] > s[top] ? i : top;
  if (std::isinf(s[top])) return 0.0;
  const long double max = s[top];
  long double others = 0;
  for (std::size_t i = 0; i < n; ++i) others += i == top ? 0 : std::exp(static_cast<long double>(s[i]) - max);
  const long double log_z = std::log1p(others);
  long double h = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double x = static_cast<long double>(s[i]) - max, p = std::exp(x - log_z);
    if (p > 0) h += p * (log_z - x);
  }
  return static_cast<double>(h);
}

}  // namespace attn::reference
