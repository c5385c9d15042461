#pragma once
// Scalar references for the training kernels (kernels/backward.hpp), accumulated in double.
// They are the oracle the SIMD kernels are tested against and the scalar wasm build's code.
#include <cassert>
#include <cmath>
#include <cstddef>

namespace attn::learned::reference {

// C (d×p, stride ldc) (+)= Aᵀ·B, with A n×d (stride lda) and B n×p (stride ldb): the weight
// gradient Xᵀ·dY of a product Y = X·W, and dV = Pᵀ·dO, dK = dSᵀ·Q in attention.
inline void matmul_atb_ref(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                           std::size_t ldc, std::size_t n, std::size_t d, std::size_t p, bool accumulate) {
  assert(n != 0 && d != 0 && p != 0);
  for (std::size_t i = 0; i < d; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      double sum = accumulate ? double(c[i * ldc + j]) : 0.0;
      for (std::size_t t = 0; t < n; ++t) sum += double(a[t * lda + i]) * double(b[t * ldb + j]);
      c[i * ldc + j] = float(sum);
    }
  }
}

// The softmax's backward on one row: ds[j] = scale · p[j] · (dp[j] − Σ_k p[k]·dp[k]).
// ds may alias dp. Entries with p = 0 (hidden keys, a fully masked row) get exactly 0.
inline void softmax_backward_row_ref(const float* p, const float* dp, float* ds, std::size_t m, float scale) {
  assert(m != 0);
  double r = 0.0;
  for (std::size_t j = 0; j < m; ++j) r += double(p[j]) * double(dp[j]);
  for (std::size_t j = 0; j < m; ++j) ds[j] = float(double(scale) * double(p[j]) * (double(dp[j]) - r));
}

// One AdamW step on n weights (decoupled weight decay, Loshchilov and Hutter):
// m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g², w ← w − lr·(m/c₁ / (√(v/c₂) + ε) + λw),
// with the bias corrections c₁ = 1 − β₁ᵗ and c₂ = 1 − β₂ᵗ passed in.
struct AdamWStep {
  float lr, beta1, beta2, eps, decay, correction1, correction2;
};

inline void adamw_ref(float* w, const float* g, float* m, float* v, std::size_t n, const AdamWStep& s) {
  for (std::size_t i = 0; i < n; ++i) {
    m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * g[i];
    v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * g[i] * g[i];
    const float mhat = m[i] / s.correction1;
    const float vhat = v[i] / s.correction2;
    w[i] -= s.lr * (mhat / (std::sqrt(vhat) + s.eps) + s.decay * w[i]);
  }
}

}  // namespace attn::learned::reference
