// GPT-2's names and shapes in a safetensors header, and the chunked conversion of its tensors into
// the float32 Weights (loader.hpp).
#include "gpt2/loader.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <string_view>

#include "error.hpp"
#include "kernels/finite.hpp"

namespace attn::gpt2 {

namespace {

using safetensors::Header;
using safetensors::Tensor;

constexpr std::string_view kPrefix = "transformer.";

struct PartName {
  Part part;
  const char* name;  // after "h.N." for a block's parts
};

constexpr PartName kModelParts[] = {
    {Part::wte, "wte.weight"}, {Part::wpe, "wpe.weight"}, {Part::lnf_weight, "ln_f.weight"}, {Part::lnf_bias, "ln_f.bias"}};

constexpr PartName kBlockParts[] = {
    {Part::ln1_weight, "ln_1.weight"},          {Part::ln1_bias, "ln_1.bias"},
    {Part::attn_weight, "attn.c_attn.weight"},  {Part::attn_bias, "attn.c_attn.bias"},
    {Part::proj_weight, "attn.c_proj.weight"},  {Part::proj_bias, "attn.c_proj.bias"},
    {Part::ln2_weight, "ln_2.weight"},          {Part::ln2_bias, "ln_2.bias"},
    {Part::fc_weight, "mlp.c_fc.weight"},       {Part::fc_bias, "mlp.c_fc.bias"},
    {Part::mlp_proj_weight, "mlp.c_proj.weight"}, {Part::mlp_proj_bias, "mlp.c_proj.bias"}};

// Layer numbers above this are not GPT-2's (gpt2-xl has 48 layers); it also bounds the work.
constexpr std::size_t kMaxLayers = 100000;

std::string number(std::uint64_t v) { return std::to_string(v); }

// "124 million", "1.56 billion", "12,345".
std::string count_in_words(std::uint64_t n) {
  char buf[48];
  if (n >= 1'000'000'000) {
    std::snprintf(buf, sizeof buf, "%.3g billion", double(n) / 1e9);
  } else if (n >= 1'000'000) {
    std::snprintf(buf, sizeof buf, "%.3g million", double(n) / 1e6);
  } else if (n >= 1000) {
    std::snprintf(buf, sizeof buf, "%u,%03u", unsigned(n / 1000), unsigned(n % 1000));
  } else {
    std::snprintf(buf, sizeof buf, "%u", unsigned(n));
  }
  return buf;
}

using safetensors::shape_text;

// A key's layer: "h.12.mlp.c_fc.weight" → 12 and rest "mlp.c_fc.weight". False if not "h.<N>.".
bool split_layer(std::string_view key, std::size_t& layer, std::string_view& rest) {
  if (key.substr(0, 2) != "h.") return false;
  std::size_t i = 2, n = 0;
  while (i < key.size() && key[i] >= '0' && key[i] <= '9' && i < 9) n = n * 10 + std::size_t(key[i++] - '0');
  if (i == 2 || i >= key.size() || key[i] != '.') return false;
  if (key[2] == '0' && i > 3) return false;  // "h.01." is not GPT-2's spelling
  layer = n;
  rest = key.substr(i + 1);
  return true;
}

// The names of a file that is not GPT-2, for the message: a few of them, and the family if known.
std::string other_model(const Header& h) {
  if (h.tensors.empty()) return " This file holds no tensors at all.";
  std::string s = " Its " + number(h.tensors.size()) + (h.tensors.size() == 1 ? " tensor is" : " tensors are") + " named like ";
  std::vector<std::string> names;
  for (const Tensor& t : h.tensors) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) {
    std::string name = names[i].substr(0, 80);
    for (char& c : name) {
      if (static_cast<unsigned char>(c) < 0x20) c = '?';
    }
    if (i) s += ", ";
    s += name;
  }
  s += names.size() > 3 ? ", …" : "";
  bool bert = false, llama = false;
  for (const std::string& n : names) {
    if (n.find("bert.") != std::string::npos || n.find("embeddings.word_embeddings") != std::string::npos ||
        n.find("encoder.layer.") != std::string::npos) bert = true;
    if (n.find("model.layers.") != std::string::npos) llama = true;
  }
  if (bert) return s + ": those are BERT's names, an encoder, not GPT-2.";
  if (llama) return s + ": those are the names of a Llama-style model, not GPT-2.";
  return s + ".";
}

DType readable(const Tensor& t) {
  switch (t.dtype) {
    case safetensors::Dtype::F32: return DType::F32;
    case safetensors::Dtype::F16: return DType::F16;
    case safetensors::Dtype::BF16: return DType::BF16;
    default:
      throw Error("Tensor " + t.name + " holds " + safetensors::dtype_name(t.dtype) + " (" +
                  safetensors::dtype_words(t.dtype) + "), and GPT-2's weights can only be read as F32, F16 or BF16.");
  }
}

std::size_t element_size(DType d) { return d == DType::F32 ? 4 : 2; }

}  // namespace

