#pragma once
// UTF-8 as Unicode defines it, for the two readers of text from outside: the safetensors header's
// JSON (gpt2/safetensors.cpp) and GPT-2's tokenizer (gpt2/tokenizer.cpp).
#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

// The length of the complete, well-formed UTF-8 character at s[i] (i < s.size()), or 0 if none
// starts there: Unicode's table 3-7, so no overlong forms, no surrogates, nothing past U+10FFFF.
std::size_t utf8_char_length(std::string_view s, std::size_t i);

// Appends code point c (at most 0x10FFFF, not a surrogate) to s as UTF-8.
void append_utf8(std::string& s, char32_t c);

}  // namespace attn
