// GPT-2's tokenizer (src/gpt2/tokenizer.hpp) on the file tools/gpt2-tokenizer.mjs writes
// (tools/build.sh makes it in web/wasm/; the path is compiled in). The expected ids are
// gpt-3-encoder 1.1.4's encode(); tests/js/gpt2-tokenizer.test.mjs compares the two on 10,000
// more strings.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "error.hpp"
#include "gpt2/tokenizer.hpp"
#include "utf8.hpp"

using attn::gpt2::Tokenizer;
using Ids = std::vector<std::int32_t>;

namespace {

const Tokenizer& gpt2() {
  static const Tokenizer tokenizer = [] {
    std::ifstream file(ATTN_GPT2_TOKENIZER_FILE, std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (bytes.empty()) FAIL("cannot read " ATTN_GPT2_TOKENIZER_FILE "; tools/build.sh native makes it");
    return Tokenizer::from_bytes(bytes.data(), bytes.size());
  }();
  return tokenizer;
}

// A tokenizer file: the header, then the merges as pairs of ids.
std::vector<std::uint8_t> file_of(const std::vector<std::pair<int, int>>& merges, std::uint16_t version = 1) {
  std::vector<std::uint8_t> f = {'G', 'B', 'P', 'E', std::uint8_t(version), std::uint8_t(version >> 8), 0, 0};
  const auto n = std::uint32_t(merges.size());
  for (int i = 0; i < 4; ++i) f.push_back(std::uint8_t(n >> (8 * i)));
  for (const auto& [a, b] : merges) {
    for (const int id : {a, b}) {
      f.push_back(std::uint8_t(id));
      f.push_back(std::uint8_t(id >> 8));
    }
  }
  return f;
}

Tokenizer load(const std::vector<std::uint8_t>& f) { return Tokenizer::from_bytes(f.data(), f.size()); }

// Ids 0-255 follow GPT-2's byte-to-unicode order: '!' is 0, ',' is 11, '"' is 1, space is 220.
constexpr int kQuote = 1, kComma = 11;

std::string concatenated(const Tokenizer& t, const Ids& ids) {
  std::string s;
  for (const std::int32_t id : ids) s += t.token_bytes(id);
  return s;
}

}  // namespace

TEST_CASE("GPT-2 tokenizer: the lesson's sentence") {
  CHECK(gpt2().vocab_size() == 50257);
  CHECK(gpt2().encode("The cat sat on the mat because it was tired") ==
        Ids{464, 3797, 3332, 319, 262, 2603, 780, 340, 373, 10032});
}

TEST_CASE("GPT-2 tokenizer: gpt-3-encoder's ids") {
  struct Case {
    const char* text;
    Ids ids;
  };
  const Case cases[] = {
      {"I'm sure they'll say it's what we've done, isn't it? You'd RE'S",
       {40, 1101, 1654, 484, 1183, 910, 340, 338, 644, 356, 1053, 1760, 11, 2125, 470, 340, 30, 921, 1549, 4526, 6, 50}},
      {" '' 's", {10148, 705, 82}},
      {"a  b   c\n\nd\n \n  \t x  ", {64, 220, 275, 220, 220, 269, 198, 198, 67, 198, 220, 198, 220, 220, 197, 2124, 220, 220}},
      {"   ", {220, 220, 220}},
      {"\n", {198}},
      {"Pi is 3.14159, 1,000,000 and \u00b2\u00bd \u0663",
       {38729, 318, 513, 13, 1415, 19707, 11, 352, 11, 830, 11, 830, 290, 1587, 110, 23141, 18923, 96}},
      {"caf\u00e9 na\u00efve Z\u00fcrich d\u00e9j\u00e0 vu", {66, 1878, 2634, 41492, 1168, 9116, 7527, 39073, 73, 24247, 410, 84}},
      {"\u673a\u5668\u5b66\u4e60\u5f88\u6709\u8da3\u3002\u6771\u4eac",
       {17312, 118, 161, 247, 101, 27764, 99, 20046, 254, 36181, 230, 17312, 231, 164, 114, 96, 16764, 30266, 109, 12859,
        105}},
      {"I \u2764\ufe0f \U0001F408\u200d\u2b1b \U0001F1EB\U0001F1F7!",
       {40, 43074, 97, 37929, 12520, 238, 230, 447, 235, 158, 105, 249, 12520, 229, 104, 8582, 229, 115, 0}},
      {"<|endoftext|>", {27, 91, 437, 1659, 5239, 91, 29}},  // typed, it is text
      {"", {}},
      // JavaScript's \s, not Python's: " \u0085" is one piece of symbols (tokenizer.cpp).
      {"a \u0085b", {64, 1587, 227, 65}},
      {"a \ufeffb", {64, 220, 171, 119, 123, 65}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(gpt2().encode(c.text) == c.ids);
    CHECK(concatenated(gpt2(), c.ids) == c.text);
  }
}

TEST_CASE("GPT-2 tokenizer: bytes that are not UTF-8 are read as TextDecoder reads them") {
  // One U+FFFD per maximal invalid subpart, as the package sees the text after TextDecoder.
  CHECK(Tokenizer::normalized_utf8("a\xff" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(Tokenizer::normalized_utf8("\xE2\x82") == "\xEF\xBF\xBD");                          // truncated
  CHECK(Tokenizer::normalized_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(Tokenizer::normalized_utf8("\xF0\x9F\x98" "A") == "\xEF\xBF\xBD" "A");
  CHECK(Tokenizer::normalized_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
  CHECK(Tokenizer::normalized_utf8("ok \xF0\x9F\x90\x88") == "ok \xF0\x9F\x90\x88");
  // "\uFFFD" is a symbol: " \xff" is one piece, as " \uFFFD" is.
  const Ids ids = gpt2().encode("x \xff\xfe!");
  CHECK(ids == gpt2().encode("x \xEF\xBF\xBD\xEF\xBF\xBD!"));
  CHECK(concatenated(gpt2(), ids) == "x \xEF\xBF\xBD\xEF\xBF\xBD!");
}

// utf8.hpp serves the tokenizer and the safetensors header alike: each edge of Unicode's table
// 3-7, just inside and just outside.
TEST_CASE("UTF-8: a character's length is that of a well-formed sequence, else 0") {
  const auto length = [](std::string_view s) { return attn::utf8_char_length(s, 0); };
  CHECK(length("a") == 1);
  CHECK(length("\x7F") == 1);
  CHECK(length("\xC2\x80") == 2);
  CHECK(length("\xDF\xBF") == 2);
  CHECK(length("\xC1\xBF") == 0);          // overlong
  CHECK(length("\x80") == 0);              // a continuation byte first
  CHECK(length("\xE0\xA0\x80") == 3);
  CHECK(length("\xE0\x9F\xBF") == 0);      // overlong
  CHECK(length("\xED\x9F\xBF") == 3);
  CHECK(length("\xED\xA0\x80") == 0);      // a surrogate, U+D800
  CHECK(length("\xEF\xBF\xBF") == 3);
  CHECK(length("\xF0\x90\x80\x80") == 4);
  CHECK(length("\xF0\x8F\xBF\xBF") == 0);  // overlong
  CHECK(length("\xF4\x8F\xBF\xBF") == 4);  // U+10FFFF
  CHECK(length("\xF4\x90\x80\x80") == 0);  // past U+10FFFF
  CHECK(length("\xF5\x80\x80\x80") == 0);
  CHECK(length("\xE2\x82") == 0);          // cut short by the end
  CHECK(length("\xE2\x82" "a") == 0);      // cut short by an ASCII byte
  std::string euro;
  attn::append_utf8(euro, U'\u20AC');
  CHECK(euro == "\xE2\x82\xAC");
  CHECK(length(euro) == 3);
}

TEST_CASE("GPT-2 tokenizer: tokens as bytes and as text") {
  const Tokenizer& t = gpt2();
  CHECK(t.token_bytes(464) == "The");
  CHECK(t.token_bytes(3797) == " cat");
  CHECK(t.token_text(3797) == " cat");
  CHECK(t.token_text(198) == "\n");
  CHECK(t.token_bytes(220) == " ");
  CHECK(t.token_bytes(Tokenizer::end_of_text) == "<|endoftext|>");
  CHECK(t.token_text(Tokenizer::end_of_text) == "<|endoftext|>");
  // Part of a character: "\u2764" is E2 9D A4; " \xE2\x9D" is token 43074 and "\xA4" token 97.
  CHECK(t.token_bytes(43074) == " \xE2\x9D");
  CHECK(t.token_text(43074) == " <0xE2><0x9D>");
  CHECK(t.token_text(97) == "<0xA4>");
  CHECK(t.token_text(9116) == "\xC3\xBC");  // ü, whole
  CHECK_THROWS_AS((void)t.token_bytes(-1), attn::Error);
  CHECK_THROWS_AS((void)t.token_bytes(50257), attn::Error);
  CHECK_THROWS_AS((void)t.token_text(50257), attn::Error);
}

TEST_CASE("GPT-2 tokenizer: a long text stays fast and exact") {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "The cat sat on the mat because it was tired. ";
  const Ids ids = gpt2().encode(text);
  CHECK(ids.size() == 200 * 11 + 1);  // ten words and "." each time, and the last space alone
  CHECK(concatenated(gpt2(), ids) == text);
  const std::string run(3000, 'a');  // one piece: the worst case of the BPE loop
  CHECK(concatenated(gpt2(), gpt2().encode(run)) == run);
}

TEST_CASE("GPT-2 tokenizer: malformed files are refused") {
  const std::vector<std::uint8_t> empty;
  CHECK_THROWS_AS(load(empty), attn::Error);
  CHECK_THROWS_AS(Tokenizer::from_bytes(nullptr, 0), attn::Error);
  auto bad_magic = file_of({});
  bad_magic[0] = 'X';
  CHECK_THROWS_AS(load(bad_magic), attn::Error);
  CHECK_THROWS_AS(load(file_of({}, 2)), attn::Error);
  auto truncated = file_of({{kQuote, kComma}});
  truncated.pop_back();
  CHECK_THROWS_AS(load(truncated), attn::Error);
  auto longer = file_of({{kQuote, kComma}});
  longer.push_back(0);
  CHECK_THROWS_AS(load(longer), attn::Error);
  CHECK_THROWS_AS(load(file_of({{kQuote, 256}})), attn::Error);                   // a token not made yet
  CHECK_THROWS_AS(load(file_of({{kQuote, kComma}, {kQuote, kComma}})), attn::Error);  // the same bytes twice
  CHECK_THROWS_WITH_AS(load(file_of({{kQuote, 300}})), doctest::Contains("merge 0 joins token 300"), attn::Error);
}

TEST_CASE("GPT-2 tokenizer: a small file, and gpt-3-encoder's comma-joined pair keys") {
  const Tokenizer none = load(file_of({}));
  CHECK(none.vocab_size() == 257);
  CHECK(none.token_bytes(256) == "<|endoftext|>");
  CHECK(none.encode("ab") == Ids{64, 65});

  // Merge 0 makes '",' (256), merge 1 ',"' (257), merge 2 joins '"' and ',"' into '","' (258). Its
  // key in the package is '",,"', which the pair ('",', '"') also reads as: so '","' becomes one
  // token here (as in gpt-3-encoder), where OpenAI's encoder.py would stop at [256, 1].
  const Tokenizer t = load(file_of({{kQuote, kComma}, {kComma, kQuote}, {kQuote, 257}}));
  CHECK(t.vocab_size() == 260);
  CHECK(t.encode("\",\"") == Ids{258});
  CHECK(t.encode("\",") == Ids{256});
  CHECK(t.token_bytes(258) == "\",\"");

  // Keys the package could not tell apart: with tokens "b,c" (257) and "a,b" (259), the merges
  // ("a", "b,c") and ("a,b", "c") both read as "a,b,c", and the pair ("a,b", "c") would make
  // "a,bc", which no token is.
  const int a = 64, b = 65, c = 66;
  const std::vector<std::pair<int, int>> merges = {{b, kComma}, {256, c}, {a, kComma}, {258, b}, {a, 257}};
  CHECK_THROWS_WITH_AS(load(file_of(merges)), doctest::Contains("join into bytes no token has"), attn::Error);
  auto same_key = merges;
  same_key.emplace_back(259, c);
  CHECK_THROWS_WITH_AS(load(file_of(same_key)), doctest::Contains("merges 4 and 5 read as the same pair"), attn::Error);
}
