#pragma once
// Multi-head self-attention with the lesson's conventions:
//   Q = X·W_Q + b_Q, K = X·W_K + b_K, V = X·W_V + b_V            (X is n×d_model)
//   head i = Attention(Q_i, K_i, V_i), where Q_i is columns i·d_k .. (i+1)·d_k − 1 of Q
//   output = Concat(head_1 … head_h)·W_O + b_O
// W are d_model×d_model and multiply from the right; PyTorch's nn.Linear stores their transpose.
// The heads are a reshape of the projected matrices (column slices), not h separate projections.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention.hpp"
#include "matrix.hpp"

namespace attn {

struct MultiHeadParams {
  Matrix wq, wk, wv, wo;                // d_model×d_model each
  std::vector<float> bq, bk, bv, bo;    // d_model entries each, or empty for no bias
  std::uint64_t heads = 1;              // h, 1..limits::kMaxHeads, dividing d_model; 64-bit as a
                                        // caller gives it, so the check sees the value itself
};

struct MultiHeadResult {
  Matrix q, k, v;                       // projections, n×d_model
  std::vector<AttentionResult> heads;   // one per head, with every intermediate (d_k = d_model/h)
  Matrix concat;                        // head outputs side by side, n×d_model
  Matrix output;                        // concat·W_O + b_O, n×d_model
};

// Throws attn::Error on bad shapes ("d_model 10 is not divisible by 3 heads"), non-finite
// values, sizes over limits:: or float32 overflow. The mask is n×n (self-attention).
MultiHeadResult multi_head_attention(const MatrixView& x, const MultiHeadParams& params,
                                     const Mask& mask = {});

}  // namespace attn
