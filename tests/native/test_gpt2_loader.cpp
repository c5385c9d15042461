// The safetensors reader and GPT-2's weight loader (src/gpt2/safetensors.hpp, loader.hpp) on
// files a tiny writer below makes: GPT-2's layout at small shapes in F32, F16 and BF16, with and
// without "transformer.", lm_head and the attn.bias buffers, and every bad file issue 26 names.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"
#include "gpt2/loader.hpp"
#include "gpt2/safetensors.hpp"
#include "support/seed.hpp"

namespace st = attn::gpt2::safetensors;
using attn::gpt2::DType;
using attn::gpt2::LoadOptions;
using attn::gpt2::Weights;
using Bytes = std::vector<std::uint8_t>;
using Shape = std::vector<std::uint64_t>;

namespace {

// --- a tiny safetensors writer -------------------------------------------------------------------

struct Spec {
  std::string name;
  std::string dtype;
  Shape shape;
  Bytes data;
};

std::string json_name(const std::string& s) { return "\"" + s + "\""; }  // the tests' names need no escapes

std::string shape_json(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// The 8-byte length, the header (padded with spaces to a multiple of 8, as the format's writer
// does), then the data.
Bytes file_of(const std::string& header, const Bytes& data = {}) {
  std::string h = header;
  while (h.size() % 8 != 0) h += ' ';
  // Sized once and copied into: GCC 12 at -O3 warns falsely (array-bounds) about insert() here.
  Bytes f(8 + h.size() + data.size());
  for (int i = 0; i < 8; ++i) f[std::size_t(i)] = std::uint8_t(std::uint64_t(h.size()) >> (8 * i));
  std::copy(h.begin(), h.end(), f.begin() + 8);
  std::copy(data.begin(), data.end(), f.begin() + 8 + std::ptrdiff_t(h.size()));
  return f;
}

// The tensors' bytes one after another, in the order given.
Bytes write_safetensors(const std::vector<Spec>& specs, const std::string& metadata = "{\"format\":\"pt\"}") {
  std::string h = "{";
  if (!metadata.empty()) h += "\"__metadata__\":" + metadata;
  Bytes data;
  for (const Spec& s : specs) {
    if (h.size() > 1) h += ",";
    h += json_name(s.name) + ":{\"dtype\":\"" + s.dtype + "\",\"shape\":" + shape_json(s.shape) +
         ",\"data_offsets\":[" + std::to_string(data.size()) + "," + std::to_string(data.size() + s.data.size()) + "]}";
    for (const std::uint8_t b : s.data) data.push_back(b);
  }
  return file_of(h + "}", data);
}

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// float32 → F16, for values F16 holds exactly (checked).
std::uint16_t to_f16(float f) {
  const std::uint32_t b = bits_of(f);
  const std::uint16_t sign = std::uint16_t((b >> 16) & 0x8000u);
  if (f == 0.0f) return sign;
  int e;
  const double m = std::frexp(std::fabs(double(f)), &e);  // f = m · 2^e, m in [0.5, 1)
  REQUIRE(e - 1 >= -14);                                  // normal in F16 (the tests need no other)
  REQUIRE(e - 1 <= 15);
  const double mantissa = (m * 2.0 - 1.0) * 1024.0;
  REQUIRE(mantissa == std::floor(mantissa));
  return std::uint16_t(sign | std::uint16_t((e - 1 + 15) << 10) | std::uint16_t(mantissa));
}

std::uint16_t to_bf16(float f) {
  const std::uint32_t b = bits_of(f);
  REQUIRE((b & 0xFFFFu) == 0);
  return std::uint16_t(b >> 16);
}

Bytes encode(const std::vector<float>& values, const std::string& dtype) {
  Bytes out;
  for (const float v : values) {
    if (dtype == "F32") {
      const std::uint32_t b = bits_of(v);
      for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(b >> (8 * i)));
    } else {
      const std::uint16_t h = dtype == "F16" ? to_f16(v) : to_bf16(v);
      out.push_back(std::uint8_t(h));
      out.push_back(std::uint8_t(h >> 8));
    }
  }
  return out;
}

// --- GPT-2 at small shapes ------------------------------------------------------------------------

struct Tiny {
  std::size_t layers = 2, d = 8, vocab = 5, context = 4;
  std::string dtype = "F32";
  bool prefix = false;       // "transformer." before every name (GPT2LMHeadModel's checkpoints)
  bool buffers = false;      // h.N.attn.bias [1, 1, C, C] and h.N.attn.masked_bias [], filled with NaN
  bool lm_head = false;      // a tied lm_head.weight, filled with NaN
};

// Multiples of 1/64 in −0.75 … 0.75: exact in F32, F16 and BF16, different in every tensor.
std::vector<float> values_of(const std::string& name, std::size_t n) {
  std::uint32_t h = 2166136261u;
  for (const char c : name) h = (h ^ std::uint8_t(c)) * 16777619u;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float(int((h + i * 37) % 97) - 48) / 64.0f;
  return v;
}

std::vector<std::pair<std::string, Shape>> gpt2_tensors(const Tiny& t) {
  const std::uint64_t d = t.d;
  std::vector<std::pair<std::string, Shape>> out = {{"wte.weight", {t.vocab, d}}, {"wpe.weight", {t.context, d}}};
  for (std::size_t l = 0; l < t.layers; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    out.push_back({h + "ln_1.weight", {d}});
    out.push_back({h + "ln_1.bias", {d}});
    out.push_back({h + "attn.c_attn.weight", {d, 3 * d}});
    out.push_back({h + "attn.c_attn.bias", {3 * d}});
    out.push_back({h + "attn.c_proj.weight", {d, d}});
    out.push_back({h + "attn.c_proj.bias", {d}});
    out.push_back({h + "ln_2.weight", {d}});
    out.push_back({h + "ln_2.bias", {d}});
    out.push_back({h + "mlp.c_fc.weight", {d, 4 * d}});
    out.push_back({h + "mlp.c_fc.bias", {4 * d}});
    out.push_back({h + "mlp.c_proj.weight", {4 * d, d}});
    out.push_back({h + "mlp.c_proj.bias", {d}});
  }
  out.push_back({"ln_f.weight", {d}});
  out.push_back({"ln_f.bias", {d}});
  return out;
}

std::size_t product(const Shape& s) {
  std::size_t n = 1;
  for (const auto x : s) n *= std::size_t(x);
  return n;
}

Bytes nan_bytes(std::size_t floats) {
  static constexpr std::uint8_t kNaN[] = {0x00, 0x00, 0xC0, 0x7F};
  Bytes b;
  for (std::size_t i = 0; i < floats; ++i) {
    for (const std::uint8_t x : kNaN) b.push_back(x);
  }
  return b;
}

// The specs of a tiny GPT-2, in the order Hugging Face's writer uses (sorted by name), so the
// buffers sit between the weights as in the real file.
std::vector<Spec> tiny_specs(const Tiny& t) {
  std::vector<Spec> specs;
  const std::string p = t.prefix ? "transformer." : "";
  for (const auto& [name, shape] : gpt2_tensors(t)) {
    specs.push_back({p + name, t.dtype, shape, encode(values_of(name, product(shape)), t.dtype)});
  }
  if (t.buffers) {
    for (std::size_t l = 0; l < t.layers; ++l) {
      const std::string h = p + "h." + std::to_string(l) + ".";
      specs.push_back({h + "attn.bias", "F32", {1, 1, t.context, t.context}, nan_bytes(t.context * t.context)});
      specs.push_back({h + "attn.masked_bias", "F32", {}, nan_bytes(1)});
    }
  }
  if (t.lm_head) specs.push_back({"lm_head.weight", "F32", {t.vocab, t.d}, nan_bytes(t.vocab * t.d)});
  std::sort(specs.begin(), specs.end(), [](const Spec& a, const Spec& b) { return a.name < b.name; });
  return specs;
}

Bytes tiny_file(const Tiny& t) { return write_safetensors(tiny_specs(t)); }

LoadOptions heads(std::uint64_t h) {
  LoadOptions o;
  o.heads = h;
  return o;
}

Weights load(const Bytes& f, const LoadOptions& o = heads(2), std::size_t chunk = 1 << 20) {
  return attn::gpt2::load_bytes(f.data(), f.size(), o, chunk);
}

const attn::AlignedVector<float>& buffer(const Weights& w, const std::string& name) {
  if (name == "wte.weight") return w.wte;
  if (name == "wpe.weight") return w.wpe;
  if (name == "ln_f.weight") return w.lnf_weight;
  if (name == "ln_f.bias") return w.lnf_bias;
  const std::size_t dot = name.find('.', 2);
  const attn::gpt2::Block& b = w.blocks.at(std::stoul(name.substr(2, dot - 2)));
  const std::string rest = name.substr(dot + 1);
  if (rest == "ln_1.weight") return b.ln1_weight;
  if (rest == "ln_1.bias") return b.ln1_bias;
  if (rest == "attn.c_attn.weight") return b.attn_weight;
  if (rest == "attn.c_attn.bias") return b.attn_bias;
  if (rest == "attn.c_proj.weight") return b.proj_weight;
  if (rest == "attn.c_proj.bias") return b.proj_bias;
  if (rest == "ln_2.weight") return b.ln2_weight;
  if (rest == "ln_2.bias") return b.ln2_bias;
  if (rest == "mlp.c_fc.weight") return b.fc_weight;
  if (rest == "mlp.c_fc.bias") return b.fc_bias;
  if (rest == "mlp.c_proj.weight") return b.mlp_proj_weight;
  REQUIRE(rest == "mlp.c_proj.bias");
  return b.mlp_proj_bias;
}

// Every buffer holds exactly the values the writer put in (bit for bit).
void check_weights(const Weights& w, const Tiny& t) {
  REQUIRE(w.blocks.size() == t.layers);
  for (const auto& tensor : gpt2_tensors(t)) {
    const std::string& name = tensor.first;  // not a structured binding: clang 14 cannot capture one
    CAPTURE(name);
    const std::vector<float> want = values_of(name, product(tensor.second));
    const auto& got = buffer(w, name);
    REQUIRE(got.size() == want.size());
    CHECK(std::memcmp(got.data(), want.data(), want.size() * 4) == 0);
  }
}

bool same_weights(const Weights& a, const Weights& b, const Tiny& t) {
  for (const auto& [name, shape] : gpt2_tensors(t)) {
    const auto& x = buffer(a, name);
    const auto& y = buffer(b, name);
    if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * 4) != 0) return false;
  }
  return true;
}

