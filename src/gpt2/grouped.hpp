#pragma once
// Numbers as a learner reads them in the core's messages: 50257 → "50,257".
#include <cstddef>
#include <cstdint>
#include <string>

namespace attn::gpt2 {

// The digits of a whole number, a comma before each group of three from the right.
inline std::string grouped_digits(const std::string& digits) {
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

inline std::string grouped(std::uint64_t v) { return grouped_digits(std::to_string(v)); }

}  // namespace attn::gpt2
