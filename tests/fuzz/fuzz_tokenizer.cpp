// libFuzzer harness: GPT-2's tokenizer (src/gpt2/tokenizer.hpp). Byte 0 picks what the rest is:
//   0, 1  a text (any bytes) for GPT-2's own file: encode() must not crash, every id must be a
//         token, and the tokens' bytes must join into the text as gpt-3-encoder sees it (invalid
//         UTF-8 read as TextDecoder reads it: one U+FFFD per maximal invalid subpart; checked here
//         by an implementation of that rule written apart from the tokenizer's);
//   2     a whole tokenizer file for from_bytes();
//   3     GPT-2's file cut to its first 1 + (byte 1) * 8 merges, then patched: each 4 bytes after
//         byte 1 are an offset (3 bytes, little-endian, modulo the size) and a byte to write there.
// A file that loads (2, 3) must then tokenize a few texts with the same checks; one that does not
// must be refused with attn::Error. tests/fuzz/corpus/tokenizer/ holds seeds of every kind.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "fuzz/fuzz_input.hpp"
#include "gpt2/tokenizer.hpp"

namespace {

std::vector<std::uint8_t> read_gpt2_file() {
  std::ifstream file(ATTN_GPT2_TOKENIZER_FILE, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < 12) fuzz::fail("cannot read " ATTN_GPT2_TOKENIZER_FILE, "tools/build.sh fuzz makes it");
  return bytes;
}

const std::vector<std::uint8_t>& gpt2_file() {
  static const std::vector<std::uint8_t> bytes = read_gpt2_file();
  return bytes;
}

const attn::gpt2::Tokenizer& gpt2() {
  static const attn::gpt2::Tokenizer tokenizer = attn::gpt2::Tokenizer::from_bytes(gpt2_file().data(), gpt2_file().size());
  return tokenizer;
}

// Unicode's well-formed UTF-8 (table 3-7) and its "maximal subpart" practice, which the WHATWG
// decoder follows: a well-formed character is kept; otherwise the longest prefix of one becomes a
// single U+FFFD (at least one byte).
std::string expected_bytes(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t length = 1;  // 0: the byte never starts a character
    unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
    if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      lo = b == 0xE0 ? 0xA0 : 0x80;
      hi = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      lo = b == 0xF0 ? 0x90 : 0x80;
      hi = b == 0xF4 ? 0x8F : 0xBF;
    } else if (b >= 0x80) {
      length = 0;
    }
    std::size_t good = length == 0 ? 0 : 1;
    while (good < length && i + good < s.size()) {
      const auto c = static_cast<unsigned char>(s[i + good]);
      if (c < (good == 1 ? lo : 0x80) || c > (good == 1 ? hi : 0xBF)) break;
      ++good;
    }
    if (length > 0 && good == length) {
      out.append(s.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      i += good > 0 ? good : 1;
    }
  }
  return out;
}

void check_encoding(const attn::gpt2::Tokenizer& t, std::string_view text) {
  const std::vector<std::int32_t> ids = t.encode(text);
  std::string joined;
  for (const std::int32_t id : ids) {
    FUZZ_CHECK(id >= 0 && id < t.vocab_size() - 1, "encode()", "id " + std::to_string(id) + " is no token of the text");
    joined += t.token_bytes(id);
    (void)t.token_text(id);
  }
  FUZZ_CHECK(joined == expected_bytes(text), "encode()", "the tokens' bytes do not join into the text");
  FUZZ_CHECK(joined == attn::gpt2::Tokenizer::normalized_utf8(text), "normalized_utf8()", "disagrees with the rule");
}

void check_file(const std::uint8_t* data, std::size_t size) {
  try {
    const auto t = attn::gpt2::Tokenizer::from_bytes(data, size);
    FUZZ_CHECK(t.vocab_size() >= 257, "from_bytes()", "fewer than 257 tokens");
    FUZZ_CHECK(t.token_bytes(t.vocab_size() - 1) == "<|endoftext|>", "from_bytes()", "<|endoftext|> is not last");
    for (const char* text : {"The cat sat on the mat because it was tired", "\",\" ],[ '' 's", "caf\xC3\xA9 \xE6\x9D\xB1 \xF0\x9F\x90\x88\xFF"}) {
      check_encoding(t, text);
    }
  } catch (const attn::Error&) {
    // refused: what a malformed file must get
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t* rest = data + 1;
  const std::size_t n = size - 1;
  switch (data[0] % 4) {
    case 0:
    case 1:
      check_encoding(gpt2(), std::string_view(reinterpret_cast<const char*>(rest), n));
      break;
    case 2:
      check_file(rest, n);
      break;
    default: {
      const std::size_t merges = 1 + std::size_t(n > 0 ? rest[0] : 0) * 8;
      std::vector<std::uint8_t> file(gpt2_file().begin(), gpt2_file().begin() + std::ptrdiff_t(12 + 4 * merges));
      for (int i = 0; i < 4; ++i) file[8 + std::size_t(i)] = std::uint8_t(merges >> (8 * i));
      for (std::size_t k = 1; k + 4 <= n; k += 4) {
        const std::size_t at = rest[k] | (std::size_t(rest[k + 1]) << 8) | (std::size_t(rest[k + 2]) << 16);
        file[at % file.size()] = rest[k + 3];
      }
      check_file(file.data(), file.size());
      break;
    }
  }
  return 0;
}