// The message of the attn::Error that f() throws ("" if none, "not attn::Error" if another).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return e.what();
  } catch (...) {
    return "not attn::Error";
  }
  return "";
}

std::string load_error(const Bytes& f, const LoadOptions& o = heads(2)) {
  return error_of([&] { (void)load(f, o); });
}

bool has(const std::string& message, const std::string& part) { return message.find(part) != std::string::npos; }

std::string header_of(const std::string& entries) { return "{" + entries + "}"; }

}  // namespace

// --- conversions ---------------------------------------------------------------------------------

TEST_CASE("GPT-2 loader: F16 and BF16 to float32, exactly, hand values") {
  using attn::gpt2::bf16_to_f32;
  using attn::gpt2::f16_to_f32;
  CHECK(f16_to_f32(0x3C00) == 1.0f);
  CHECK(f16_to_f32(0xC000) == -2.0f);
  CHECK(f16_to_f32(0x3555) == 0.333251953125f);
  CHECK(f16_to_f32(0x7BFF) == 65504.0f);                   // the largest F16
  CHECK(f16_to_f32(0x0400) == 0x1p-14f);                   // the smallest normal
  CHECK(f16_to_f32(0x03FF) == 1023.0f * 0x1p-24f);         // the largest subnormal
  CHECK(f16_to_f32(0x0001) == 0x1p-24f);                   // the smallest subnormal
  CHECK(f16_to_f32(0x8001) == -0x1p-24f);
  CHECK(f16_to_f32(0x0155) == 341.0f * 0x1p-24f);
  CHECK(bits_of(f16_to_f32(0x8000)) == 0x80000000u);       // −0 keeps its sign
  CHECK(f16_to_f32(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(f16_to_f32(0xFC00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(f16_to_f32(0x7E00)));
  CHECK(std::isnan(f16_to_f32(0x7C01)));                   // a signalling NaN stays a NaN
  CHECK(bf16_to_f32(0x3F80) == 1.0f);
  CHECK(bf16_to_f32(0x4049) == 3.140625f);
  CHECK(bf16_to_f32(0xC2F7) == -123.5f);
  CHECK(bf16_to_f32(0x7F7F) == 0x1.FEp127f);               // the largest BF16
  CHECK(bf16_to_f32(0x0001) == 0x1p-133f);                 // a subnormal, as in float32
  CHECK(bits_of(bf16_to_f32(0x8000)) == 0x80000000u);
  CHECK(bf16_to_f32(0xFF80) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(bf16_to_f32(0x7FC0)));
}

TEST_CASE("GPT-2 loader: every F16 and BF16 value against (−1)^s · m · 2^e in double") {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    CAPTURE(h);
    const int sign = (h >> 15) ? -1 : 1;
    const unsigned e = (h >> 10) & 31, m = h & 1023;
    double want;
    if (e == 31) want = m ? std::nan("") : sign * std::numeric_limits<double>::infinity();
    else if (e == 0) want = sign * std::ldexp(double(m), -24);
    else want = sign * std::ldexp(1024.0 + m, int(e) - 25);
    const float got = attn::gpt2::f16_to_f32(std::uint16_t(h));
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got));
    } else {
      REQUIRE(double(got) == want);
      REQUIRE(std::signbit(got) == (sign < 0));
    }
    const unsigned be = (h >> 7) & 255, bm = h & 127;
    if (be == 255) want = bm ? std::nan("") : sign * std::numeric_limits<double>::infinity();
    else if (be == 0) want = sign * std::ldexp(double(bm), -133);
    else want = sign * std::ldexp(128.0 + bm, int(be) - 134);
    const float bgot = attn::gpt2::bf16_to_f32(std::uint16_t(h));
    if (std::isnan(want)) {
      REQUIRE(std::isnan(bgot));
    } else {
      REQUIRE(double(bgot) == want);
    }
  }
}

