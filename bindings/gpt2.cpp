// Embind layer of the GPT-2 module (issue 26), for web/api/gpt2.js only: a module of its own,
// loaded when a page opens a GPT-2 file, so neither the calculator's modules nor the learned
// heads' grow by a byte. A loader and then a model live in this module's heap between calls,
// named by handles (convert.hpp); errors come back as { error: message }.
//
//   gpt2Plan({ header, fileSize, heads, memoryLimit, memoryLimitWords }) → { handle, config, ranges, … }
//   gpt2Staging(handle) → the staging buffer's address; JS copies each chunk of the file there, then
//   gpt2Write(handle, fileOffset, length) → {}; gpt2Finish(handle) → {} (the loader becomes the model)
//   gpt2LoadTokenizer(bytes) → {}; gpt2Tokenize(text) → { ids, tokens }
//   gpt2Run(handle, { ids, endOfTextFirst, layers, ablate, lens, attribute })
//     → { layers, next, lens?, attribution? }; gpt2Free(handle) (and the model's decoders)
//   gpt2DecoderOpen(handle, { ids, endOfTextFirst, maxNewTokens, temperature, topK, seed, cache })
//     → { value: decoder }; gpt2DecoderStep(decoder) → { value: { id, token, probability,
//     cacheBytes, done } | null }; gpt2DecoderFree(decoder)
//   gpt2Limits() → { stagingBytes, maxKeptWeights }
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "convert_head_scores.hpp"
#include "error.hpp"
#include "gpt2/decode.hpp"
#include "gpt2/forward.hpp"
#include "gpt2/loader.hpp"
#include "gpt2/safetensors.hpp"
#include "gpt2/tokenizer.hpp"

using emscripten::val;
using namespace attn::bindings;

