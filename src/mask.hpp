#pragma once
// Which keys each query may not see. Masks are applied to the scaled scores before the
// softmax: a hidden entry becomes -inf, so its weight is exactly 0 and the rest renormalize.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace attn {

enum class MaskKind {
  none,         // every query sees every key
  causal,       // query i sees keys j <= i (j > i hidden): what makes a decoder autoregressive
  key_padding,  // one flag per key, the same for every query (hides filler tokens)
  custom,       // one flag per (query, key) pair, n×m row-major
};

struct Mask {
  MaskKind kind = MaskKind::none;
  std::vector<std::uint8_t> hidden;  // key_padding: m flags; custom: n×m flags; non-zero = hidden

  static Mask none() { return {}; }
  static Mask causal() { return {MaskKind::causal, {}}; }
  static Mask key_padding(std::vector<std::uint8_t> hidden_keys) {
    return {MaskKind::key_padding, std::move(hidden_keys)};
  }
  static Mask custom(std::vector<std::uint8_t> hidden_pairs) {
    return {MaskKind::custom, std::move(hidden_pairs)};
  }
};

const char* to_string(MaskKind kind);

// Throws attn::Error unless the mask fits n queries and m keys.
void validate_mask(const Mask& mask, std::size_t n, std::size_t m);

// The n×m grid of hidden flags (1 = hidden) that the mask stands for. Precondition: validate_mask.
std::vector<std::uint8_t> expand_mask(const Mask& mask, std::size_t n, std::size_t m);

}  // namespace attn