// --- good files ----------------------------------------------------------------------------------

TEST_CASE("GPT-2 loader: a tiny F32 GPT-2, its config from the shapes") {
  const Tiny t;
  const Bytes f = tiny_file(t);
  const Weights w = load(f);
  CHECK(w.config.layers == 2);
  CHECK(w.config.heads == 2);
  CHECK(w.config.d_model == 8);
  CHECK(w.config.context == 4);
  CHECK(w.config.vocab_size == 5);
  CHECK(w.config.head_size() == 4);
  CHECK(w.config.dtype == DType::F32);
  const std::size_t d = 8, per_block = 2 * d + 3 * d * d + 3 * d + d * d + d + 2 * d + 4 * d * d + 4 * d + 4 * d * d + d;
  CHECK(w.config.parameters == 5 * d + 4 * d + 2 * per_block + 2 * d);
  check_weights(w, t);

  const st::Header h = st::parse(f.data(), f.size());
  CHECK(h.metadata.size() == 1);
  CHECK(h.metadata[0].first == "format");
  CHECK(h.metadata[0].second == "pt");
  const auto plan = attn::gpt2::plan_load(h, heads(2));
  CHECK(plan.tensors.size() == 2 + 2 * 12 + 2);
  CHECK(plan.skipped.empty());
  REQUIRE(plan.ranges.size() == 1);  // all adjacent: one request
  CHECK(plan.ranges[0].begin == h.data_start);
  CHECK(plan.ranges[0].end == f.size());
  CHECK(plan.read_bytes == f.size() - h.data_start);
  CHECK(plan.weight_bytes == 4 * w.config.parameters);
  for (std::size_t i = 1; i < plan.tensors.size(); ++i) CHECK(plan.tensors[i - 1].end == plan.tensors[i].begin);
}

