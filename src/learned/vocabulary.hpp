#pragma once
// The learned model's characters: a–z and the space, then BOS, the token the API puts first.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::learned {

inline constexpr std::string_view kSymbols = "abcdefghijklmnopqrstuvwxyz ";
inline constexpr int kBos = int(kSymbols.size());     // 27
inline constexpr int kVocabulary = kBos + 1;           // 28 token ids
inline constexpr std::string_view kBosName = "<bos>";  // how a BOS token is shown

// BOS followed by one token per character. Throws attn::Error naming the first character outside
// the vocabulary (by position, in the user's words) or text longer than context − 1 characters.
std::vector<int> encode(std::string_view text, std::size_t context);

// The symbol of a token id ("<bos>" for BOS).
std::string token_name(int id);

}  // namespace attn::learned
