// load_file (loader.hpp): a safetensors file on disk through the chunked path a browser uses, the
// header first, then only the planned ranges, one staging buffer at a time. A file of its own so
// that a wasm module, which has no file system, never links it.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "error.hpp"
#include "gpt2/loader.hpp"

namespace attn::gpt2 {

Weights load_file(const std::string& path, const LoadOptions& options) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw Error("Cannot open " + path + ": " + std::strerror(errno) + ".");
  const std::streamoff end = file.tellg();
  if (end < 0) throw Error("Cannot tell the size of " + path + ".");
  const auto size = static_cast<std::uint64_t>(end);
  const auto read = [&](std::uint64_t at, std::uint8_t* into, std::size_t n) {
    file.seekg(static_cast<std::streamoff>(at));
    file.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(n));
    if (static_cast<std::size_t>(file.gcount()) != n) {
      throw Error("Cannot read " + path + " at byte " + std::to_string(at) + ": it is shorter than it was, or unreadable.");
    }
  };

  std::uint8_t first[8] = {};
  const std::size_t first_size = static_cast<std::size_t>(std::min<std::uint64_t>(size, 8));
  if (first_size != 0) read(0, first, first_size);
  const std::uint64_t n = safetensors::header_length(first, first_size, size);
  std::vector<std::uint8_t> json(static_cast<std::size_t>(n));
  read(8, json.data(), json.size());
  safetensors::Header header = safetensors::parse_header(json.data(), json.size(), size);
  json = std::vector<std::uint8_t>();

  WeightFiller filler(plan_load(header, options));
  std::uint8_t* staging = filler.staging();
  for (const ByteRange& r : filler.plan().ranges) {
    for (std::uint64_t at = r.begin; at < r.end; at += WeightFiller::kStagingBytes) {
      const auto chunk = static_cast<std::size_t>(std::min<std::uint64_t>(WeightFiller::kStagingBytes, r.end - at));
      read(at, staging, chunk);
      filler.write_file_staged(at, chunk);
    }
  }
  return filler.finish();
}

}  // namespace attn::gpt2