namespace {

// A GPT-2 being read (its filler) and then read (its weights): one handle for both.
struct Gpt2 {
  std::optional<attn::gpt2::WeightFiller> filler;
  attn::gpt2::Weights weights;
};

std::vector<std::unique_ptr<Gpt2>>& models() {
  static std::vector<std::unique_ptr<Gpt2>> slots;
  return slots;
}

// A decoder reads its model's weights: it is freed with the model (gpt2Free).
struct Gpt2Decoder {
  double model;
  attn::gpt2::Decoder decoder;
};

std::vector<std::unique_ptr<Gpt2Decoder>>& decoders() {
  static std::vector<std::unique_ptr<Gpt2Decoder>> slots;
  return slots;
}

std::unique_ptr<attn::gpt2::Tokenizer>& tokenizer() {
  static std::unique_ptr<attn::gpt2::Tokenizer> t;
  return t;
}

const char* dtype_name(attn::gpt2::DType d) {
  switch (d) {
    case attn::gpt2::DType::F16: return "F16";
    case attn::gpt2::DType::BF16: return "BF16";
    default: return "F32";
  }
}

val config_object(const attn::gpt2::Config& c) {
  val out = val::object();
  out.set("layers", double(c.layers));
  out.set("heads", double(c.heads));
  out.set("dModel", double(c.d_model));
  out.set("context", double(c.context));
  out.set("vocabSize", double(c.vocab_size));
  out.set("dtype", std::string(dtype_name(c.dtype)));
  out.set("parameters", double(c.parameters));
  return out;
}

// args: { header: Uint8Array (the JSON after the 8-byte length), fileSize, heads (0: d / 64),
//         headsName (the option it came from), memoryLimit (bytes; 0: none), memoryLimitWords }
// → { handle, config, ranges: [begin, end, …] (file offsets), readBytes, weightBytes, skipped }
val gpt2_plan(val args) {
  return guarded([&] {
    const auto json = emscripten::convertJSArrayToNumberVector<std::uint8_t>(args["header"]);
    const auto file_size = whole_number<std::uint64_t>(args["fileSize"].as<double>(), "fileSize");
    const attn::gpt2::safetensors::Header header = attn::gpt2::safetensors::parse_header(json.data(), json.size(), file_size);
    attn::gpt2::LoadOptions options;
    options.heads = whole_number<std::uint64_t>(args["heads"].as<double>(), "heads");
    options.heads_name = args["headsName"].as<std::string>();
    options.memory_limit = whole_number<std::uint64_t>(args["memoryLimit"].as<double>(), "memoryLimit");
    options.memory_limit_words = args["memoryLimitWords"].as<std::string>();
    attn::gpt2::LoadPlan plan = attn::gpt2::plan_load(header, options);
    val ranges = val::array();
    for (const attn::gpt2::ByteRange& r : plan.ranges) {
      ranges.call<void>("push", double(r.begin));
      ranges.call<void>("push", double(r.end));
    }
    val out = val::object();
    out.set("config", config_object(plan.config));
    out.set("ranges", ranges);
    out.set("readBytes", double(plan.read_bytes));
    out.set("weightBytes", double(plan.weight_bytes));
    out.set("skipped", strings(plan.skipped));
    auto model = std::make_unique<Gpt2>();
    model->filler.emplace(std::move(plan));  // allocates the weights: refused here if they cannot be
    out.set("handle", keep(models(), std::move(model)));
    return out;
  });
}

attn::gpt2::WeightFiller& filler_of(double handle) {
  Gpt2& m = find(models(), handle, "GPT-2 model");
  if (!m.filler) throw attn::Error("this GPT-2 model is already read");
  return *m.filler;
}

double gpt2_staging(double handle) {
  try {
    return double(reinterpret_cast<std::uintptr_t>(filler_of(handle).staging()));
  } catch (...) {
    return 0;  // JS reports a failed allocation as out of memory
  }
}

// The `length` bytes at the staging buffer are the file's bytes from `file_offset` on.
val gpt2_write(double handle, double file_offset, double length) {
  return guarded([&] {
    filler_of(handle).write_file_staged(whole_number<std::uint64_t>(file_offset, "fileOffset"),
                                        whole_number<std::size_t>(length, "length"));
    return val::object();
  });
}

val gpt2_finish(double handle) {
  return guarded([&] {
    Gpt2& m = find(models(), handle, "GPT-2 model");
    if (!m.filler) throw attn::Error("this GPT-2 model is already read");
    m.weights = m.filler->finish();
    m.filler.reset();  // its staging buffer goes
    return val::object();
  });
}

void gpt2_free(double handle) {
  const std::size_t i = whole_number<std::size_t>(handle, "handle");
  for (auto& d : decoders()) {
    if (d && d->model == handle) d.reset();
  }
  if (i < models().size()) models()[i].reset();
}

val gpt2_load_tokenizer(val bytes) {
  return guarded([&] {
    const auto data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    tokenizer() = std::make_unique<attn::gpt2::Tokenizer>(attn::gpt2::Tokenizer::from_bytes(data.data(), data.size()));
    return val::object();
  });
}

const attn::gpt2::Tokenizer& loaded_tokenizer() {
  if (!tokenizer()) throw attn::Error("GPT-2's tokenizer is not loaded");
  return *tokenizer();
}

val tokens_of(const std::vector<std::int32_t>& ids) {
  const attn::gpt2::Tokenizer& t = loaded_tokenizer();
  val out = val::array();
  for (std::int32_t id : ids) out.call<void>("push", t.token_text(id));
  return out;
}

// text: UTF-8 bytes (Uint8Array) → { ids: Int32Array, tokens: [string] }
val gpt2_tokenize(val bytes) {
  return guarded([&] {
    const auto data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    const std::vector<std::int32_t> ids =
        loaded_tokenizer().encode(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
    val out = val::object();
    out.set("ids", val::global("Int32Array").new_(emscripten::typed_memory_view(ids.size(), ids.data())));
    out.set("tokens", tokens_of(ids));
    return out;
  });
}

val token_list(const std::vector<attn::gpt2::NextToken>& tokens) {
  val out = val::array();
  for (const attn::gpt2::NextToken& t : tokens) {
    val item = val::object();
    item.set("id", double(t.id));
    item.set("token", tokenizer() ? val(tokenizer()->token_text(t.id)) : val::null());
    item.set("probability", double(t.probability));
    out.call<void>("push", item);
  }
  return out;
}

val numbers(const std::vector<double>& v) {
  val out = val::array();
  for (double x : v) out.call<void>("push", x);
  return out;
}

val attribution_object(const attn::gpt2::Attribution& a) {
  val heads = val::array();
  for (const auto& layer : a.heads) heads.call<void>("push", numbers(layer));
  val out = val::object();
  out.set("token", double(a.token));
  out.set("heads", heads);
  out.set("mlps", numbers(a.mlps));
  out.set("embeddings", a.embeddings);
  out.set("biases", a.biases);
  out.set("logit", a.logit);
  return out;
}

// args.ablate: undefined | [{ layer, head, mode: 'zero' | 'mean' }] (JS fills the mode).
std::vector<attn::gpt2::AblatedHead> ablated_heads(const val& ablate) {
  std::vector<attn::gpt2::AblatedHead> heads;
  if (ablate.isUndefined()) return heads;
  const std::size_t count = whole_number<std::size_t>(ablate["length"].as<double>(), "ablate.length");
  for (std::size_t i = 0; i < count; ++i) {
    const val item = ablate[i];
    attn::gpt2::AblatedHead head;
    head.layer = whole_number<std::uint64_t>(item["layer"].as<double>(), "ablate's layer");
    head.head = whole_number<std::uint64_t>(item["head"].as<double>(), "ablate's head");
    const std::string mode = item["mode"].as<std::string>();
    if (mode != "zero" && mode != "mean") throw attn::Error("ablate's mode must be 'zero' or 'mean' (got '" + mode + "')");
    head.mode = mode == "mean" ? attn::gpt2::Ablation::mean : attn::gpt2::Ablation::zero;
    heads.push_back(head);
  }
  return heads;
}

// args: { ids: Int32Array, endOfTextFirst: ids[0] is the <|endoftext|> put first (for the
//         messages), layers: [index] | undefined (every layer), ablate: [{ layer, head, mode }] |
//         undefined, lens: boolean | undefined, attribute: token id | 'top' | undefined }; the core checks
//         the values
// → { layers: [{ heads: [{ weights: Float32Array n×n | null, previousToken, firstToken, induction }] }],
//     next: [{ id, token, probability }],
//     lens (when asked): [layer][{ id, token, probability }],
//     attribution (when asked): { token, heads: [layer][head], mlps: [layer], embeddings, biases, logit } }
val gpt2_run(double handle, val args) {
  return guarded([&] {
    const Gpt2& m = find(models(), handle, "GPT-2 model");
    if (m.filler) throw attn::Error("this GPT-2 model is still being read");
    const auto ids = emscripten::convertJSArrayToNumberVector<std::int32_t>(args["ids"]);
    attn::gpt2::RunOptions options;
    options.end_of_text_first = args["endOfTextFirst"].as<bool>();
    const val layers_arg = args["layers"];
    if (!layers_arg.isUndefined()) {
      std::vector<std::uint64_t> layers;
      for (double l : emscripten::convertJSArrayToNumberVector<double>(layers_arg)) layers.push_back(whole_number<std::uint64_t>(l, "layer"));
      options.layers = std::move(layers);
    }
    options.ablate = ablated_heads(args["ablate"]);
    const val lens_arg = args["lens"];
    options.lens = !lens_arg.isUndefined() && lens_arg.as<bool>();
    const val attribute = args["attribute"];
    if (attribute.isString()) {
      options.attribute_top = attribute.as<std::string>() == "top";
      if (!options.attribute_top) throw attn::Error("attribute must be a token id or 'top'");
    } else if (!attribute.isUndefined()) {
      options.attribute = whole_number<std::uint64_t>(attribute.as<double>(), "attribute");
    }
    const attn::gpt2::RunResult r = attn::gpt2::run(m.weights, ids, options);
    const std::size_t n = r.tokens;
    val layers = val::array();
    for (const auto& layer : r.layers) {
      val heads = val::array();
      for (const attn::gpt2::HeadResult& h : layer) {
        val head = val::object();
        head.set("weights", h.weights.empty() ? val::null() : float32_array(h.weights));
        set_head_scores(head, h.scores, n);
        heads.call<void>("push", head);
      }
      val layer_out = val::object();
      layer_out.set("heads", heads);
      layers.call<void>("push", layer_out);
    }
    val out = val::object();
    out.set("layers", layers);
    out.set("next", token_list(r.next));
    if (options.lens) {
      val lens = val::array();
      for (const auto& guess : r.lens) lens.call<void>("push", token_list(guess));
      out.set("lens", lens);
    }
    if (r.attribution) out.set("attribution", attribution_object(*r.attribution));
    return out;
  });
}

// args: { ids: Int32Array (the prompt), endOfTextFirst, maxNewTokens, temperature, topK (undefined:
//         the whole vocabulary), seed, cache: boolean }; the core checks the values and reads the
//         prompt → { value: decoder handle }
val gpt2_decoder_open(double handle, val args) {
  return guarded([&] {
    const Gpt2& m = find(models(), handle, "GPT-2 model");
    if (m.filler) throw attn::Error("this GPT-2 model is still being read");
    auto ids = emscripten::convertJSArrayToNumberVector<std::int32_t>(args["ids"]);
    attn::gpt2::DecodeOptions options;
    options.end_of_text_first = args["endOfTextFirst"].as<bool>();
    options.max_new_tokens = whole_number<std::uint64_t>(args["maxNewTokens"].as<double>(), "maxNewTokens");
    options.temperature = args["temperature"].as<double>();
    const val top_k = args["topK"];
    if (!top_k.isUndefined()) options.top_k = whole_number<std::uint64_t>(top_k.as<double>(), "topK");
    options.seed = whole_number<std::uint64_t>(args["seed"].as<double>(), "seed");
    options.cache = args["cache"].as<bool>();
    auto decoder = std::make_unique<Gpt2Decoder>(Gpt2Decoder{handle, attn::gpt2::Decoder(m.weights, std::move(ids), options)});
    val out = val::object();
    out.set("value", keep(decoders(), std::move(decoder)));
    return out;
  });
}

// → { value: { id, token, probability, cacheBytes, done } }, or { value: null } when generation has ended
val gpt2_decoder_step(double handle) {
  return guarded([&] {
    Gpt2Decoder& d = find(decoders(), handle, "GPT-2 decoder");
    const std::optional<attn::gpt2::DecodedToken> t = d.decoder.step();
    val out = val::object();
    if (!t) {
      out.set("value", val::null());
      return out;
    }
    val token = val::object();
    token.set("id", double(t->id));
    token.set("token", tokenizer() ? val(tokenizer()->token_text(t->id)) : val::null());
    token.set("probability", double(t->probability));
    token.set("cacheBytes", double(t->cache_bytes));
    token.set("done", t->done);
    out.set("value", token);
    return out;
  });
}

void gpt2_decoder_free(double handle) {
  const std::size_t i = whole_number<std::size_t>(handle, "handle");
  if (i < decoders().size()) decoders()[i].reset();
}

// The bytes a run of n tokens keeping `kept` layers' weights needs (run_bytes).
val gpt2_run_bytes(double handle, double n, double kept) {
  return guarded([&] {
    const Gpt2& m = find(models(), handle, "GPT-2 model");
    val out = val::object();
    out.set("value", double(attn::gpt2::run_bytes(m.weights.config, whole_number<std::size_t>(n, "n"),
                                                  whole_number<std::size_t>(kept, "kept"))));
    return out;
  });
}

// The core's limits that web/api/gpt2.js and the GPT-2 panel's worker work within:
// → { stagingBytes: the chunk gpt2Write takes at most, maxKeptWeights: the attention weights one
//     run may return }
val gpt2_limits() {
  val out = val::object();
  out.set("stagingBytes", double(attn::gpt2::WeightFiller::kStagingBytes));
  out.set("maxKeptWeights", double(attn::gpt2::kMaxKeptWeights));
  return out;
}

// Bytes the allocator has handed out and not taken back, and the heap's size: the memory tests.
double gpt2_heap_in_use() { return double(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_calc_gpt2) {
  emscripten::function("gpt2Plan", &gpt2_plan);
  emscripten::function("gpt2Staging", &gpt2_staging);
  emscripten::function("gpt2Write", &gpt2_write);
  emscripten::function("gpt2Finish", &gpt2_finish);
  emscripten::function("gpt2Free", &gpt2_free);
  emscripten::function("gpt2LoadTokenizer", &gpt2_load_tokenizer);
  emscripten::function("gpt2Tokenize", &gpt2_tokenize);
  emscripten::function("gpt2Run", &gpt2_run);
  emscripten::function("gpt2RunBytes", &gpt2_run_bytes);
  emscripten::function("gpt2DecoderOpen", &gpt2_decoder_open);
  emscripten::function("gpt2DecoderStep", &gpt2_decoder_step);
  emscripten::function("gpt2DecoderFree", &gpt2_decoder_free);
  emscripten::function("gpt2HeapInUse", &gpt2_heap_in_use);
  emscripten::function("gpt2Limits", &gpt2_limits);
}