float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  std::uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // ±Inf, NaN (payload kept)
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 → 127
  } else if (mantissa == 0) {
    bits = sign;  // ±0
  } else {
    // A subnormal, mantissa × 2^−24: normal in float32. Shift its leading 1 up to the implicit bit.
    std::uint32_t e = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float bf16_to_f32(std::uint16_t h) {
  const std::uint32_t bits = std::uint32_t(h) << 16;  // bfloat16 is float32's top half
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

LoadPlan plan_load(const Header& header, const LoadOptions& options) {
  if (options.heads > kMaxHeads) {
    // In the words web/api/gpt2.js used when it made this check itself.
    throw Error(options.heads_name + " must be a whole number of heads from 1 to " + std::to_string(kMaxHeads) +
                " (got " + std::to_string(options.heads) + ")");
  }
  // The keys without the prefix, each once.
  std::map<std::string, const Tensor*, std::less<>> by_key;
  for (const Tensor& t : header.tensors) {
    std::string_view key = t.name;
    if (key.substr(0, kPrefix.size()) == kPrefix) key.remove_prefix(kPrefix.size());
    const auto [it, added] = by_key.emplace(std::string(key), &t);
    if (!added) {
      throw Error("This file holds GPT-2's tensor " + std::string(key) + " twice, as " + it->second->name + " and as " +
                  t.name + ": it cannot tell which to use.");
    }
  }
  const auto find = [&](std::string_view key) -> const Tensor* {
    const auto it = by_key.find(key);
    return it == by_key.end() ? nullptr : it->second;
  };

  // Layers: every h.N key counts, so h.0 … h.L−1 must each be complete.
  std::set<std::size_t> layers_seen;
  bool has_attention = false;
  for (const auto& [key, t] : by_key) {
    std::size_t layer;
    std::string_view rest;
    if (split_layer(key, layer, rest)) {
      layers_seen.insert(layer);
      if (rest == "attn.c_attn.weight") has_attention = true;
    }
  }
  if (!find("wte.weight") && !has_attention) {
    throw Error(
        "This safetensors file does not hold GPT-2's weights. GPT-2's tensors are named wte.weight, wpe.weight, "
        "h.0.ln_1.weight, h.0.attn.c_attn.weight, … ln_f.weight (with or without \"transformer.\" before them), "
        "and this file has none of them." + other_model(header));
  }
  for (const auto& part : kModelParts) {
    if (!find(part.name)) {
      throw Error("This file looks like GPT-2 but has no tensor " + std::string(part.name) +
                  ": it is damaged, or a model of another kind.");
    }
  }
  if (layers_seen.empty()) {
    throw Error("This file looks like GPT-2 but has no layers: no tensor is named h.0.…, h.1.…");
  }
  const std::size_t layers = *layers_seen.rbegin() + 1;
  if (layers > kMaxLayers) throw Error("This file names a layer h." + number(layers - 1) + ", far more than any GPT-2 has.");
  for (std::size_t l = 0; l < layers; ++l) {
    if (!layers_seen.count(l)) {
      throw Error("This file has GPT-2's layers up to h." + number(layers - 1) + " but no layer h." + number(l) +
                  " at all: it is damaged, or was cut down by a tool that renumbered nothing.");
    }
    for (const auto& part : kBlockParts) {
      const std::string key = "h." + number(l) + "." + part.name;
      if (!find(key)) {
        throw Error("This file looks like GPT-2 but has no tensor " + key + " (" +
                    (layers == 1 ? std::string("its one layer") : "each of its " + number(layers) + " layers") + " needs ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc and mlp.c_proj, each a weight and "
                    "a bias): it is damaged, or a model of another kind.");
      }
    }
  }

  // The config from the shapes.
  const Tensor& wte = *find("wte.weight");
  const Tensor& wpe = *find("wpe.weight");
  if (wte.shape.size() != 2 || wte.shape[0] == 0 || wte.shape[1] == 0) {
    throw Error("Tensor " + wte.name + " has shape " + shape_text(wte.shape) +
                ", but GPT-2's token embedding is a matrix [vocabulary, d_model] with neither 0.");
  }
  const std::uint64_t vocab = wte.shape[0], d = wte.shape[1];
  if (wpe.shape.size() != 2 || wpe.shape[0] == 0 || wpe.shape[1] != d) {
    throw Error("Tensor " + wpe.name + " has shape " + shape_text(wpe.shape) +
                ", but GPT-2's position embedding is a matrix [context, d_model], with d_model " + number(d) +
                " as in " + wte.name + " " + shape_text(wte.shape) + ".");
  }
  const std::uint64_t context = wpe.shape[0];
  const auto expected = [&](Part p) -> std::vector<std::uint64_t> {
    switch (p) {
      case Part::wte: return {vocab, d};
      case Part::wpe: return {context, d};
      case Part::attn_weight: return {d, 3 * d};
      case Part::attn_bias: return {3 * d};
      case Part::proj_weight: return {d, d};
      case Part::fc_weight: return {d, 4 * d};
      case Part::fc_bias: return {4 * d};
      case Part::mlp_proj_weight: return {4 * d, d};
      default: return {d};  // the LayerNorms' and the projections' biases
    }
  };

  LoadPlan plan;
  std::vector<bool> read(header.tensors.size(), false);
  const auto take = [&](const Tensor* t, Part part, std::size_t layer) {
    const std::vector<std::uint64_t> want = expected(part);
    if (t->shape != want) {
      throw Error("Tensor " + t->name + " has shape " + shape_text(t->shape) + ", but GPT-2 with d_model " + number(d) +
                  " (from " + wte.name + " " + shape_text(wte.shape) + ") needs " + shape_text(want) + ".");
    }
    read[std::size_t(t - header.tensors.data())] = true;
    PlannedTensor p;
    p.name = t->name;
    p.dtype = readable(*t);
    p.shape = t->shape;
    p.elements = t->elements;
    p.begin = t->begin;
    p.end = t->end;
    p.part = part;
    p.layer = layer;
    plan.tensors.push_back(std::move(p));
  };
  for (const auto& part : kModelParts) take(find(part.name), part.part, 0);
  for (std::size_t l = 0; l < layers; ++l) {
    for (const auto& part : kBlockParts) take(find("h." + number(l) + "." + part.name), part.part, l);
  }
  if (const Tensor* head = find("lm_head.weight")) {
    if (head->shape != wte.shape) {
      throw Error("Tensor " + head->name + " has shape " + shape_text(head->shape) + ", not " + wte.name + "'s " +
                  shape_text(wte.shape) + ": its output layer is not tied to its token embedding, as GPT-2's is.");
    }
  }
  std::sort(plan.tensors.begin(), plan.tensors.end(),
            [](const PlannedTensor& a, const PlannedTensor& b) { return a.begin < b.begin; });
  for (std::size_t i = 0; i < header.tensors.size(); ++i) {
    if (!read[i]) plan.skipped.push_back(header.tensors[i].name);
  }

  // Heads.
  std::uint64_t heads = options.heads;
  if (heads == 0) {
    if (d % 64 != 0) {
      throw Error("d_model is " + number(d) + " (from " + wte.name + "), not a multiple of 64, GPT-2's head size, so "
                  "the number of heads cannot be guessed: give n_head from the model's config.json.");
    }
    heads = d / 64;
  } else if (d % heads != 0) {
    throw Error("The model cannot have " + number(heads) + " heads: d_model " + number(d) + " (from " + wte.name +
                ") does not divide into " + number(heads) + " equal heads.");
  }

  // Memory, before anything is read or allocated.
  std::uint64_t parameters = 0;
  for (const PlannedTensor& t : plan.tensors) parameters += t.elements;  // each ≤ its bytes: no overflow
  for (const PlannedTensor& t : plan.tensors) plan.read_bytes += t.bytes();
  plan.weight_bytes = parameters * 4;
  plan.memory_bytes = plan.weight_bytes + WeightFiller::kStagingBytes;
  const std::string model = "This model (" + number(layers) + " layers, d_model " + number(d) + ", " +
                            count_in_words(parameters) + " parameters) needs " +
                            safetensors::size_in_words(plan.memory_bytes) + " of memory as float32 numbers";
  if (options.memory_limit != 0 && plan.memory_bytes > options.memory_limit) {
    throw Error(model + ", more than " + options.memory_limit_words + " (" +
                safetensors::size_in_words(options.memory_limit) + "). No weight was read.");
  }
  if (plan.memory_bytes > std::numeric_limits<std::size_t>::max()) {
    throw Error(model + ", more than this build can address. No weight was read.");
  }

  Config& c = plan.config;
  c.layers = layers;
  c.heads = std::size_t(heads);
  c.d_model = std::size_t(d);
  c.context = std::size_t(context);
  c.vocab_size = std::size_t(vocab);
  c.dtype = readable(wte);
  c.parameters = std::size_t(parameters);

  for (const PlannedTensor& t : plan.tensors) {
    if (!plan.ranges.empty() && plan.ranges.back().end == t.begin) {
      plan.ranges.back().end = t.end;
    } else {
      plan.ranges.push_back({t.begin, t.end});
    }
  }
  return plan;
}

WeightFiller::WeightFiller(LoadPlan plan) : plan_(std::move(plan)) {
  const Config& c = plan_.config;
  weights_.config = c;
  const std::size_t d = c.d_model;
  try {
    weights_.wte.resize(c.vocab_size * d);
    weights_.wpe.resize(c.context * d);
    weights_.lnf_weight.resize(d);
    weights_.lnf_bias.resize(d);
    weights_.blocks.resize(c.layers);
    for (Block& b : weights_.blocks) {
      b.ln1_weight.resize(d);
      b.ln1_bias.resize(d);
      b.attn_weight.resize(d * 3 * d);
      b.attn_bias.resize(3 * d);
      b.proj_weight.resize(d * d);
      b.proj_bias.resize(d);
      b.ln2_weight.resize(d);
      b.ln2_bias.resize(d);
      b.fc_weight.resize(d * 4 * d);
      b.fc_bias.resize(4 * d);
      b.mlp_proj_weight.resize(4 * d * d);
      b.mlp_proj_bias.resize(d);
    }
  } catch (const std::bad_alloc&) {
    weights_ = Weights{};
    throw Error("There is not enough memory for this model's weights (" + safetensors::size_in_words(plan_.weight_bytes) +
                " as float32 numbers). No weight was read.");
  }
  slots_.resize(plan_.tensors.size());
  for (std::size_t i = 0; i < plan_.tensors.size(); ++i) {
    const PlannedTensor& t = plan_.tensors[i];
    Block* b = t.layer < weights_.blocks.size() ? &weights_.blocks[t.layer] : nullptr;
    Block unused;  // a model part's layer may be anything; only block parts read b
    if (b == nullptr) b = &unused;
    AlignedVector<float>* out = nullptr;
    switch (t.part) {
      case Part::wte: out = &weights_.wte; break;
      case Part::wpe: out = &weights_.wpe; break;
      case Part::lnf_weight: out = &weights_.lnf_weight; break;
      case Part::lnf_bias: out = &weights_.lnf_bias; break;
      case Part::ln1_weight: out = &b->ln1_weight; break;
      case Part::ln1_bias: out = &b->ln1_bias; break;
      case Part::attn_weight: out = &b->attn_weight; break;
      case Part::attn_bias: out = &b->attn_bias; break;
      case Part::proj_weight: out = &b->proj_weight; break;
      case Part::proj_bias: out = &b->proj_bias; break;
      case Part::ln2_weight: out = &b->ln2_weight; break;
      case Part::ln2_bias: out = &b->ln2_bias; break;
      case Part::fc_weight: out = &b->fc_weight; break;
      case Part::fc_bias: out = &b->fc_bias; break;
      case Part::mlp_proj_weight: out = &b->mlp_proj_weight; break;
      case Part::mlp_proj_bias: out = &b->mlp_proj_bias; break;
    }
    if (t.part >= Part::ln1_weight && t.layer >= weights_.blocks.size()) out = nullptr;
    if (out == nullptr || out->size() != t.elements || t.bytes() != t.elements * element_size(t.dtype)) {
      throw Error("The load plan's tensor " + t.name + " does not fit the model it describes.");  // a plan edited by hand
    }
    slots_[i].out = out->data();
  }
}

void WeightFiller::fail(const std::string& message) {
  failed_ = true;
  throw Error(message);
}

void WeightFiller::write(std::size_t tensor, std::uint64_t offset, const std::uint8_t* bytes, std::size_t length) {
  if (finished_) throw Error("These weights were already handed over: open the file again to load it again.");
  if (failed_) throw Error("Loading these weights stopped at an earlier error: open the file again.");
  if (tensor >= slots_.size()) {
    fail("A chunk was given for tensor " + number(tensor) + " of the load plan, which has " + number(slots_.size()) + ".");
  }
  Slot& s = slots_[tensor];
  const PlannedTensor& t = plan_.tensors[tensor];
  if (offset != s.written) {
    fail("A chunk of tensor " + t.name + " starts at its byte " + number(offset) + ", but " + number(s.written) +
         " of its bytes have been read: each tensor's bytes must come in order, once.");
  }
  if (length > t.bytes() - s.written) {
    fail("A chunk of tensor " + t.name + " runs past its end: " + number(length) + " bytes from its byte " +
         number(offset) + ", and it has " + number(t.bytes()) + ".");
  }
  if (length == 0) return;
  if (bytes == nullptr) fail("A chunk of tensor " + t.name + " has no bytes.");
  convert(tensor, bytes, length);
  s.written += length;
  written_total_ += length;
}

void WeightFiller::convert(std::size_t tensor, const std::uint8_t* p, std::size_t n) {
  Slot& s = slots_[tensor];
  const PlannedTensor& t = plan_.tensors[tensor];
  const std::size_t size = element_size(t.dtype);
  std::size_t index = std::size_t(s.written / size);  // the element the next complete one is
  const auto bad = [&](std::uint64_t at, float value) {
    std::string where = "[";
    std::uint64_t rest = at;
    std::vector<std::uint64_t> coords(t.shape.size());
    for (std::size_t k = t.shape.size(); k-- > 0;) {
      coords[k] = rest % t.shape[k];
      rest /= t.shape[k];
    }
    for (std::size_t k = 0; k < coords.size(); ++k) {
      if (k) where += ", ";
      where += number(coords[k]);
    }
    where += "]";
    const std::string what = value != value ? "NaN (not a number)" : value > 0 ? "+Inf" : "-Inf";
    fail("Tensor " + t.name + " holds " + what + " at " + where +
         ". A weight must be a finite number: the file is damaged, or was saved from a model whose training diverged.");
  };
  const auto one = [&](const std::uint8_t* b) -> float {
    if (t.dtype == DType::F32) {
      float f;
      const std::uint32_t bits = std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 |
                                 std::uint32_t(b[3]) << 24;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    const auto h = std::uint16_t(b[0] | b[1] << 8);
    return t.dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
  };
  // 1. Complete the number the last chunk cut.
  if (s.carried != 0) {
    while (s.carried < size && n != 0) {
      s.carry[s.carried++] = *p++;
      --n;
    }
    if (s.carried < size) return;
    const float v = one(s.carry);
    if (!std::isfinite(v)) bad(index, v);
    s.out[index++] = v;
    s.carried = 0;
  }
  // 2. Whole numbers, straight into the weights.
  const std::size_t count = n / size;
  float* out = s.out + index;
  if (t.dtype == DType::F32) {
    // The file's bytes are the floats on a little-endian host (x86, Arm, WebAssembly), as here.
    static_assert(sizeof(float) == 4 && std::endian::native == std::endian::little);
    std::memcpy(out, p, count * 4);
    if (!kernels::all_finite(out, count)) {
      for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(out[i])) bad(index + i, out[i]);
      }
    }
  } else if (t.dtype == DType::F16) {
    for (std::size_t i = 0; i < count; ++i) {
      const auto h = std::uint16_t(p[2 * i] | p[2 * i + 1] << 8);
      if ((h & 0x7C00u) == 0x7C00u) bad(index + i, f16_to_f32(h));
      out[i] = f16_to_f32(h);
    }
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      const auto h = std::uint16_t(p[2 * i] | p[2 * i + 1] << 8);
      if ((h & 0x7F80u) == 0x7F80u) bad(index + i, bf16_to_f32(h));
      out[i] = bf16_to_f32(h);
    }
  }
  p += count * size;
  n -= count * size;
  // 3. Keep the start of a number the chunk cuts.
  for (; n != 0; --n) s.carry[s.carried++] = *p++;
}

