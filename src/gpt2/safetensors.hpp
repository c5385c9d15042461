#pragma once
// The safetensors format (Hugging Face's model.safetensors): an 8-byte little-endian header length
// N, N bytes of UTF-8 JSON, then the raw tensors.
//   {"wte.weight": {"dtype": "F32", "shape": [50257, 768], "data_offsets": [0, 154389504]}, ...,
//    "__metadata__": {"format": "pt"}}
// data_offsets count from the end of the header. This reads the header and checks every tensor
// before a single weight is read: a dtype safetensors knows, shape × element size = bytes
// (checked arithmetic, no overflow), the range inside the file, no two ranges overlapping.
// Nothing here reads tensor bytes: loader.hpp does, chunk by chunk, from a plan made of a Header.
//
// Made to be driven in two reads, as a browser reads a File or an HTTP server by Range:
//   1. the first 8 bytes → header_length();
//   2. the next N bytes → parse_header().
// parse() does both on a whole file in memory. Every refusal is an attn::Error in a learner's
// words, starting "This file is not a safetensors file: " when the file breaks the format.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::gpt2::safetensors {

// The format's own limit on the header (the Rust reference refuses more).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
// Deepest JSON nesting accepted (a header is 3 levels deep; this only stops a hostile [[[[…).
inline constexpr std::size_t kMaxJsonDepth = 64;
// Most dimensions a tensor may have (GPT-2's deepest, the attn.bias buffer, has 4).
inline constexpr std::size_t kMaxRank = 64;

// Every dtype safetensors defines. The model reads F32, F16 and BF16; the others are known so that
// their sizes are checked and a file that holds them is refused by name (loader.hpp).
enum class Dtype : std::uint8_t {
  BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64, C64,
  F4, F6_E2M3, F6_E3M2
};

// "F32", "BF16", ...: the name the header uses.
const char* dtype_name(Dtype t);
// In words, for messages: "16-bit floats (half precision)", "64-bit integers".
const char* dtype_words(Dtype t);
// Bits per element (4 for F4, 6 for F6_*, 8 × bytes otherwise).
unsigned dtype_bits(Dtype t);

struct Tensor {
  std::string name;                  // the key, as in the file
  Dtype dtype = Dtype::F32;
  std::vector<std::uint64_t> shape;  // [] is a scalar (one element)
  std::uint64_t elements = 0;        // the product of shape
  std::uint64_t begin = 0, end = 0;  // the bytes [begin, end) counted from the start of the file
  std::uint64_t bytes() const { return end - begin; }
};

struct Header {
  std::uint64_t file_size = 0;
  std::uint64_t header_length = 0;  // N
  std::uint64_t data_start = 0;     // 8 + N: where data_offsets count from
  std::vector<Tensor> tensors;      // in file order (by begin; a tie by name)
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", in the file's order
  // The tensor of that exact name, or nullptr.
  const Tensor* find(std::string_view name) const;
};

// The header length N from the file's first bytes (at least 8 of them, unless the file is shorter).
// Refuses an empty file, a file shorter than 8 bytes, N = 0, N over kMaxHeaderBytes and a header
// that would end past the end of the file.
std::uint64_t header_length(const std::uint8_t* first, std::size_t size, std::uint64_t file_size);

// The header from its N bytes (the file's bytes 8 … 8 + N), file_size the size of the whole file.
// Strict JSON (RFC 8259: no comments, no trailing commas, escapes checked, UTF-8 checked, no
// duplicate keys); trailing spaces are allowed, as the format's writer pads with them.
Header parse_header(const std::uint8_t* json, std::size_t size, std::uint64_t file_size);

// Both steps on a whole file in memory.
Header parse(const std::uint8_t* file, std::size_t size);

// "1.42 GB", "498 MB", "12.3 KB", "17 bytes": decimal units, as Hugging Face shows file sizes.
// A shape as messages write it: "[768, 2304]".
std::string shape_text(const std::vector<std::uint64_t>& shape);

std::string size_in_words(std::uint64_t bytes);

}  // namespace attn::gpt2::safetensors
