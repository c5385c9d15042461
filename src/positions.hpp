#pragma once
// Why positions must be injected (the positions lab, issue 40 §1). Attention alone is
// permutation-equivariant: reorder the tokens and Z's rows reorder with them, so it cannot tell
// order. Each scheme here breaks that in its own way:
// - sinusoidal (the original Transformer) and learned add a vector per position; the original adds
//   it to X before the projections, and here, Q, K and V being given (the projections the identity),
//   to each of their rows;
// - RoPE rotates each pair (2j, 2j+1) of q and k by position × 10000^(−2j/d_k), so a score depends
//   only on the two positions' difference;
// - ALiBi adds −m·(i − j) to the scores, a penalty growing with distance (m = 2^(−8), the slope ALiBi
//   gives a single head; −m·|i − j| for keys after the query, when no causal mask hides them).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "matrix.hpp"

namespace attn {

enum class PositionScheme { none, sinusoidal, learned, rope, alibi };

// "none", "sinusoidal", "learned", "rope", "alibi"; throws attn::Error in words for any other name.
PositionScheme position_scheme_from_string(std::string_view name);

struct PositionalOptions {
  PositionScheme scheme = PositionScheme::none;
  std::vector<std::size_t> order;  // empty, or a permutation of 0..n−1: row i is token order[i]
  bool causal = false;
  std::uint64_t seed = 1;          // the learned table's
  double alibi_slope = 1.0 / 256;  // m
};

struct PositionalResult {
  Matrix q, k, v;  // the tokens in order, positions applied: what attention reads
  Matrix bias;     // n×n, added to the scaled scores (ALiBi's; zeros for the other schemes)
  float scale = 0.0f;
  Matrix scores;   // q·kᵀ · scale + bias, n×n (−∞ where the causal mask hides a key)
  Matrix weights;  // the softmax of each row
  Matrix output;   // Z = weights · v
};

// q, k n×d_k and v n×d_v, one row a token (self-attention). Throws attn::Error in words for an
// order that is not a permutation of 0..n−1, and for attention()'s input errors.
PositionalResult positional_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                                      const PositionalOptions& options);

// The sinusoidal vector of a position, d entries: sin(p / 10000^(2i/d)) at 2i, cos at 2i + 1.
std::vector<float> sinusoidal_position(std::size_t position, std::size_t d);

}  // namespace attn
