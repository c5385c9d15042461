#pragma once
// Scalar reference for the LayerNorm kernel (kernels/layernorm.hpp), in double: the oracle the
// SIMD kernel is tested against, and the implementation of the scalar WebAssembly build.
#include <cassert>
#include <cmath>
#include <cstddef>

namespace attn::reference {

// y[i] = (x[i] − mean) / √(var + eps) · gamma[i] + beta[i] over one row of n, with the biased
// variance (divided by n, as PyTorch's LayerNorm). y may be x.
inline void layernorm_ref(const float* x, const float* gamma, const float* beta, float* y, std::size_t n,
                          float eps = 1e-5f) {
  assert(n != 0);
  double mean = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean += double(x[i]);
  mean /= double(n);
  double var = 0.0;
  for (std::size_t i = 0; i < n; ++i) var += (double(x[i]) - mean) * (double(x[i]) - mean);
  var /= double(n);
  const double rstd = 1.0 / std::sqrt(var + double(eps));
  for (std::size_t i = 0; i < n; ++i) y[i] = float((double(x[i]) - mean) * rstd * double(gamma[i]) + double(beta[i]));
}

}  // namespace attn::reference
