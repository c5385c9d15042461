#include "mask.hpp"

#include <cstdint>
#include <string>

#include "error.hpp"
#include "validate.hpp"

namespace attn {

std::string to_string(const Mask& mask) {
  std::string out;
  const auto add = [&out](const char* part) { out += out.empty() ? part : std::string(" + ") + part; };
  if (mask.is_causal) add("causal");
  if (!mask.padded_keys.empty()) add("key padding");
  if (!mask.hidden_pairs.empty()) add("custom");
  return out.empty() ? "none" : out;
}

void validate_mask(const Mask& mask, std::size_t n, std::size_t m) {
  if (!mask.padded_keys.empty() && mask.padded_keys.size() != m) {
    throw Error("key padding mask has " + count(mask.padded_keys.size(), "entry", "entries") + " but K has " +
                count(m, "row", "rows") + ": the mask needs one flag per key");
  }
  if (mask.hidden_pairs.empty()) return;
  // n·m must not wrap around: a wrapped product could match a short mask.
  if (m != 0 && n > SIZE_MAX / m) {
    throw Error("custom mask: Q has " + count(n, "row", "rows") + " and K has " + std::to_string(m) +
                ", too many for one flag per query and key");
  }
  if (mask.hidden_pairs.size() != n * m) {
    throw Error("custom mask has " + count(mask.hidden_pairs.size(), "entry", "entries") + " but Q has " +
                count(n, "row", "rows") + " and K has " + std::to_string(m) + ": the mask needs n×m = " +
                std::to_string(n * m) + " flags, one per query and key");
  }
}

std::vector<std::uint8_t> expand_mask(const Mask& mask, std::size_t n, std::size_t m) {
  std::vector<std::uint8_t> grid(n * m, kVisible);
  const bool padding = !mask.padded_keys.empty(), custom = !mask.hidden_pairs.empty();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t* row = grid.data() + i * m;
    for (std::size_t j = 0; j < m; ++j) {
      std::uint8_t why = kVisible;
      if (mask.is_causal && j > i) why |= kHiddenCausal;
      if (padding && mask.padded_keys[j] != 0) why |= kHiddenPadding;
      if (custom && mask.hidden_pairs[i * m + j] != 0) why |= kHiddenCustom;
      row[j] = why;
    }
  }
  return grid;
}

}  // namespace attn
