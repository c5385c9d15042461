// GPT-2's tokenizer as gpt-3-encoder 1.1.4's Encoder.js computes it, step for step:
//   1. The text's code points (JavaScript's `u` regex reads a string by code points; here, the
//      UTF-8 is decoded as TextDecoder does, so invalid bytes become U+FFFD, as a lone surrogate
//      does through the package's TextEncoder).
//   2. Pieces by the pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+,
//      with JavaScript's classes (unicode_classes.hpp, generated from Node's regex engine).
//   3. Each piece's UTF-8 bytes as ids 0-255, then merges by rank until none applies.
//
// Where the package departs from OpenAI's encoder.py (and Hugging Face's GPT2Tokenizer, which runs
// the same pattern with Python's `regex` module), the package wins, as issue 26 asks:
// - \s is JavaScript's: it has U+FEFF and lacks U+0085 (NEL) and U+001C-U+001F, which Python's has.
//   So "a \u0085b" is [64, 1587, 227, 65] here (" \u0085" is one piece of symbols) and
//   [64, 220, 126, 227, 65] in encoder.py (" " and "\u0085" are two whitespace pieces);
//   "a \uFEFFb" is [64, 220, 171, 119, 123, 65] here and [64, 27332, 119, 123, 65] there.
//   The Unicode version of \p{L} and \p{N} is Node's (unicode_classes.hpp names it).
// - The package's bpe_ranks is a plain object keyed by the pair joined with a comma, "a,b", so a
//   pair of tokens that themselves hold commas can read as another pair's key: (`",`, `"`) reads as
//   `",,"`, the key of the merge (`"`, `,"`), rank 2174, and is merged into `","` (2430) where
//   encoder.py, keyed by tuples, would leave it. vocab.bpe has 11 such pairs, each joining into the
//   same token as the merge it mimics; from_bytes() finds them (merges_ holds them beside the real
//   merges) and rejects a file whose collisions would make bytes no token has. Ties this creates
//   are broken as the package's minPairs object does: the pair seen last, the rightmost, wins.
//   Every string of up to 4 characters from " , ' [ ] ( ) } . and space gives the same ids in the
//   package and in encoder.py: a lower merge takes one of the pair's bytes first. The rule is kept
//   all the same, so that no input can tell this tokenizer from the package.
#include "gpt2/tokenizer.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>

#include "error.hpp"
#include "gpt2/unicode_classes.hpp"
#include "utf8.hpp"

