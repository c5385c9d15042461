#pragma once
// Scaled dot-product attention, Attention(Q, K, V) = softmax(QKᵀ/√d_k) V, returning every
// intermediate the lesson shows so a page can display each step.
//
// Q is n×d_k, K is m×d_k, V is m×d_v; n and m may differ (cross-attention).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "mask.hpp"
#include "matrix.hpp"

namespace attn {

// Deliberately wrong settings. They exist only so the calculator can demonstrate the lesson's
// "Common pitfalls"; correct attention leaves both at their defaults.
struct Pitfalls {
  // Replaces the correct 1/√d_k. The pitfalls are 1 (no scaling) and 1/d_k (scaling by d_k).
  // Must be finite and > 0.
  std::optional<float> scale;
  // Zero the masked weights after the softmax instead of masking the scores before it:
  // the remaining weights then no longer sum to 1.
  bool mask_after_softmax = false;
};

struct AttentionOptions {
  Mask mask;
  Pitfalls pitfalls;
};

struct AttentionResult {
  float scale = 0.0f;      // the factor applied to the scores (1/√d_k unless a pitfall)
  Matrix scores;           // QKᵀ, n×m
  Matrix scaled;           // scores · scale, before masking
  Matrix masked;           // scaled with -inf where hidden (equals scaled when mask_after_softmax)
  std::vector<float> row_max;  // max of each row of masked; -inf for a fully masked row
  Matrix exp;              // exp(masked - row_max); 0 where masked
  std::vector<float> row_sum;  // Σ of each row of exp; 0 for a fully masked row
  Matrix weights;          // A = exp / row_sum; each row sums to 1 (0 for a fully masked row)
  Matrix output;           // Z = A V, n×d_v
  std::vector<std::uint8_t> hidden;        // n×m, 1 where the mask hides the key from the query
  std::vector<std::uint8_t> fully_masked;  // n, 1 where every key is hidden from the query
};

// Defined results, never NaN:
// - a fully masked row has weights 0, output 0, row_max -inf, row_sum 0 and fully_masked 1;
// - scores of any finite size (1e4, -1e4, 1e30) give correct weights thanks to the row max;
// - NaN or ±Inf inputs, mismatched sizes, empty matrices and sizes over limits:: throw
//   attn::Error with a message that says what is wrong;
// - float32 overflow follows the range rule shared with the streaming path (validate.hpp): a
//   score of QKᵀ (hidden or not) or an output is an error only when its value computed in
//   double is outside float32's range, so both paths accept the same inputs; a pitfall scale
//   that overflows the scaled scores is an error too.
AttentionResult attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                          const AttentionOptions& options = {});

}  // namespace attn
