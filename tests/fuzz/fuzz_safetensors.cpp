// libFuzzer harness: the safetensors reader and GPT-2's loader (src/gpt2/safetensors.hpp,
// loader.hpp). Byte 0 is the heads option (0: d_model / 64), byte 1 picks a chunk size
// (1 + byte % 16, or 1 MiB when it is 255), and the rest is the file. Whatever the bytes:
// - a refusal is an attn::Error (any other exception, a crash or a sanitizer report fails);
// - a header that parses keeps the format's promises: every tensor inside the file, its bytes
//   its shape × element size, no two overlapping, in file order;
// - a plan lists GPT-2's tensors in file order, its ranges hold exactly their bytes and none of a
//   skipped tensor's;
// - loading in chunks and loading the whole file in one write give the same weights, or the same
//   refusal; loaded weights are finite and equal a decoding of the file's bytes written apart
//   from the loader's (ldexp in double).
// tests/fuzz/corpus/safetensors/ holds every bad file issue 26 names and small valid GPT-2s;
// tests/fuzz/make_safetensors_corpus.py writes them.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "error.hpp"
#include "fuzz/fuzz_input.hpp"
#include "gpt2/loader.hpp"
#include "gpt2/safetensors.hpp"

namespace {

namespace st = attn::gpt2::safetensors;
using attn::gpt2::DType;

// The file's element at byte p, decoded apart from the loader: (−1)^s · m · 2^e in double.
double reference(DType dtype, const std::uint8_t* p) {
  if (dtype == DType::F32) {
    const std::uint32_t b = std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
    const double sign = (b >> 31) ? -1.0 : 1.0;
    const int e = int((b >> 23) & 255);
    const double m = double(b & 0x7FFFFF);
    return e == 0 ? sign * std::ldexp(m, -149) : sign * std::ldexp(8388608.0 + m, e - 150);  // e = 255 never loads
  }
  const unsigned h = unsigned(p[0]) | unsigned(p[1]) << 8;
  const double sign = (h >> 15) ? -1.0 : 1.0;
  if (dtype == DType::F16) {
    const int e = int((h >> 10) & 31);
    const double m = double(h & 1023);
    return e == 0 ? sign * std::ldexp(m, -24) : sign * std::ldexp(1024.0 + m, e - 25);
  }
  const int e = int((h >> 7) & 255);
  const double m = double(h & 127);
  return e == 0 ? sign * std::ldexp(m, -133) : sign * std::ldexp(128.0 + m, e - 134);
}

const attn::AlignedVector<float>& buffer(const attn::gpt2::Weights& w, const attn::gpt2::PlannedTensor& t) {
  using attn::gpt2::Part;
  if (t.part == Part::wte) return w.wte;
  if (t.part == Part::wpe) return w.wpe;
  if (t.part == Part::lnf_weight) return w.lnf_weight;
  if (t.part == Part::lnf_bias) return w.lnf_bias;
  const attn::gpt2::Block& b = w.blocks.at(t.layer);
  switch (t.part) {
    case Part::ln1_weight: return b.ln1_weight;
    case Part::ln1_bias: return b.ln1_bias;
    case Part::attn_weight: return b.attn_weight;
    case Part::attn_bias: return b.attn_bias;
    case Part::proj_weight: return b.proj_weight;
    case Part::proj_bias: return b.proj_bias;
    case Part::ln2_weight: return b.ln2_weight;
    case Part::ln2_bias: return b.ln2_bias;
    case Part::fc_weight: return b.fc_weight;
    case Part::fc_bias: return b.fc_bias;
    case Part::mlp_proj_weight: return b.mlp_proj_weight;
    default: return b.mlp_proj_bias;
  }
}

void check_header(const st::Header& h) {
  FUZZ_CHECK(h.data_start == 8 + h.header_length && h.data_start <= h.file_size, "parse()", "header bounds");
  std::uint64_t last_end = h.data_start;
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    const st::Tensor& t = h.tensors[i];
    FUZZ_CHECK(t.begin >= h.data_start && t.begin <= t.end && t.end <= h.file_size, "parse()", "a tensor outside the file");
    std::uint64_t n = 1;
    for (const std::uint64_t s : t.shape) n *= s;  // cannot overflow once accepted
    FUZZ_CHECK(n == t.elements, "parse()", "elements are not the shape's product");
    FUZZ_CHECK(n * st::dtype_bits(t.dtype) == 8 * t.bytes(), "parse()", "bytes disagree with the shape");
    FUZZ_CHECK(i == 0 || h.tensors[i - 1].begin <= t.begin, "parse()", "not in file order");
    if (t.bytes() != 0) {
      FUZZ_CHECK(t.begin >= last_end || i == 0, "parse()", "two tensors overlap");
      last_end = std::max(last_end, t.end);
    }
  }
}