TEST_CASE("GPT-2 loader: F16 and BF16 files give the F32 file's weights") {
  Tiny t;
  const Weights f32 = load(tiny_file(t));
  for (const char* dtype : {"F16", "BF16"}) {
    CAPTURE(dtype);
    t.dtype = dtype;
    const Bytes f = tiny_file(t);
    const Weights w = load(f);
    CHECK(w.config.dtype == (t.dtype == "F16" ? DType::F16 : DType::BF16));
    CHECK(same_weights(w, f32, t));
    check_weights(w, t);
  }
}

TEST_CASE("GPT-2 loader: the transformer. prefix, a tied lm_head and the attn.bias buffers are skipped, never read") {
  Tiny t;
  const Weights plain = load(tiny_file(t));
  t.prefix = true;
  t.buffers = true;
  t.lm_head = true;
  const Bytes f = tiny_file(t);
  // Every skipped tensor is all NaN: reading a byte of one would be refused.
  const Weights w = load(f);
  CHECK(same_weights(w, plain, t));
  CHECK(w.config.parameters == plain.config.parameters);

  const st::Header h = st::parse(f.data(), f.size());
  const auto plan = attn::gpt2::plan_load(h, heads(2));
  CHECK(plan.skipped == std::vector<std::string>{"lm_head.weight", "transformer.h.0.attn.bias", "transformer.h.0.attn.masked_bias",
                                                 "transformer.h.1.attn.bias", "transformer.h.1.attn.masked_bias"});
  CHECK(plan.tensors.front().name.rfind("transformer.", 0) == 0);
  // No range touches a skipped tensor, and the ranges hold exactly the planned bytes.
  std::uint64_t in_ranges = 0;
  for (const auto& r : plan.ranges) {
    in_ranges += r.end - r.begin;
    for (const std::string& name : plan.skipped) {
      const st::Tensor* s = h.find(name);
      REQUIRE(s != nullptr);
      CHECK((s->end <= r.begin || s->begin >= r.end));
    }
  }
  CHECK(in_ranges == plan.read_bytes);
  CHECK(plan.ranges.size() > 1);
  // The same file in one piece, as a server that ignores Range sends it: the buffers' bytes pass by.
  attn::gpt2::WeightFiller filler(plan);
  filler.write_file_bytes(0, f.data(), f.size());
  CHECK(filler.bytes_written() == plan.read_bytes);
  CHECK(same_weights(filler.finish(), plain, t));
}

TEST_CASE("GPT-2 loader: a tensor GPT-2 does not have is skipped, not read") {
  Tiny t;
  std::vector<Spec> specs = tiny_specs(t);
  specs.push_back({"h.0.attn.rotary_emb.inv_freq", "F32", {2}, nan_bytes(2)});
  specs.push_back({"score.weight", "BOOL", {3}, Bytes(3, 1)});
  const Bytes f = write_safetensors(specs);
  check_weights(load(f), t);
  const auto plan = attn::gpt2::plan_load(st::parse(f.data(), f.size()), heads(2));
  CHECK(plan.skipped == std::vector<std::string>{"h.0.attn.rotary_emb.inv_freq", "score.weight"});
}

TEST_CASE("GPT-2 loader: heads from the option, else d_model / 64") {
  Tiny t;
  t.layers = 1;
  t.d = 64;
  t.vocab = 2;
  t.context = 2;
  const Bytes f = tiny_file(t);
  CHECK(load(f, heads(0)).config.heads == 1);
  CHECK(load(f, heads(4)).config.heads == 4);
  CHECK(load(f, heads(64)).config.heads == 64);
  const std::string e = load_error(f, heads(3));
  CHECK(has(e, "cannot have 3 heads"));
  CHECK(has(e, "d_model 64"));
  Tiny small;  // d_model 8: no default
  const std::string e8 = load_error(tiny_file(small), heads(0));
  CHECK(has(e8, "not a multiple of 64"));
  CHECK(has(e8, "n_head"));
  // At most kMaxHeads, named as the caller named the option; a count past 32 bits is not wrapped.
  CHECK(load_error(f, heads(4097)) == "heads must be a whole number of heads from 1 to 4096 (got 4097)");
  LoadOptions from_config = heads(std::uint64_t{1} << 32);
  from_config.heads_name = "config.n_head";
  CHECK(load_error(f, from_config) == "config.n_head must be a whole number of heads from 1 to 4096 (got 4294967296)");
}

TEST_CASE("GPT-2 loader: chunks of 1, 3 and 7 bytes and random splits give identical weights") {
  ATTN_SEEDED_RANDOM(rng, 26);
  for (const char* dtype : {"F32", "F16", "BF16"}) {
    CAPTURE(dtype);
    Tiny t;
    t.dtype = dtype;
    t.buffers = true;
    const Bytes f = tiny_file(t);
    const Weights whole = load(f);
    check_weights(whole, t);
    for (const std::size_t chunk : {1, 2, 3, 5, 7, 13, 4096}) {
      CAPTURE(chunk);
      CHECK(same_weights(load(f, heads(2), chunk), whole, t));
    }
    // Tensors interleaved, each cut at random lengths (0 included), through write().
    const auto plan = attn::gpt2::plan_load(st::parse(f.data(), f.size()), heads(2));
    attn::gpt2::WeightFiller filler(plan);
    std::vector<std::uint64_t> done(plan.tensors.size(), 0);
    for (bool left = true; left;) {
      left = false;
      for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
        const auto& pt = plan.tensors[i];
        if (done[i] == pt.bytes()) continue;
        left = true;
        const std::uint64_t n = std::min<std::uint64_t>(rng.index(12), pt.bytes() - done[i]);
        filler.write(i, done[i], f.data() + std::size_t(pt.begin + done[i]), std::size_t(n));
        done[i] += n;
      }
    }
    CHECK(filler.bytes_written() == plan.read_bytes);
    CHECK(same_weights(filler.finish(), whole, t));
  }
}

