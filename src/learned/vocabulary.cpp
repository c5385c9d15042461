#include "vocabulary.hpp"

#include "../error.hpp"

namespace attn::learned {

namespace {

std::string describe(unsigned char c) {
  if (c >= 0x21 && c < 0x7f) return "\"" + std::string(1, char(c)) + "\"";
  if (c >= 0x80) return "a non-ASCII character";
  static const char* hex = "0123456789abcdef";
  return std::string("the control character 0x") + hex[c >> 4] + hex[c & 15];
}

}  // namespace

std::vector<int> encode(std::string_view text, std::size_t context) {
  if (text.size() + 1 > context) {
    throw Error("the text has " + std::to_string(text.size()) + " characters, but the model reads at most " +
                std::to_string(context - 1) + " (its context is " + std::to_string(context) +
                " tokens, one of them BOS)");
  }
  std::vector<int> ids{kBos};
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto at = kSymbols.find(text[i]);
    if (at == std::string_view::npos) {
      throw Error("character " + std::to_string(i + 1) + " is " + describe((unsigned char)text[i]) +
                  ", which the model does not know: it reads only the letters a to z and the space");
    }
    ids.push_back(int(at));
  }
  return ids;
}

std::string token_name(int id) {
  if (id == kBos) return std::string(kBosName);
  return std::string(1, kSymbols.at(std::size_t(id)));
}

}  // namespace attn::learned