void check_plan(const st::Header& h, const attn::gpt2::LoadPlan& p) {
  const auto& c = p.config;
  FUZZ_CHECK(c.layers >= 1 && c.heads >= 1 && c.d_model % c.heads == 0, "plan_load()", "config");
  FUZZ_CHECK(p.tensors.size() == 4 + 12 * c.layers, "plan_load()", "not every tensor of GPT-2");
  FUZZ_CHECK(p.tensors.size() + p.skipped.size() == h.tensors.size(), "plan_load()", "tensors lost");
  std::uint64_t bytes = 0, parameters = 0, in_ranges = 0;
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const auto& t = p.tensors[i];
    FUZZ_CHECK(i == 0 || p.tensors[i - 1].end <= t.begin, "plan_load()", "not in file order");
    FUZZ_CHECK(t.bytes() == t.elements * (t.dtype == DType::F32 ? 4 : 2), "plan_load()", "bytes");
    bytes += t.bytes();
    parameters += t.elements;
  }
  for (const auto& r : p.ranges) {
    in_ranges += r.end - r.begin;
    for (const std::string& name : p.skipped) {
      const st::Tensor* s = h.find(name);
      FUZZ_CHECK(s != nullptr, "plan_load()", "a skipped tensor the file does not have");
      FUZZ_CHECK(s->bytes() == 0 || s->end <= r.begin || s->begin >= r.end, "plan_load()", "a range reads a skipped tensor");
    }
  }
  FUZZ_CHECK(bytes == p.read_bytes && in_ranges == bytes, "plan_load()", "read bytes");
  FUZZ_CHECK(parameters == c.parameters && p.weight_bytes == 4 * parameters, "plan_load()", "parameters");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  attn::gpt2::LoadOptions options;
  options.heads = data[0];
  const std::size_t chunk = data[1] == 255 ? std::size_t{1} << 20 : 1 + data[1] % 16;
  const std::uint8_t* file = data + 2;
  const std::size_t n = size - 2;

  st::Header header;
  try {
    header = st::parse(file, n);
  } catch (const attn::Error&) {
    return 0;  // refused: what a malformed file must get
  }
  check_header(header);
  attn::gpt2::LoadPlan plan;
  try {
    plan = attn::gpt2::plan_load(header, options);
  } catch (const attn::Error&) {
    return 0;
  }
  check_plan(header, plan);

  std::string chunked_error, whole_error;
  attn::gpt2::Weights chunked, whole;
  try {
    chunked = attn::gpt2::load_bytes(file, n, options, chunk);
  } catch (const attn::Error& e) {
    chunked_error = e.what();
  }
  try {
    attn::gpt2::WeightFiller filler(plan);
    filler.write_file_bytes(0, file, n);
    whole = filler.finish();
  } catch (const attn::Error& e) {
    whole_error = e.what();
  }
  FUZZ_CHECK(chunked_error == whole_error, "load_bytes()", "chunks and the whole file disagree: \"" + chunked_error + "\" vs \"" + whole_error + "\"");
  if (!chunked_error.empty()) {
    FUZZ_CHECK(chunked_error.find(" holds ") != std::string::npos, "load_bytes()", "an unexpected refusal: " + chunked_error);
    return 0;
  }
  for (const auto& t : plan.tensors) {
    const auto& a = buffer(chunked, t);
    const auto& b = buffer(whole, t);
    const std::size_t size_of = t.dtype == DType::F32 ? 4 : 2;
    FUZZ_CHECK(a.size() == t.elements && b.size() == t.elements, "load_bytes()", "a buffer of the wrong size");
    for (std::size_t i = 0; i < a.size(); ++i) {
      FUZZ_CHECK(std::isfinite(a[i]), "load_bytes()", "a weight that is not finite in " + t.name);
      FUZZ_CHECK(std::memcmp(&a[i], &b[i], 4) == 0, "load_bytes()", "chunks change the weights of " + t.name);
      const double want = reference(t.dtype, file + t.begin + i * size_of);
      FUZZ_CHECK(double(a[i]) == want && std::signbit(a[i]) == std::signbit(want), "load_bytes()",
                 "a weight of " + t.name + " is not its bytes' value");
    }
  }
  return 0;
}