TEST_CASE("GPT-2 loader: load_file reads a file through the same path") {
  Tiny t;
  t.buffers = true;
  t.dtype = "BF16";
  const Bytes f = tiny_file(t);
  const auto path = std::filesystem::temp_directory_path() / ("attn-gpt2-loader-" + std::to_string(std::rand()) + ".safetensors");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(f.data()), std::streamsize(f.size()));
  }
  const Weights w = attn::gpt2::load_file(path.string(), heads(2));
  std::filesystem::remove(path);
  check_weights(w, t);
  CHECK(has(error_of([&] { (void)attn::gpt2::load_file(path.string()); }), "Cannot open"));
}

TEST_CASE("GPT-2 loader: a header the format allows") {
  // Keys in any order, escapes in names, a key the format does not define, a scalar, an empty
  // tensor, no metadata, trailing spaces.
  const std::string header =
      "{ \"b\\u00e9\\ud83d\\ude00\\n\" : {\"shape\":[], \"dtype\":\"F32\", \"data_offsets\":[4,8], \"extra\":[{\"x\":null},true,-1.5e3]},\n"
      "  \"a\": {\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[8,16]},\n"
      "  \"z\": {\"dtype\":\"F16\",\"shape\":[2, 0],\"data_offsets\":[4,4]},\n"
      "  \"first\": {\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]} }   ";
  const Bytes f = file_of(header, Bytes(16, 0));
  const st::Header h = st::parse(f.data(), f.size());
  REQUIRE(h.tensors.size() == 4);
  CHECK(h.tensors[0].name == "first");
  CHECK(h.tensors[1].name == "z");  // empty, at 4
  CHECK(h.tensors[1].elements == 0);
  CHECK(h.tensors[2].name == "b\xC3\xA9\xF0\x9F\x98\x80\n");
  CHECK(h.tensors[2].elements == 1);
  CHECK(h.tensors[3].dtype == st::Dtype::I64);
  CHECK(h.tensors[3].begin == h.data_start + 8);
  CHECK(h.metadata.empty());
  CHECK(st::size_in_words(17) == "17 bytes");
  CHECK(st::size_in_words(548'105'171) == "548 MB");
  CHECK(st::size_in_words(1'419'729'920) == "1.42 GB");
  CHECK(st::size_in_words(999'999) == "1.00 MB");
  CHECK(st::size_in_words(12'345) == "12.3 KB");
}

// --- GPT-2 small and medium, from their headers alone -------------------------------------------

namespace {

// A header with GPT-2's shapes (as Hugging Face's file, buffers included) and no data: the plan
// and its memory check need nothing else.
st::Header shaped_header(std::size_t layers, std::size_t d, bool prefix) {
  Tiny t;
  t.layers = layers;
  t.d = d;
  t.vocab = 50257;
  t.context = 1024;
  std::string h = "{";
  std::uint64_t at = 0;
  auto add = [&](const std::string& name, const std::string& dtype, const Shape& shape, std::uint64_t size) {
    if (h.size() > 1) h += ",";
    h += json_name(name) + ":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape_json(shape) + ",\"data_offsets\":[" +
         std::to_string(at) + "," + std::to_string(at + product(shape) * size) + "]}";
    at += product(shape) * size;
  };
  const std::string p = prefix ? "transformer." : "";
  for (const auto& [name, shape] : gpt2_tensors(t)) add(p + name, "F32", shape, 4);
  for (std::size_t l = 0; l < layers; ++l) add(p + "h." + std::to_string(l) + ".attn.bias", "F32", {1, 1, 1024, 1024}, 4);
  const Bytes f = file_of(h + "}");
  return st::parse_header(f.data() + 8, f.size() - 8, f.size() + at);
}

}  // namespace

TEST_CASE("GPT-2 loader: GPT-2 small's and medium's shapes, and a memory limit refused before any weight is read") {
  const st::Header small = shaped_header(12, 768, false);
  CHECK(small.file_size - small.data_start == 548'090'880);  // as Hugging Face's model.safetensors, less its header
  const auto plan = attn::gpt2::plan_load(small);
  CHECK(plan.config.layers == 12);
  CHECK(plan.config.heads == 12);
  CHECK(plan.config.d_model == 768);
  CHECK(plan.config.context == 1024);
  CHECK(plan.config.vocab_size == 50257);
  CHECK(plan.config.parameters == 124'439'808);
  CHECK(plan.weight_bytes == 497'759'232);
  CHECK(plan.skipped.size() == 12);
  CHECK(plan.read_bytes == plan.weight_bytes);
  // What loading holds at its peak: the weights and one staging buffer, far under 1.15× the weights.
  CHECK(double(plan.memory_bytes) <= 1.15 * double(plan.weight_bytes));
  CHECK(double(plan.memory_bytes) <= 1.003 * double(plan.weight_bytes));

  LoadOptions limited;
  limited.memory_limit = 400'000'000;
  limited.memory_limit_words = "the memory a browser tab gives this page";
  const std::string e = error_of([&] { (void)attn::gpt2::plan_load(small, limited); });
  CHECK(e == "This model (12 layers, d_model 768, 124 million parameters) needs 499 MB of memory as float32 numbers, "
             "more than the memory a browser tab gives this page (400 MB). No weight was read.");

  const st::Header medium = shaped_header(24, 1024, true);
  const auto mplan = attn::gpt2::plan_load(medium, heads(16));
  CHECK(mplan.config.heads == 16);
  CHECK(mplan.config.parameters == 354'823'168);
  limited.memory_limit = 1'000'000'000;
  CHECK(has(error_of([&] { (void)attn::gpt2::plan_load(medium, limited); }), "needs 1.42 GB of memory"));
  limited.memory_limit = 2'000'000'000;
  CHECK(attn::gpt2::plan_load(medium, limited).config.layers == 24);
}

// --- bad files -----------------------------------------------------------------------------------

TEST_CASE("GPT-2 loader: files that are not safetensors") {
  CHECK(load_error({}) == "This file is not a safetensors file: it is empty (0 bytes): the download may have failed.");
  CHECK(has(load_error({1, 2, 3, 4, 5}), "only 5 bytes long"));
  {
    Bytes f = file_of("{}");
    f[0] = 200;  // N = 200 + 0, past the end of a 16-byte file
    const std::string e = load_error(f);
    CHECK(has(e, "This file is not a safetensors file: "));
    CHECK(has(e, "header of 200 bytes, but the file ends 8 bytes after them"));
  }
  {
    Bytes f(16, 0);
    f[4] = 1;  // 2^32
    CHECK(has(load_error(f), "its first 8 bytes do not give the length of a safetensors header (the format allows up to 100 MB)"));
  }
  CHECK(has(load_error(Bytes(16, 0)), "header length of 0"));
  {
    const std::string zip = "PK\x03\x04 and a lot more bytes of a zip archive";
    CHECK(has(load_error(Bytes(zip.begin(), zip.end())), "ZIP archive, as PyTorch's pytorch_model.bin is"));
    const std::string html = "<!DOCTYPE html><html><body>404 Not Found</body></html>";
    CHECK(has(load_error(Bytes(html.begin(), html.end())), "web page (HTML)"));
    const std::string json = "{\"n_layer\": 12, \"n_head\": 12}";
    CHECK(has(load_error(Bytes(json.begin(), json.end())), "JSON file (config.json is one)"));
  }
}

TEST_CASE("GPT-2 loader: headers that are not JSON") {
  const auto e = [](const std::string& header) { return load_error(file_of(header)); };
  const char* cases[][2] = {
      {"   ", "its header is blank"},
      {"[1, 2]", "not a JSON object"},
      {"{\"a\": {\"dtype\": \"F32\",}}", "expected a string in double quotes"},
      {"{'a': 1}", "expected a string in double quotes"},
      {"{\"a\" {}}", "expected ':' after a key"},
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}", "before its closing '}'"},
      {"{\"a", "a string is not closed"},
      {"{\"a\\x\": 1}", "an unknown escape"},
      {"{\"\\ud800\": 1}", "lone high surrogate"},
      {"{\"\\udc00\": 1}", "lone low surrogate"},
      {"{\"\xC3\x28\": 1}", "not UTF-8"},
      {"{\"\xED\xA0\x80\": 1}", "not UTF-8"},  // a surrogate in UTF-8
      {"{\"a\tb\": 1}", "control character"},
      {"{} x", "text after the header's closing '}'"},
      {"{\"a\": {\"dtype\": \"F32\", \"shape\": [01], \"data_offsets\": [0, 4]}}", "leading zero"},
      {"{\"a\": {\"x\": tru, \"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}", "expected a value"},
  };
  for (const auto& c : cases) {
    CAPTURE(c[0]);
    const std::string message = e(c[0]);
    CHECK(has(message, "This file is not a safetensors file: "));
    CHECK(has(message, c[1]));
  }
  std::string deep = "{\"a\": {\"x\": ";
  for (int i = 0; i < 100; ++i) deep += "[";
  CHECK(has(e(deep), "nested more than 64 deep"));
  CHECK(has(e("{\"a\": 1}"), "tensor \"a\" is not described by an object"));
  CHECK(has(e("{\"__metadata__\": {\"format\": 1}}"), "not a string, for \"format\""));
  CHECK(has(e("{\"__metadata__\": {\"k\": \"a\", \"k\": \"b\"}}"), "the key \"k\" twice"));
}

TEST_CASE("GPT-2 loader: tensors that break the format") {
  const auto e = [](const std::string& entries, std::size_t data = 64) { return load_error(file_of(header_of(entries), Bytes(data, 0))); };
  const char* cases[][2] = {
      {"\"a\": {\"dtype\": \"Q8\", \"shape\": [1], \"data_offsets\": [0, 1]}", "dtype \"Q8\", which the format does not define"},
      {"\"a\": {\"shape\": [1], \"data_offsets\": [0, 4]}", "tensor \"a\" has no \"dtype\""},
      {"\"a\": {\"dtype\": \"F32\", \"data_offsets\": [0, 4]}", "no \"shape\""},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [1]}", "no \"data_offsets\""},
      {"\"a\": {\"dtype\": \"F32\", \"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}", "\"dtype\" twice"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [3, 4], \"data_offsets\": [0, 40]}",
       "tensor \"a\" is F32 of shape [3, 4]: 12 numbers of 4 bytes, but its data_offsets [0, 40] hold 40 bytes"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}", "is negative (-1)"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [1.0], \"data_offsets\": [0, 4]}", "is not a whole number (1.0)"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 18446744073709551616]}", "too large for any file"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [4294967296, 4294967296], \"data_offsets\": [0, 4]}",
       "more numbers than any file can hold"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 0]}", "end before they begin"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4, 8]}", "hold 3 numbers, not two"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": \"1\", \"data_offsets\": [0, 4]}", "is not a list of sizes"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}, \"a\": {\"dtype\": \"F32\", \"shape\": [1], "
       "\"data_offsets\": [4, 8]}",
       "names tensor \"a\" twice"},
      {"\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]}, \"b\": {\"dtype\": \"F32\", \"shape\": [2], "
       "\"data_offsets\": [8, 16]}",
       "tensors \"a\" and \"b\" overlap"},
  };
  for (const auto& c : cases) {
    CAPTURE(c[0]);
    const std::string message = e(c[0]);
    CHECK(has(message, "This file is not a safetensors file: "));
    CHECK(has(message, c[1]));
  }
  // One byte of overlap is enough; touching ranges are fine.
  const std::string header = header_of(
      "\"a\": {\"dtype\": \"U8\", \"shape\": [4], \"data_offsets\": [0, 4]}, "
      "\"b\": {\"dtype\": \"U8\", \"shape\": [4], \"data_offsets\": [3, 7]}");
  const std::size_t start = 8 + (header.size() + 7) / 8 * 8;
  CHECK(load_error(file_of(header, Bytes(8, 0))) ==
        "This file is not a safetensors file: tensors \"a\" and \"b\" overlap: the first has bytes " + std::to_string(start) +
            " to " + std::to_string(start + 4) + " of the file and the second " + std::to_string(start + 3) + " to " +
            std::to_string(start + 7) + ".");
  const std::string touching = header_of(
      "\"a\": {\"dtype\": \"U8\", \"shape\": [4], \"data_offsets\": [0, 4]}, "
      "\"b\": {\"dtype\": \"U8\", \"shape\": [4], \"data_offsets\": [4, 8]}");
  const Bytes f = file_of(touching, Bytes(8, 0));
  CHECK(st::parse(f.data(), f.size()).tensors.size() == 2);
}

