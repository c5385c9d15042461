#pragma once
// "Construct a head": attention heads built by hand, standing in for the lesson's "look inside
// GPT-2" exercise (this project has no model weights). The weights are constructed, not learned.
//
// A sentence is split on whitespace into n tokens (at most limits::kMaxConstructTokens). Token i is the
// feature vector x_i = [one-hot position (n columns) | one-hot token identity (one column per
// distinct lower-cased token, in order of first appearance)], d = n + vocabulary. W_Q and W_K
// are d×d with entries 0 and kConstructStrength, multiply from the right (q = x·W_Q, k = x·W_K),
// and are made so that q_i·k_j = strength² for the keys the head is meant to find and 0 for the
// rest. After the 1/√d scaling that is 36/√d ≥ 6.3 for d ≤ 32 against 0, so with a causal mask
// the intended key gets weight e^a/(e^a + i) > 0.97 for a single intended key.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "limits.hpp"
#include "matrix.hpp"

namespace attn {

enum class HeadKind {
  previous_token,  // each token attends to the one before it; the first token to itself
  first_token,     // every token attends to token 1 (an "attention sink")
  same_token,      // each token attends to its own earlier occurrences and itself
};

// "previous-token", "first-token", "same-token"; anything else throws attn::Error.
HeadKind head_kind_from_string(std::string_view kind);
const char* to_string(HeadKind kind);

inline constexpr float kConstructStrength = 6.0f;
inline constexpr const char* kDefaultSentence = "The cat sat on the mat because it was tired";

struct ConstructedHead {
  std::vector<std::string> tokens;    // as written in the sentence
  std::vector<std::string> features;  // "pos 1" … "pos n", then each lower-cased token once
  Matrix x;                           // n×d features
  Matrix wq, wk;                      // d×d
  float strength = kConstructStrength;
  // Per query, the key indices (0-based, ascending) the head is meant to attend to; all are
  // at or before the query, so a causal mask keeps them visible.
  std::vector<std::vector<std::size_t>> expected;
};

// Throws attn::Error for an empty sentence or more than limits::kMaxConstructTokens tokens.
ConstructedHead constructed_head(HeadKind kind, std::string_view sentence = kDefaultSentence);

}  // namespace attn
