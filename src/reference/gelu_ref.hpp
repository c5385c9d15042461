#pragma once
// Scalar reference for the GELU kernel (kernels/gelu.hpp): the tanh approximation GPT-2 uses
// ("gelu_new"), written as its formula and computed in double.
#include <cmath>
#include <cstddef>

namespace attn::reference {

// y[i] = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). y may be x.
// For x below about −9, 1 + tanh(…) is under double's rounding of 1 and this gives 0 where the
// true value is a tiny negative number (−1e-28 at x = −9); the kernel's tests allow for it.
inline void gelu_tanh_ref(const float* x, float* y, std::size_t n) {
  const double c = std::sqrt(2.0 / 3.14159265358979323846);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = double(x[i]);
    y[i] = float(0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v))));
  }
}

}  // namespace attn::reference