void WeightFiller::write_file_bytes(std::uint64_t file_offset, const std::uint8_t* bytes, std::size_t length) {
  if (length > std::numeric_limits<std::uint64_t>::max() - file_offset) {
    fail("A chunk at byte " + number(file_offset) + " of the file runs past any file's end.");
  }
  const std::uint64_t end = file_offset + length;
  // Planned tensors are non-empty and never overlap, so sorted by begin they are sorted by end too.
  const auto& ts = plan_.tensors;
  auto it = std::upper_bound(ts.begin(), ts.end(), file_offset,
                             [](std::uint64_t off, const PlannedTensor& t) { return off < t.end; });
  for (; it != ts.end() && it->begin < end; ++it) {
    const std::uint64_t lo = std::max(it->begin, file_offset), hi = std::min(it->end, end);
    write(std::size_t(it - ts.begin()), lo - it->begin, bytes + std::size_t(lo - file_offset), std::size_t(hi - lo));
  }
}

std::uint8_t* WeightFiller::staging() {
  if (staging_.empty()) staging_.resize(kStagingBytes);
  return staging_.data();
}

void WeightFiller::write_staged(std::size_t tensor, std::uint64_t offset, std::size_t length) {
  if (length > kStagingBytes) fail("A staged chunk of " + number(length) + " bytes is longer than the staging buffer.");
  write(tensor, offset, staging(), length);
}

