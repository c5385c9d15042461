#pragma once
// Closed-form counts for the lesson's "Parameters" and "Cost" paragraphs.
#include <cstdint>

namespace attn {

// Weights of one multi-head attention layer: W_Q, W_K, W_V, W_O are d×d, so 4d²
// (+ 4d with biases). The number of heads does not change it: the heads split d, they do not
// multiply it (the lesson's fourth pitfall); they are checked only for dividing d_model.
// GPT-2 small, d = 768, h = 12: 2,359,296 without biases, 2,362,368 with them.
// Throws attn::Error if d_model is 0 or not divisible by heads.
std::uint64_t parameter_count(std::uint64_t d_model, std::uint64_t heads, bool bias);

struct Cost {
  // FLOPs count a multiply and an add as 2, so an (a×b)·(b×c) product costs 2abc.
  std::uint64_t projection_flops = 0;  // Q = X·W_Q (n rows), K and V (m rows): 2d²(n + 2m)
  std::uint64_t score_flops = 0;       // QKᵀ over all heads: 2·n·m·d
  std::uint64_t value_flops = 0;       // A·V over all heads: 2·n·m·d
  std::uint64_t output_flops = 0;      // Concat·W_O: 2·n·d²
  std::uint64_t attention_bytes = 0;   // the h attention matrices in float32: 4·h·n·m
};

// n queries, m keys (m = n for self-attention). Throws attn::Error if d_model is 0 or not
// divisible by heads, or if a count does not fit in 64 bits.
Cost cost(std::uint64_t n, std::uint64_t m, std::uint64_t d_model, std::uint64_t heads);

}  // namespace attn
