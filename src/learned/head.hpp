#pragma once
// One causal attention head, forward and backward, for training. The forward is the core's
// softmax attention (attention.cpp) built from the same kernels, without its per-call
// validation and allocation, and keeping P for the backward pass (n ≈ 33: storing P is cheap).
//
// Row-major with strides: Q n×d_k, K m×d_k, V m×d_v, P n×m (stride m), O n×d_v.
// hidden: n×m flags, non-zero = the key is hidden from the query (the causal mask, or any).
#include <cstddef>
#include <cstdint>

namespace attn::learned {

struct HeadShape {
  std::size_t n, m, d_k, d_v;
  float scale;  // 1/√d_k, or 1 for the lesson's "no scale" pitfall
};

// P = softmax_rows(scale·Q Kᵀ with hidden entries −∞), O = P V. A fully masked row has P = 0
// and O = 0, as in the core.
void head_forward(const HeadShape& s, const float* q, std::size_t ldq, const float* k, std::size_t ldk,
                  const float* v, std::size_t ldv, const std::uint8_t* hidden, float* p, float* o,
                  std::size_t ldo);

// Given dO, adds the gradients to dQ, dK, dV (same strides as Q, K, V):
//   dV += Pᵀ dO,  dP = dO Vᵀ,  dS = P ⊙ (dP − rowsum(P ⊙ dP)),  dQ += s·dS K,  dK += s·dSᵀ Q.
// scratch: n×m floats.
void head_backward(const HeadShape& s, const float* q, std::size_t ldq, const float* k, std::size_t ldk,
                   const float* v, std::size_t ldv, const float* p, const float* d_o, std::size_t ldo,
                   float* dq, float* dk, float* dv, float* scratch);

}  // namespace attn::learned