TEST_CASE("GPT-2 loader: a truncated file") {
  Tiny t;
  const Bytes whole = tiny_file(t);
  const st::Header h = st::parse(whole.data(), whole.size());
  const st::Tensor& fc = *h.find("h.1.mlp.c_fc.weight");
  const Bytes cut(whole.begin(), whole.begin() + std::ptrdiff_t(fc.begin) + 10);
  // Positions in prose have separators: 12,345.
  const auto separated = [](std::uint64_t v) {
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
      out.push_back(digits[i]);
    }
    return out;
  };
  CHECK(load_error(cut) == "The file ends at byte " + separated(cut.size()) + " but tensor \"h.1.mlp.c_fc.weight\" needs bytes up to " +
                               separated(fc.end) + ": the download was probably cut short.");
  // Cut inside the header: its length points past the end.
  CHECK(has(load_error(Bytes(whole.begin(), whole.begin() + 100)), "but the file ends 92 bytes after them"));
}

TEST_CASE("GPT-2 loader: safetensors files that are not GPT-2") {
  const auto bert = write_safetensors({
      {"bert.embeddings.word_embeddings.weight", "F32", {4, 2}, Bytes(32, 0)},
      {"bert.embeddings.position_ids", "I64", {1, 2}, Bytes(16, 0)},
      {"bert.encoder.layer.0.attention.self.query.weight", "F32", {2, 2}, Bytes(16, 0)},
      {"cls.predictions.bias", "F32", {4}, Bytes(16, 0)},
  });
  const std::string e = load_error(bert);
  CHECK(has(e, "This safetensors file does not hold GPT-2's weights"));
  CHECK(has(e, "wte.weight, wpe.weight"));
  CHECK(has(e, "Its 4 tensors are named like bert.embeddings.position_ids"));
  CHECK(has(e, "BERT's names"));
  CHECK(has(load_error(write_safetensors({}, "")), "holds no tensors at all"));

  Tiny t;
  const auto without = [&](const std::string& name) {
    std::vector<Spec> specs = tiny_specs(t);
    specs.erase(std::remove_if(specs.begin(), specs.end(), [&](const Spec& s) { return s.name == name; }), specs.end());
    return load_error(write_safetensors(specs));
  };
  CHECK(has(without("h.1.mlp.c_fc.weight"), "has no tensor h.1.mlp.c_fc.weight"));
  CHECK(has(without("ln_f.bias"), "has no tensor ln_f.bias"));
  {
    std::vector<Spec> specs = tiny_specs(t);  // layer 0 gone entirely
    specs.erase(std::remove_if(specs.begin(), specs.end(), [](const Spec& s) { return s.name.rfind("h.0.", 0) == 0; }), specs.end());
    CHECK(has(load_error(write_safetensors(specs)), "up to h.1 but no layer h.0 at all"));
  }
  const auto changed = [&](const std::string& name, const Shape& shape, const std::string& dtype = "F32") {
    std::vector<Spec> specs = tiny_specs(t);
    for (Spec& s : specs) {
      if (s.name == name) {
        s.shape = shape;
        s.dtype = dtype;
        s.data = Bytes(product(shape) * (dtype == "F32" || dtype == "I32" ? 4 : dtype == "I64" ? 8 : 2), 0);
      }
    }
    return load_error(write_safetensors(specs));
  };
  CHECK(changed("h.0.mlp.c_fc.weight", {8, 30}) ==
        "Tensor h.0.mlp.c_fc.weight has shape [8, 30], but GPT-2 with d_model 8 (from wte.weight [5, 8]) needs [8, 32].");
  CHECK(has(changed("h.0.attn.c_attn.weight", {24, 8}), "needs [8, 24]"));
  CHECK(has(changed("wpe.weight", {4, 7}), "position embedding is a matrix [context, d_model]"));
  CHECK(has(changed("wte.weight", {40}), "token embedding is a matrix [vocabulary, d_model]"));
  CHECK(changed("h.1.ln_2.bias", {8}, "I64") ==
        "Tensor h.1.ln_2.bias holds I64 (64-bit integers), and GPT-2's weights can only be read as F32, F16 or BF16.");
  {
    std::vector<Spec> specs = tiny_specs(t);
    specs.push_back({"lm_head.weight", "F32", {4, 8}, Bytes(128, 0)});
    CHECK(has(load_error(write_safetensors(specs)), "is not tied to its token embedding"));
    specs.pop_back();
    specs.push_back({"transformer.wte.weight", "F32", {5, 8}, Bytes(160, 0)});
    CHECK(has(load_error(write_safetensors(specs)), "holds GPT-2's tensor wte.weight twice"));
  }
}

