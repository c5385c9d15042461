#pragma once
// Closed-form counts for the lesson's "Parameters" and "Cost" paragraphs.
#include <cstdint>
#include <string>

namespace attn {

// Weights of one multi-head attention layer: W_Q, W_K, W_V, W_O are d×d, so 4d²
// (+ 4d with biases). The number of heads does not change it: the heads split d, they do not
// multiply it (the lesson's fourth pitfall); they are checked only for dividing d_model.
// GPT-2 small, d = 768, h = 12: 2,359,296 without biases, 2,362,368 with them.
// Throws attn::Error if d_model is 0 or not divisible by heads, or if the count is over
// 2^53 − 1 (every result here leaves the core as a double, exact only up to there).
std::uint64_t parameter_count(std::uint64_t d_model, std::uint64_t heads, bool bias);

// Which side of the layer's FLOPs is larger: the two n×m attention products (scores and A·V) or
// the four d×d projections (W_Q, W_K, W_V and W_O). A tie counts as projections.
enum class Dominant { attention, projections };

const char* to_string(Dominant dominant);

struct Cost {
  // FLOPs count a multiply and an add as 2, so an (a×b)·(b×c) product costs 2abc.
  std::uint64_t projection_flops = 0;  // Q = X·W_Q (n rows), K and V (m rows): 2d²(n + 2m)
  std::uint64_t score_flops = 0;       // QKᵀ over all heads: 2·n·m·d
  std::uint64_t value_flops = 0;       // A·V over all heads: 2·n·m·d
  std::uint64_t output_flops = 0;      // Concat·W_O: 2·n·d²
  std::uint64_t attention_bytes = 0;   // the h attention matrices in float32: 4·h·n·m
  // attention if score_flops + value_flops > projection_flops + output_flops, else projections.
  Dominant dominant = Dominant::projections;
};

// The self-attention length (m = n) past which the attention products cost more than the
// projections: 2·d_model. With m = n, scores + A·V cost 2n²d + 2n²d = 4n²d, and the projections
// plus W_O cost 2d²(n + 2n) + 2nd² = 8nd². So 4n²d > 8nd² ⇔ n > 2d (n, d > 0): the heads do not
// enter, and at n = 2d the two are equal. GPT-2 small (d = 768): 1536 tokens.
// Throws attn::Error if d_model is 0 or 2·d_model is over 2^53 − 1.
std::uint64_t crossover_n(std::uint64_t d_model);

// n queries, m keys (m = n for self-attention). Throws attn::Error if d_model is 0 or not
// divisible by heads, or if a count is over 2^53 − 1 (exact in a double up to there).
Cost cost(std::uint64_t n, std::uint64_t m, std::uint64_t d_model, std::uint64_t heads);

// The one message for a count over limits::kMaxExactCount ("<what> is over 2^53 − 1 = …"), for
// this module and the bindings alike.
std::string count_too_large(const std::string& what);

}  // namespace attn
