#include "mask.hpp"

#include <cstdint>
#include <string>

#include "error.hpp"
#include "validate.hpp"

namespace attn {

const char* to_string(MaskKind kind) {
  switch (kind) {
    case MaskKind::none: return "none";
    case MaskKind::causal: return "causal";
    case MaskKind::key_padding: return "key padding";
    case MaskKind::custom: return "custom";
  }
  return "unknown";
}

void validate_mask(const Mask& mask, std::size_t n, std::size_t m) {
  const std::string got = count(mask.hidden.size(), "entry", "entries");
  switch (mask.kind) {
    case MaskKind::none:
    case MaskKind::causal:
      return;
    case MaskKind::key_padding:
      if (mask.hidden.size() != m) {
        throw Error("key padding mask has " + got + " but K has " + count(m, "row", "rows") +
                    ": the mask needs one flag per key");
      }
      return;
    case MaskKind::custom:
      // n·m must not wrap around: a wrapped product could match a short mask.
      if (m != 0 && n > SIZE_MAX / m) {
        throw Error("custom mask: Q has " + count(n, "row", "rows") + " and K has " +
                    std::to_string(m) + ", too many for one flag per query and key");
      }
      if (mask.hidden.size() != n * m) {
        throw Error("custom mask has " + got + " but Q has " + count(n, "row", "rows") +
                    " and K has " + std::to_string(m) + ": the mask needs n×m = " +
                    std::to_string(n * m) + " flags, one per query and key");
      }
      return;
  }
  throw Error("unknown mask kind");
}

std::vector<std::uint8_t> expand_mask(const Mask& mask, std::size_t n, std::size_t m) {
  std::vector<std::uint8_t> grid(n * m, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      bool hide = false;
      switch (mask.kind) {
        case MaskKind::none: break;
        case MaskKind::causal: hide = j > i; break;
        case MaskKind::key_padding: hide = mask.hidden[j] != 0; break;
        case MaskKind::custom: hide = mask.hidden[i * m + j] != 0; break;
      }
      grid[i * m + j] = hide ? 1 : 0;
    }
  }
  return grid;
}

}  // namespace attn