TEST_CASE("GPT-2 loader: a NaN or ±Inf weight is refused, naming its tensor") {
  for (const char* dtype : {"F32", "F16", "BF16"}) {
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{1} << 20}) {
      CAPTURE(dtype);
      CAPTURE(chunk);
      Tiny t;
      t.dtype = dtype;
      std::vector<Spec> specs = tiny_specs(t);
      const std::size_t size = t.dtype == "F32" ? 4 : 2;
      for (Spec& s : specs) {
        if (s.name == "h.1.mlp.c_fc.weight") {
          const std::size_t at = (3 * 32 + 17) * size;  // [3, 17]
          if (t.dtype == "F32") {
            s.data[at + 2] = 0xC0, s.data[at + 3] = 0x7F;  // NaN
          } else if (t.dtype == "F16") {
            s.data[at] = 0x00, s.data[at + 1] = 0xFC;  // −Inf
          } else {
            s.data[at] = 0x80, s.data[at + 1] = 0x7F;  // +Inf
          }
        }
      }
      const std::string e = load_error(write_safetensors(specs), heads(2));
      const std::string what = t.dtype == "F32" ? "NaN (not a number)" : t.dtype == "F16" ? "-Inf" : "+Inf";
      CHECK(e == "Tensor h.1.mlp.c_fc.weight holds " + what +
                     " at [3, 17]. A weight must be a finite number: the file is damaged, or was saved from a model "
                     "whose training diverged.");
    }
  }
}

