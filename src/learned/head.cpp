#include "head.hpp"

#include <cmath>
#include <limits>

#include "../kernels/matmul.hpp"
#include "../kernels/softmax.hpp"
#include "kernels/backward.hpp"

namespace attn::learned {

void head_forward(const HeadShape& s, const float* q, std::size_t ldq, const float* k, std::size_t ldk,
                  const float* v, std::size_t ldv, const std::uint8_t* hidden, float* p, float* o,
                  std::size_t ldo) {
  const std::size_t n = s.n, m = s.m;
  attn::kernels::matmul_abt(q, ldq, k, ldk, p, m, n, m, s.d_k);
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    float* row = p + i * m;
    for (std::size_t j = 0; j < m; ++j) {
      if (hidden[i * m + j]) row[j] = kHidden;
    }
    const float max = attn::kernels::reduce_max(row, m);
    if (max == kHidden) {  // every key hidden: the core's defined result, weights 0
      for (std::size_t j = 0; j < m; ++j) row[j] = 0.0f;
      continue;
    }
    if (!std::isfinite(max)) {  // a diverged model's scores past float32: NaN reaches the loss,
      for (std::size_t j = 0; j < m; ++j) row[j] = std::numeric_limits<float>::quiet_NaN();  // which stops it
      continue;
    }
    // The scale goes inside the exp (the streaming path's kernel): exp((x − max)·s); −∞ → 0.
    const float sum = attn::kernels::exp_scaled_minus_max_sum(row, max, s.scale, row, m);
    attn::kernels::scale(row, 1.0f / sum, m);
  }
  attn::kernels::matmul_ab(p, m, v, ldv, o, ldo, n, m, s.d_v);
}

void head_backward(const HeadShape& s, const float* q, std::size_t ldq, const float* k, std::size_t ldk,
                   const float* v, std::size_t ldv, const float* p, const float* d_o, std::size_t ldo,
                   float* dq, float* dk, float* dv, float* scratch) {
  const std::size_t n = s.n, m = s.m;
  kernels::matmul_atb<true>(p, m, d_o, ldo, dv, ldv, n, m, s.d_v);            // dV += Pᵀ dO
  attn::kernels::matmul_abt(d_o, ldo, v, ldv, scratch, m, n, m, s.d_v);       // dP = dO Vᵀ
  for (std::size_t i = 0; i < n; ++i) {
    kernels::softmax_backward_row(p + i * m, scratch + i * m, scratch + i * m, m, s.scale);  // s·dS
  }
  attn::kernels::matmul_ab_add(scratch, m, k, ldk, dq, ldq, n, m, s.d_k);     // dQ += s·dS K
  kernels::matmul_atb<true>(scratch, m, q, ldq, dk, ldk, n, m, s.d_k);        // dK += s·dSᵀ Q
}

}  // namespace attn::learned
