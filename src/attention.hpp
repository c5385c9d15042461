#pragma once
// Scaled dot-product attention, Attention(Q, K, V) = softmax(QKᵀ/√d_k) V, returning every
// intermediate the lesson shows so a page can display each step.
//
// Q is n×d_k, K is m×d_k, V is m×d_v; n and m may differ (cross-attention).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "mask.hpp"
#include "matrix.hpp"

namespace attn {

// The factor the scores are multiplied by: the correct 1/√d_k, or one of the lesson's pitfalls.
enum class Scaling {
  sqrt_dk,  // 1/√d_k: correct attention
  dk,       // 1/d_k: the pitfall "scale by d_k instead of √d_k"
  none,     // 1: the pitfall "no scaling"
};

// "sqrt", "dk", "none": the names attention.js takes for scale.
const char* to_string(Scaling scaling);

// The Scaling named by to_string's name. Throws attn::Error for any other name, with the
// message for every form scale takes, since a name is only one of them.
Scaling scaling_from_string(std::string_view name);

// Deliberately wrong settings. They exist only so the calculator can demonstrate the lesson's
// "Common pitfalls"; correct attention leaves them all at their defaults.
struct Pitfalls {
  // Which factor scales the scores, unless `scale` gives one.
  Scaling scaling = Scaling::sqrt_dk;
  // Any other fixed factor, replacing `scaling`. Must be finite and > 0.
  std::optional<float> scale;
  // Zero the masked weights after the softmax instead of masking the scores before it:
  // the remaining weights then no longer sum to 1.
  bool mask_after_softmax = false;
};

struct AttentionOptions {
  Mask mask;
  Pitfalls pitfalls;
};

// The factor `pitfalls` stands for at this d_k, in double: 1/√d_k, 1/d_k, 1, or the fixed scale.
// The core rounds it to float32 once; the float64 check (checks.hpp) uses it as it is.
double exact_scale(const Pitfalls& pitfalls, std::size_t d_k);

// Field names follow the JS API (web/attention.js, attention.d.ts), converted to snake_case:
// scaled_before_mask is scaledBeforeMask, and so on.
struct AttentionResult {
  float scale = 0.0f;          // the factor applied to the scores (1/√d_k unless a pitfall)
  Matrix scores;               // QKᵀ, n×m
  Matrix scaled_before_mask;   // scores · scale, before masking
  Matrix scaled;               // the softmax's input: scaled_before_mask with -inf where hidden
                               // (equal to scaled_before_mask when mask_after_softmax)
  std::vector<float> row_max;  // max of each row of scaled; -inf for a fully masked row
  Matrix exp;                  // exp(scaled - row_max); 0 where hidden
  std::vector<float> row_sum;  // Σ of each row of exp; 0 for a fully masked row
  Matrix weights;              // A = exp / row_sum; each row sums to 1 (0 for a fully masked row)
  Matrix output;               // Z = A V, n×d_v
  // n×m: 0 where key j is visible to query i, else the MaskReason bits of the rules that hide it.
  std::vector<std::uint8_t> hidden;
  std::vector<std::uint8_t> fully_masked;  // n, 1 where every key is hidden from the query
};

// Defined results, never NaN:
// - a fully masked row has weights 0, output 0, row_max -inf, row_sum 0 and fully_masked 1;
// - scores of any finite size (1e4, -1e4, 1e30) give correct weights thanks to the row max;
// - NaN or ±Inf inputs, mismatched sizes, empty matrices and sizes over limits:: throw
//   attn::Error with a message that says what is wrong;
// - float32 overflow follows the range rule shared with the streaming path (kernels/float_checks.hpp): a
//   score of QKᵀ (hidden or not) or an output is an error only when its value computed in
//   double is outside float32's range, so both paths accept the same inputs; a pitfall scale
//   that overflows the scaled scores is an error too.
AttentionResult attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                          const AttentionOptions& options = {});

// attention()'s checks of its inputs alone: Q, K and V finite and within limits::, K as wide as
// Q, V as long as K, and one n×m matrix within limits::kMaxScoreEntries. Throws attn::Error.
void validate_attention_inputs(const MatrixView& q, const MatrixView& k, const MatrixView& v);

}  // namespace attn