TEST_CASE("GPT-2 loader: the filler refuses chunks out of order, past a tensor's end, and an unfinished load") {
  Tiny t;
  const Bytes f = tiny_file(t);
  const auto plan = attn::gpt2::plan_load(st::parse(f.data(), f.size()), heads(2));
  const auto& first = plan.tensors[0];
  {
    attn::gpt2::WeightFiller filler(plan);
    CHECK(has(error_of([&] { filler.write(0, 4, f.data() + first.begin + 4, 4); }), "must come in order, once"));
    CHECK(has(error_of([&] { filler.write(0, 0, f.data(), 4); }), "stopped at an earlier error"));
  }
  {
    attn::gpt2::WeightFiller filler(plan);
    CHECK(has(error_of([&] { filler.write(0, 0, f.data() + first.begin, std::size_t(first.bytes() + 1)); }), "runs past its end"));
  }
  {
    attn::gpt2::WeightFiller filler(plan);
    CHECK(has(error_of([&] { filler.write(plan.tensors.size(), 0, f.data(), 1); }), "which has 28"));
  }
  {
    attn::gpt2::WeightFiller filler(plan);
    filler.write_file_bytes(0, f.data(), f.size() - 3);  // the last tensor's last 3 bytes missing
    const auto& last = plan.tensors.back();
    CHECK(error_of([&] { (void)filler.finish(); }) == "Tensor " + last.name + " was read only up to its byte " +
                                                          std::to_string(last.bytes() - 3) + " of " + std::to_string(last.bytes()) +
                                                          ": the reading stopped before the end of the weights.");
    filler.write_file_bytes(f.size() - 3, f.data() + f.size() - 3, 3);
    check_weights(filler.finish(), t);
    CHECK(has(error_of([&] { (void)filler.finish(); }), "already handed over"));
  }
  {
    attn::gpt2::WeightFiller filler(plan);  // through the staging buffer, as a binding would
    for (std::size_t at = 0; at < f.size(); at += 100) {
      const std::size_t n = std::min<std::size_t>(100, f.size() - at);
      std::memcpy(filler.staging(), f.data() + at, n);
      filler.write_file_staged(at, n);
    }
    check_weights(filler.finish(), t);
  }
}
