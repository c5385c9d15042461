#pragma once
// Which keys each query may not see: the union of up to three rules, any of them on or off.
//   causal       query i sees keys j <= i (j > i hidden): what makes a decoder autoregressive
//   key padding  one flag per key, the same for every query (hides filler tokens)
//   custom       one flag per (query, key) pair, n×m row-major
// Masks are applied to the scaled scores before the softmax: a hidden entry becomes -inf, so its
// weight is exactly 0 and the rest renormalize. The core also reports, per cell, which of the
// rules hide it (MaskReason bits), so a page can explain a hidden cell without redoing the rules.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// Why a cell is hidden: a bit per rule, or'ed together when several rules hide the same cell.
// 0 is visible.
enum MaskReason : std::uint8_t {
  kVisible = 0,
  kHiddenCausal = 1,
  kHiddenPadding = 2,
  kHiddenCustom = 4,
};

// Each rule's name with its bit, in bit order: the names a page gives the reasons (the binding
// exports them, so no copy of the bits lives in JavaScript).
struct MaskReasonName {
  MaskReason bit;
  const char* name;
};
inline constexpr MaskReasonName kMaskReasonNames[] = {
    {kHiddenCausal, "causal"}, {kHiddenPadding, "padding"}, {kHiddenCustom, "custom"}};

struct Mask {
  bool is_causal = false;                  // hide keys j > i (PyTorch's is_causal)
  std::vector<std::uint8_t> padded_keys;   // empty, or m flags: non-zero = key hidden from every query
  std::vector<std::uint8_t> hidden_pairs;  // empty, or n×m flags: non-zero = key j hidden from query i

  static Mask none() { return {}; }
  static Mask causal() { return {true, {}, {}}; }
  static Mask key_padding(std::vector<std::uint8_t> hidden_keys) { return {false, std::move(hidden_keys), {}}; }
  static Mask custom(std::vector<std::uint8_t> pairs) { return {false, {}, std::move(pairs)}; }

  bool hides_nothing() const { return !is_causal && padded_keys.empty() && hidden_pairs.empty(); }
  // Exactly the causal rule, nothing else: the streaming path's one mask.
  bool causal_only() const { return is_causal && padded_keys.empty() && hidden_pairs.empty(); }
};

// "none", "causal", "causal + key padding", "key padding + custom", …: for messages and tests.
std::string to_string(const Mask& mask);

// Throws attn::Error unless the mask fits n queries and m keys: m padding flags if any, n×m
// custom flags if any.
void validate_mask(const Mask& mask, std::size_t n, std::size_t m);

// The n×m grid of MaskReason bits the mask stands for (0 = visible). Precondition: validate_mask.
std::vector<std::uint8_t> expand_mask(const Mask& mask, std::size_t n, std::size_t m);

}  // namespace attn