void WeightFiller::write_file_staged(std::uint64_t file_offset, std::size_t length) {
  if (length > kStagingBytes) fail("A staged chunk of " + number(length) + " bytes is longer than the staging buffer.");
  write_file_bytes(file_offset, staging(), length);
}

Weights WeightFiller::finish() {
  if (finished_) throw Error("These weights were already handed over: open the file again to load it again.");
  if (failed_) throw Error("Loading these weights stopped at an earlier error: open the file again.");
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const PlannedTensor& t = plan_.tensors[i];
    if (slots_[i].written != t.bytes()) {
      throw Error("Tensor " + t.name + " was read only up to its byte " + number(slots_[i].written) + " of " +
                  number(t.bytes()) + ": the reading stopped before the end of the weights.");
    }
  }
  finished_ = true;
  staging_ = AlignedVector<std::uint8_t>();
  slots_.clear();
  return std::move(weights_);
}

Weights load_bytes(const std::uint8_t* file, std::size_t size, const LoadOptions& options, std::size_t chunk) {
  if (chunk == 0) chunk = WeightFiller::kStagingBytes;
  WeightFiller filler(plan_load(safetensors::parse(file, size), options));
  for (const ByteRange& r : filler.plan().ranges) {
    for (std::uint64_t at = r.begin; at < r.end; at += chunk) {
      const std::size_t n = std::size_t(std::min<std::uint64_t>(chunk, r.end - at));
      filler.write_file_bytes(at, file + std::size_t(at), n);
    }
  }
  return filler.finish();
}

}  // namespace attn::gpt2
