#pragma once
// GPT-2's weights from a safetensors file (safetensors.hpp), read chunk by chunk so that a browser
// can feed a File's slices or HTTP Range responses into the final float32 buffers:
//
//   Header h = safetensors::parse_header(...);      // the file's first 8 + N bytes
//   LoadPlan p = plan_load(h, options);              // names, shapes, config, memory: all checked
//   WeightFiller f(std::move(p));                     // allocates the Weights once
//   for (const ByteRange& r : f.plan().ranges)        // only the bytes the model reads, file order
//     for each chunk of r: f.write_file_bytes(offset, bytes, length);   // or write(tensor, …)
//   Weights w = f.finish();                           // every tensor complete, or attn::Error
//
// Memory: the Weights (float32) plus, if used, a staging buffer of kStagingBytes; no raw copy of a
// tensor is ever held. F16 and BF16 become float32 exactly (subnormals included). A NaN or ±Inf
// weight is refused, naming its tensor. Every refusal is an attn::Error in a learner's words.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpt2/model.hpp"
#include "gpt2/safetensors.hpp"

namespace attn::gpt2 {

// The most heads a model may be given (LoadOptions::heads).
inline constexpr std::uint64_t kMaxHeads = 4096;

struct LoadOptions {
  // The number of heads, config.json's n_head; 0: d_model / 64, the head size of the GPT-2 family.
  // At most kMaxHeads; 64-bit, so that a count a 32-bit size_t would wrap reaches that check as given.
  std::uint64_t heads = 0;
  // How a refusal names `heads`: the caller's name for it ("heads", or "config.n_head").
  std::string heads_name = "heads";
  // The most bytes the loaded model may take (the weights as float32 and the staging buffer);
  // 0: no limit. Refused before any tensor is read.
  std::uint64_t memory_limit = 0;
  // How a refusal names that limit: "… more than <words> (2.15 GB)".
  std::string memory_limit_words = "the memory available for it";
};

// Which buffer of the Weights a tensor fills.
enum class Part : std::uint8_t {
  wte, wpe, lnf_weight, lnf_bias,  // the model's own
  ln1_weight, ln1_bias, attn_weight, attn_bias, proj_weight, proj_bias,  // one block's
  ln2_weight, ln2_bias, fc_weight, fc_bias, mlp_proj_weight, mlp_proj_bias
};

struct PlannedTensor {
  std::string name;          // the key in the file, prefix and all
  DType dtype = DType::F32;  // F32, F16 or BF16
  std::vector<std::uint64_t> shape;
  std::uint64_t elements = 0;
  std::uint64_t begin = 0, end = 0;  // its bytes [begin, end) in the file
  Part part = Part::wte;
  std::size_t layer = 0;  // for a block's parts
  std::uint64_t bytes() const { return end - begin; }
};

struct ByteRange {
  std::uint64_t begin = 0, end = 0;  // [begin, end) in the file
};

struct LoadPlan {
  Config config;
  std::vector<PlannedTensor> tensors;  // the tensors to read, in file order
  // The same bytes as runs of adjacent tensors, in file order: the fewest requests that fetch
  // exactly what the model reads. Never includes a skipped tensor's bytes.
  std::vector<ByteRange> ranges;
  // Tensors never read: the attn.bias and attn.masked_bias buffers, a tied lm_head.weight, and
  // any tensor GPT-2 does not have. Names as in the file, in file order.
  std::vector<std::string> skipped;
  std::uint64_t read_bytes = 0;    // the bytes of `tensors`: progress's total
  std::uint64_t weight_bytes = 0;  // config.parameters × 4
  std::uint64_t memory_bytes = 0;  // weight_bytes + the staging buffer: what loading needs at its peak
};

// Checks that the header holds GPT-2 (keys with or without "transformer."; every tensor present
// with GPT-2's shape and a dtype of F32, F16 or BF16; layers 0 … L−1 complete; heads dividing
// d_model) and that it fits options.memory_limit, and lists what to read. Reads no tensor.
LoadPlan plan_load(const safetensors::Header& header, const LoadOptions& options = {});

class WeightFiller {
 public:
  // Bytes of the staging buffer: a chunk the size of one read, reused for every chunk.
  static constexpr std::size_t kStagingBytes = std::size_t{1} << 20;

  // Allocates every buffer of the Weights (refused if they exceed this build's address space).
  explicit WeightFiller(LoadPlan plan);

  const LoadPlan& plan() const { return plan_; }

  // The next `length` bytes of plan().tensors[tensor], starting `offset` bytes into it. Each
  // tensor's bytes come in order (offset = what was written of it so far); the tensors may come in
  // any order and interleaved. A chunk may end inside a number: its bytes wait for the next chunk.
  // Converts to float32 straight into the Weights and refuses a NaN or ±Inf, naming the tensor.
  void write(std::size_t tensor, std::uint64_t offset, const std::uint8_t* bytes, std::size_t length);

  // `length` bytes of the file starting at byte `file_offset`: whatever lies inside the planned
  // tensors is written (in order, as write() asks); bytes of skipped tensors, of the header or
  // between tensors are ignored. So a whole file, or a server that ignores Range, can be fed as it
  // comes.
  void write_file_bytes(std::uint64_t file_offset, const std::uint8_t* bytes, std::size_t length);

  // A buffer of kStagingBytes (allocated on first use) that a binding copies each chunk into,
  // then calls write_staged() or write_file_staged() with its length.
  std::uint8_t* staging();
  void write_staged(std::size_t tensor, std::uint64_t offset, std::size_t length);
  void write_file_staged(std::uint64_t file_offset, std::size_t length);

  std::uint64_t bytes_written() const { return written_total_; }  // of plan().read_bytes

  // Checks every tensor was written completely and hands the Weights over (once).
  Weights finish();

 private:
  struct Slot {
    float* out = nullptr;
    std::uint64_t written = 0;  // bytes of the tensor consumed so far
    std::uint8_t carry[4] = {};  // the start of a number a chunk cut
    std::uint8_t carried = 0;
  };
  void convert(std::size_t tensor, const std::uint8_t* bytes, std::size_t length);
  [[noreturn]] void fail(const std::string& message);

  LoadPlan plan_;
  Weights weights_;
  std::vector<Slot> slots_;
  AlignedVector<std::uint8_t> staging_;
  std::uint64_t written_total_ = 0;
  bool failed_ = false;
  bool finished_ = false;
};

// Exact conversions to float32 (NaN and ±Inf map to NaN and ±Inf; the filler refuses them).
float f16_to_f32(std::uint16_t bits);
float bf16_to_f32(std::uint16_t bits);

// The whole path on a file in memory, `chunk` bytes at a time (tests, the fuzz harness).
Weights load_bytes(const std::uint8_t* file, std::size_t size, const LoadOptions& options = {},
                   std::size_t chunk = WeightFiller::kStagingBytes);

// A file on disk, through the same chunked path, one staging buffer at a time (tests, tools, the
// benchmark). Natively only: the wasm modules have no file system. Defined in load_file.cpp.
Weights load_file(const std::string& path, const LoadOptions& options = {});

}  // namespace attn::gpt2