namespace attn::gpt2 {

namespace {

constexpr char kMagic[4] = {'G', 'B', 'P', 'E'};
constexpr std::uint16_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 12;
constexpr const char* kEndOfTextBytes = "<|endoftext|>";

std::uint32_t read_le(const std::uint8_t* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// GPT-2's bytes_to_unicode() order: the printable bytes ! to ~, ¡ to ¬ and ® to ÿ first, then the
// other 68 in increasing order. Entry i is the byte of token i.
std::array<std::uint8_t, 256> byte_order() {
  std::array<std::uint8_t, 256> order{};
  std::array<bool, 256> printable{};
  std::size_t n = 0;
  for (unsigned b = 0; b < 256; ++b) {
    printable[b] = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    if (printable[b]) order[n++] = static_cast<std::uint8_t>(b);
  }
  for (unsigned b = 0; b < 256; ++b) {
    if (!printable[b]) order[n++] = static_cast<std::uint8_t>(b);
  }
  return order;
}

unicode::CodePointClass class_of(char32_t c) {
  if (c < 0x80) {  // most text: no search
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return unicode::kLetter;
    if (c >= '0' && c <= '9') return unicode::kNumber;
    if (c == ' ' || (c >= 0x09 && c <= 0x0D)) return unicode::kSpace;
    return unicode::kOther;
  }
  const auto* end = std::end(unicode::kRanges);
  const auto* it = std::upper_bound(std::begin(unicode::kRanges), end, c,
                                    [](char32_t x, const unicode::CodePointRange& r) { return x < r.first; });
  if (it == std::begin(unicode::kRanges)) return unicode::kOther;
  --it;
  return c <= it->last ? it->cls : unicode::kOther;
}

// TextDecoder's UTF-8 decoder (the WHATWG Encoding Standard): each maximal subpart of an invalid
// sequence becomes one U+FFFD, and the byte that ended it is read again.
std::vector<char32_t> decode_utf8(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  char32_t cp = 0;
  int needed = 0, seen = 0;
  unsigned lo = 0x80, hi = 0xBF;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned b = static_cast<unsigned char>(s[i]);
    if (needed == 0) {
      ++i;
      if (b < 0x80) {
        out.push_back(b);
      } else if (b >= 0xC2 && b <= 0xDF) {
        needed = 1;
        cp = b & 0x1F;
      } else if (b >= 0xE0 && b <= 0xEF) {
        if (b == 0xE0) lo = 0xA0;
        if (b == 0xED) hi = 0x9F;
        needed = 2;
        cp = b & 0x0F;
      } else if (b >= 0xF0 && b <= 0xF4) {
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F;
        needed = 3;
        cp = b & 0x07;
      } else {
        out.push_back(0xFFFD);
      }
      continue;
    }
    if (b < lo || b > hi) {  // not consumed: it starts the next character
      cp = 0;
      needed = seen = 0;
      lo = 0x80;
      hi = 0xBF;
      out.push_back(0xFFFD);
      continue;
    }
    ++i;
    lo = 0x80;
    hi = 0xBF;
    cp = (cp << 6) | (b & 0x3F);
    if (++seen == needed) {
      out.push_back(cp);
      cp = 0;
      needed = seen = 0;
    }
  }
  if (needed != 0) out.push_back(0xFFFD);
  return out;
}

// Where the piece that starts at cps[i] ends: the first alternative of the pattern that matches
// there, as JavaScript's backtracking matcher picks it. Every code point is a letter, a number, a
// space or other, so some alternative always matches and the pieces cover the text.
std::size_t piece_end(const std::vector<char32_t>& cps, std::size_t i) {
  const std::size_t n = cps.size();
  const auto cls = [&](std::size_t k) { return class_of(cps[k]); };
  if (cps[i] == '\'' && i + 1 < n) {  // 's|'t|'re|'ve|'m|'ll|'d, lower case only
    const char32_t a = cps[i + 1];
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if (i + 2 < n) {
      const char32_t b = cps[i + 2];
      if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
    }
  }
  std::size_t start = i;
  if (cps[i] == ' ' && i + 1 < n && cls(i + 1) != unicode::kSpace) start = i + 1;  // " ?" before a run
  const unicode::CodePointClass k = cls(start);
  std::size_t j = start + 1;
  while (j < n && cls(j) == k) ++j;
  if (k != unicode::kSpace || j == n) return j;  // a run of letters, numbers or other; or trailing space
  // \s+(?!\S): a run of spaces followed by a non-space gives back its last one, which then leads
  // the next piece (" word"), unless the run is a single space: then \s+ takes it alone.
  return j - i >= 2 ? j - 1 : j;
}

}  // namespace

struct Tokenizer::Scratch {
  std::vector<std::int32_t> word;
  std::vector<std::int32_t> ranks;  // ranks[k]: the rank of (word[k], word[k + 1]), or -1
  std::vector<std::uint8_t> fresh;  // fresh[k]: word[k] was made by the last merge
  std::string piece;
};

Tokenizer Tokenizer::from_bytes(const std::uint8_t* data, std::size_t size) {
  const std::string what = "GPT-2 tokenizer file: ";
  if (data == nullptr || size < kHeaderBytes || std::memcmp(data, kMagic, 4) != 0) {
    throw Error(what + "not a tokenizer file (it must start with \"GBPE\"; tools/gpt2-tokenizer.mjs writes it)");
  }
  const std::uint32_t version = read_le(data + 4, 2), reserved = read_le(data + 6, 2);
  if (version != kVersion || reserved != 0) {
    throw Error(what + "version " + std::to_string(version) + "." + std::to_string(reserved) +
                ", but this build reads version 1.0");
  }
  const std::uint32_t merge_count = read_le(data + 8, 4);
  if ((size - kHeaderBytes) / 4 != merge_count || (size - kHeaderBytes) % 4 != 0) {
    throw Error(what + std::to_string(size) + " bytes, but its header promises " + std::to_string(merge_count) +
                " merges, " + std::to_string(kHeaderBytes + 4 * std::uint64_t(merge_count)) + " bytes");
  }
  const auto count = static_cast<std::int32_t>(merge_count);  // < size / 4
  Tokenizer t;
  t.tokens_.resize(std::size_t(count) + 257);
  const auto order = byte_order();
  for (std::int32_t id = 0; id < 256; ++id) {
    t.tokens_[std::size_t(id)] = std::string(1, static_cast<char>(order[std::size_t(id)]));
    t.byte_token_[order[std::size_t(id)]] = id;
  }
  t.tokens_.back() = kEndOfTextBytes;

  std::unordered_map<std::string, std::int32_t> id_of;  // bytes -> id, to find repeats and comma pairs
  id_of.reserve(t.tokens_.size());
  for (std::int32_t id = 0; id < 256; ++id) id_of.emplace(t.tokens_[std::size_t(id)], id);
  id_of.emplace(kEndOfTextBytes, count + 256);
  const auto pair_key = [](std::int32_t a, std::int32_t b) {
    return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
  };
  std::vector<std::pair<std::int32_t, std::int32_t>> pairs(static_cast<std::size_t>(count));
  std::vector<std::pair<std::uint64_t, Merge>> extra;  // the pairs only the package's string keys make
  t.merges_.reserve(std::size_t(count) + 16);
  for (std::int32_t r = 0; r < count; ++r) {
    const std::uint8_t* p = data + kHeaderBytes + 4 * std::size_t(r);
    const auto a = static_cast<std::int32_t>(read_le(p, 2)), b = static_cast<std::int32_t>(read_le(p + 2, 2));
    if (a >= 256 + r || b >= 256 + r) {
      throw Error(what + "merge " + std::to_string(r) + " joins token " + std::to_string(std::max(a, b)) +
                  ", which no earlier merge makes");
    }
    const std::size_t made = std::size_t(256 + r);
    t.tokens_[made] = t.tokens_[std::size_t(a)] + t.tokens_[std::size_t(b)];
    const auto [it, inserted] = id_of.emplace(t.tokens_[made], 256 + r);
    if (!inserted) {
      throw Error(what + "merge " + std::to_string(r) + " makes the bytes of token " + std::to_string(it->second) +
                  " again");
    }
    pairs[std::size_t(r)] = {a, b};
    t.merges_.emplace(pair_key(a, b), Merge{r, 256 + r});  // distinct: their products are distinct
  }

  // gpt-3-encoder looks a pair up by the string "first,second". A pair of tokens whose own commas
  // make another merge's key gets that merge's rank there, and is joined into first + second; two
  // merges with the same key would share one rank. Only a merge of tokens that hold a comma has
  // another way to split its key.
  for (std::int32_t r = 0; r < count; ++r) {
    const std::string& first = t.tokens_[std::size_t(pairs[std::size_t(r)].first)];
    const std::string& second = t.tokens_[std::size_t(pairs[std::size_t(r)].second)];
    if (first.find(',') == std::string::npos && second.find(',') == std::string::npos) continue;
    const std::string key = first + ',' + second;
    for (std::size_t comma = key.find(','); comma != std::string::npos; comma = key.find(',', comma + 1)) {
      if (comma == first.size()) continue;
      const auto x = id_of.find(key.substr(0, comma)), y = id_of.find(key.substr(comma + 1));
      if (x == id_of.end() || y == id_of.end() || x->second > count + 255 || y->second > count + 255) continue;
      if (const auto it = t.merges_.find(pair_key(x->second, y->second)); it != t.merges_.end()) {
        throw Error(what + "merges " + std::to_string(std::min(r, it->second.rank)) + " and " +
                    std::to_string(std::max(r, it->second.rank)) +
                    " read as the same pair in gpt-3-encoder (their tokens joined with a comma are equal)");
      }
      const auto joined = id_of.find(x->first + y->first);
      if (joined == id_of.end() || joined->second > count + 255) {
        throw Error(what + "merge " + std::to_string(r) + " also reads, in gpt-3-encoder, as a pair of tokens " +
                    std::to_string(x->second) + " and " + std::to_string(y->second) + " that join into bytes no token has");
      }
      extra.push_back({pair_key(x->second, y->second), Merge{r, joined->second}});
    }
  }
  for (const auto& [key, merge] : extra) t.merges_.emplace(key, merge);
  return t;
}

const Tokenizer::Merge* Tokenizer::find_merge(std::int32_t first, std::int32_t second) const {
  const auto it = merges_.find((std::uint64_t(std::uint32_t(first)) << 32) | std::uint32_t(second));
  return it == merges_.end() ? nullptr : &it->second;
}

// Encoder.js's bpe(): while some adjacent pair has a rank, take the lowest rank (of equal ranks,
// the rightmost pair, as the package's minPairs object keeps the last one written) and join every
// occurrence of that pair, left to right and without overlap; stop at one token. The ranks of the
// pairs a merge left alone are kept, so a step costs one look-up per new pair.
void Tokenizer::encode_piece(const std::string& piece, Scratch& s, std::vector<std::int32_t>& out) const {
  auto& word = s.word;
  auto& ranks = s.ranks;
  auto& fresh = s.fresh;
  word.clear();
  for (const char c : piece) word.push_back(byte_token_[static_cast<unsigned char>(c)]);
  ranks.assign(word.size(), -1);
  fresh.assign(word.size(), 0);
  for (std::size_t k = 0; k + 1 < word.size(); ++k) {
    const Merge* m = find_merge(word[k], word[k + 1]);
    ranks[k] = m ? m->rank : -1;
  }
  while (word.size() > 1) {
    std::int32_t best = std::numeric_limits<std::int32_t>::max();
    std::size_t at = 0;
    for (std::size_t k = 0; k + 1 < word.size(); ++k) {
      if (ranks[k] >= 0 && ranks[k] <= best) {
        best = ranks[k];
        at = k;
      }
    }
    if (best == std::numeric_limits<std::int32_t>::max()) break;
    const std::int32_t first = word[at], second = word[at + 1];
    const std::int32_t made = find_merge(first, second)->made;
    std::size_t w = 0;
    for (std::size_t k = 0; k < word.size(); ++w) {  // w <= k: in place
      if (k + 1 < word.size() && word[k] == first && word[k + 1] == second) {
        word[w] = made;
        fresh[w] = 1;
        k += 2;
      } else {
        word[w] = word[k];
        fresh[w] = 0;
        ranks[w] = ranks[k];  // the rank of (word[k], word[k + 1]), still right if word[k + 1] stays
        k += 1;
      }
    }
    word.resize(w);
    for (std::size_t k = 0; k + 1 < w; ++k) {
      if (fresh[k] || fresh[k + 1]) {
        const Merge* m = find_merge(word[k], word[k + 1]);
        ranks[k] = m ? m->rank : -1;
      }
    }
  }
  out.insert(out.end(), word.begin(), word.end());
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view utf8) const {
  const std::vector<char32_t> cps = decode_utf8(utf8);
  std::vector<std::int32_t> out;
  out.reserve(cps.size() / 3 + 1);
  Scratch s;
  for (std::size_t i = 0; i < cps.size();) {
    const std::size_t j = piece_end(cps, i);
    s.piece.clear();
    for (std::size_t k = i; k < j; ++k) append_utf8(s.piece, cps[k]);
    encode_piece(s.piece, s, out);
    i = j;
  }
  return out;
}

const std::string& Tokenizer::token_bytes(std::int32_t id) const {
  if (id < 0 || id >= vocab_size()) {
    throw Error("GPT-2 token id " + std::to_string(id) + " is outside the vocabulary (0 to " +
                std::to_string(vocab_size() - 1) + ")");
  }
  return tokens_[std::size_t(id)];
}

std::string Tokenizer::token_text(std::int32_t id) const {
  const std::string& bytes = token_bytes(id);
  std::string text;
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t length = utf8_char_length(bytes, i);
    if (length > 0) {
      text.append(bytes, i, length);
      i += length;
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const unsigned b = static_cast<unsigned char>(bytes[i]);
      text += "<0x";
      text += kHex[b >> 4];
      text += kHex[b & 0xF];
      text += '>';
      ++i;
    }
  }
  return text;
}

std::string Tokenizer::normalized_utf8(std::string_view utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (const char32_t c : decode_utf8(utf8)) append_utf8(out, c);
  return out;
}

}  // namespace attn::gpt2
