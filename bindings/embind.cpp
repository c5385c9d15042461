// Embind layer: plain functions over the core, for web/attention.js only.
// Arguments arrive as one JS object of Float32Arrays and sizes; results go back as fresh
// Float32Array copies, never as views into the wasm heap (heap growth would detach them).
// Errors come back as { error: message }: the C++ exception is caught and freed here, and
// attention.js throws the JS Error, so no C++ frame or exception object is left behind.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "attention.hpp"
#include "checks.hpp"
#include "construct.hpp"
#include "cost.hpp"
#include "error.hpp"
#include "fit.hpp"
#include "kernels/peak.hpp"
#include "kernels/simd.hpp"
#include "learned/checkpoint.hpp"
#include "learned/model.hpp"
#include "learned/scores.hpp"
#include "learned/trainer.hpp"
#include "learned/vocabulary.hpp"
#include "limits.hpp"
#include "multihead.hpp"
#include "random.hpp"
#include "scaling.hpp"
#include "statistics.hpp"
#include "streaming.hpp"
#include "timing.hpp"

using emscripten::val;

namespace {

// The largest whole number a double (a JS number) holds exactly, with every smaller one: 2⁵³ − 1.
constexpr double kMaxExactInteger = 9007199254740991.0;

// Integers arrive as doubles. attention.js checks each against its documented range first; this
// is the last line before the narrowing, so a value that slipped past cannot wrap (2³² + 1 heads
// as 1 head on wasm32) but is refused.
template <class T>
T whole_number(double value, const char* name) {
  const double max = std::min(double(std::numeric_limits<T>::max()), kMaxExactInteger);
  if (!(value >= 0 && value <= max && std::floor(value) == value)) {
    throw attn::Error(std::string(name) + " must be a whole number from 0 to " + std::to_string(std::uint64_t(max)));
  }
  return T(value);
}

std::size_t size_arg(const val& args, const char* key) {
  return whole_number<std::size_t>(args[key].as<double>(), key);
}

// A seed: attention.js passes a whole number from 0 to 2⁵³ − 1, exact in a double.
std::uint64_t seed_arg(const val& args) { return whole_number<std::uint64_t>(args["seed"].as<double>(), "seed"); }

// A count for JS: refused unless a double holds it exactly (a wrong last digit is worse than an error).
double exact_count(std::uint64_t value, const std::string& what) {
  if (double(value) > kMaxExactInteger) {
    throw attn::Error(what + " is " + std::to_string(value) +
                      ", over 2^53 − 1 = 9007199254740991, the largest whole number a JS number holds exactly; use smaller sizes");
  }
  return double(value);
}

attn::Matrix matrix_arg(const val& args, const char* data, const char* rows, const char* cols) {
  return attn::Matrix(size_arg(args, rows), size_arg(args, cols),
                      emscripten::convertJSArrayToNumberVector<float>(args[data]));
}

std::vector<float> floats_arg(const val& args, const char* key) {
  const val v = args[key];
  if (v.isUndefined() || v.isNull()) return {};
  return emscripten::convertJSArrayToNumberVector<float>(v);
}

attn::Mask mask_arg(const val& args) {
  const std::string kind = args["maskKind"].as<std::string>();
  if (kind == "causal") return attn::Mask::causal();
  if (kind == "none") return attn::Mask::none();
  auto hidden = emscripten::convertJSArrayToNumberVector<std::uint8_t>(args["maskHidden"]);
  if (kind == "key_padding") return attn::Mask::key_padding(std::move(hidden));
  if (kind == "custom") return attn::Mask::custom(std::move(hidden));
  throw attn::Error("unknown mask kind " + kind);
}

val float32_array(const std::vector<float>& v) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

val uint8_array(const std::vector<std::uint8_t>& v) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

val float64_array(const std::vector<double>& v) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

val strings(const std::vector<std::string>& items) {
  val out = val::array();
  for (const std::string& item : items) out.call<void>("push", item);
  return out;
}

val index_array(const std::vector<std::size_t>& indices) {
  val out = val::array();
  for (std::size_t i : indices) out.call<void>("push", double(i));
  return out;
}

// Runs `compute`, turning any C++ exception into { error: message }.
// The try/catch lives in this one function; guarded() below only adapts each lambda to it, so
// the exception handling is compiled once, not once per binding.
val guard_call(val (*call)(void*), void* context) {
  std::string message;
  try {
    return call(context);
  } catch (const std::bad_alloc&) {
    message = "out of memory: the inputs are too large for this page";
  } catch (const std::exception& e) {
    message = e.what();
  }
  val out = val::object();
  out.set("error", message);
  return out;
}

template <class F>
val guarded(F&& compute) {
  using Lambda = std::remove_reference_t<F>;
  return guard_call([](void* c) { return (*static_cast<Lambda*>(c))(); }, &compute);
}

val attention_result(const attn::AttentionResult& r) {
  val out = val::object();
  out.set("scale", r.scale);
  out.set("scores", float32_array(r.scores.data));
  out.set("scaled", float32_array(r.scaled.data));
  out.set("masked", float32_array(r.masked.data));
  out.set("rowMax", float32_array(r.row_max));
  out.set("exp", float32_array(r.exp.data));
  out.set("rowSum", float32_array(r.row_sum));
  out.set("weights", float32_array(r.weights.data));
  out.set("output", float32_array(r.output.data));
  out.set("hidden", uint8_array(r.hidden));
  out.set("fullyMasked", uint8_array(r.fully_masked));
  return out;
}

// args: { q, qRows, qCols, k, kRows, kCols, v, vRows, vCols, maskKind, maskHidden,
//         scale (number; NaN for the default 1/√d_k), maskAfterSoftmax }
val attention(val args) {
  return guarded([&] {
    const attn::Matrix q = matrix_arg(args, "q", "qRows", "qCols");
    const attn::Matrix k = matrix_arg(args, "k", "kRows", "kCols");
    const attn::Matrix v = matrix_arg(args, "v", "vRows", "vCols");
    attn::AttentionOptions options;
    options.mask = mask_arg(args);
    const double scale = args["scale"].as<double>();
    if (scale == scale) options.pitfalls.scale = float(scale);
    options.pitfalls.mask_after_softmax = args["maskAfterSoftmax"].as<bool>();
    const attn::AttentionResult r = attn::attention(q, k, v, options);
    const attn::AttentionChecks c = attn::check_attention(r, v);
    val out = attention_result(r);
    val checks = val::object();
    checks.set("rowSums", float64_array(c.row_sums));
    checks.set("rowSumsToOne", uint8_array(c.row_sums_to_one));
    checks.set("outputInHull", uint8_array(c.output_in_hull));
    checks.set("hull", index_array(c.hull));
    checks.set("hullExact", c.hull_exact);
    checks.set("float64MaxAbsDiff", attn::float64_max_abs_diff(r, q, k, v, options));
    out.set("checks", checks);
    return out;
  });
}

// args: { x, n, d, wq, wk, wv, wo, bq, bk, bv, bo (optional), heads, maskKind, maskHidden }
val multi_head(val args) {
  return guarded([&] {
    const attn::Matrix x = matrix_arg(args, "x", "n", "d");
    attn::MultiHeadParams p;
    p.wq = matrix_arg(args, "wq", "wqRows", "wqCols");
    p.wk = matrix_arg(args, "wk", "wkRows", "wkCols");
    p.wv = matrix_arg(args, "wv", "wvRows", "wvCols");
    p.wo = matrix_arg(args, "wo", "woRows", "woCols");
    p.bq = floats_arg(args, "bq");
    p.bk = floats_arg(args, "bk");
    p.bv = floats_arg(args, "bv");
    p.bo = floats_arg(args, "bo");
    p.heads = size_arg(args, "heads");
    const attn::MultiHeadResult r = attn::multi_head_attention(x, p, mask_arg(args));
    val out = val::object();
    out.set("q", float32_array(r.q.data));
    out.set("k", float32_array(r.k.data));
    out.set("v", float32_array(r.v.data));
    out.set("concat", float32_array(r.concat.data));
    out.set("output", float32_array(r.output.data));
    val heads = val::array();
    for (const attn::AttentionResult& head : r.heads) heads.call<void>("push", attention_result(head));
    out.set("heads", heads);
    return out;
  });
}

val parameter_count(double d_model, double heads, bool bias) {
  return guarded([&] {
    val out = val::object();
    const std::uint64_t d = whole_number<std::uint64_t>(d_model, "d_model");
    const std::uint64_t count = attn::parameter_count(d, whole_number<std::uint64_t>(heads, "heads"), bias);
    out.set("value", exact_count(count, "the parameter count for d_model " + std::to_string(d)));
    return out;
  });
}

val cost(double n, double m, double d_model, double heads) {
  return guarded([&] {
    const std::uint64_t d = whole_number<std::uint64_t>(d_model, "d_model");
    const attn::Cost c = attn::cost(whole_number<std::uint64_t>(n, "n"), whole_number<std::uint64_t>(m, "m"), d,
                                    whole_number<std::uint64_t>(heads, "heads"));
    val out = val::object();
    out.set("projectionFlops", exact_count(c.projection_flops, "the projections' FLOP count"));
    out.set("scoreFlops", exact_count(c.score_flops, "the scores' FLOP count"));
    out.set("valueFlops", exact_count(c.value_flops, "the A·V FLOP count"));
    out.set("outputFlops", exact_count(c.output_flops, "the output projection's FLOP count"));
    out.set("attentionBytes", exact_count(c.attention_bytes, "the attention matrices' byte count"));
    out.set("crossoverN", exact_count(attn::crossover_n(d), "the crossover length 2·d_model"));
    out.set("dominant", std::string(attn::to_string(c.dominant)));
    return out;
  });
}

// args: { rows, cols, seed, std } → { data: Float32Array (rows×cols) }
val normal_matrix(val args) {
  return guarded([&] {
    const attn::Matrix m = attn::normal_matrix(size_arg(args, "rows"), size_arg(args, "cols"),
                                               seed_arg(args),
                                               args["std"].as<double>());
    val out = val::object();
    out.set("data", float32_array(m.data));
    return out;
  });
}

// args: { weights: Float64Array } → { value }
val entropy(val args) {
  return guarded([&] {
    const auto p = emscripten::convertJSArrayToNumberVector<double>(args["weights"]);
    val out = val::object();
    out.set("value", attn::entropy(p.data(), p.size()));
    return out;
  });
}

val histogram_result(const attn::Histogram& h) {
  val out = val::object();
  out.set("lo", h.lo);
  out.set("hi", h.hi);
  const std::vector<double> counts(h.counts.begin(), h.counts.end());
  out.set("counts", float64_array(counts));
  out.set("below", double(h.below));
  out.set("above", double(h.above));
  return out;
}

val sample_result(const attn::SampleSummary& s) {
  val out = val::object();
  out.set("mean", s.mean);
  out.set("std", s.std);
  out.set("histogram", histogram_result(s.histogram));
  return out;
}

val softmax_row_result(const attn::SoftmaxRow& r) {
  val out = val::object();
  out.set("weights", float64_array(r.weights));
  out.set("entropy", r.entropy);
  return out;
}

// args: { dk, pairs, seed, bins, row }
val scaling_experiment(val args) {
  return guarded([&] {
    attn::ScalingOptions o;
    o.dk = size_arg(args, "dk");
    o.pairs = size_arg(args, "pairs");
    o.seed = seed_arg(args);
    o.bins = size_arg(args, "bins");
    o.row = size_arg(args, "row");
    const attn::ScalingResult r = attn::scaling_experiment(o);
    val softmax = val::object();
    softmax.set("scores", float64_array(r.scores));
    softmax.set("unscaled", softmax_row_result(r.softmax_unscaled));
    softmax.set("scaled", softmax_row_result(r.softmax_scaled));
    softmax.set("maxEntropy", r.max_entropy);
    val out = val::object();
    out.set("expectedStd", r.expected_std);
    out.set("unscaled", sample_result(r.unscaled));
    out.set("scaled", sample_result(r.scaled));
    out.set("softmax", softmax);
    return out;
  });
}

// args: { kind, sentence (undefined: the lesson's default sentence) }
val constructed_head(val args) {
  return guarded([&] {
    const val sentence = args["sentence"];
    const attn::ConstructedHead h = attn::constructed_head(
        attn::head_kind_from_string(args["kind"].as<std::string>()),
        sentence.isUndefined() ? std::string(attn::kDefaultSentence) : sentence.as<std::string>());
    val expected = val::array();
    for (const auto& keys : h.expected) expected.call<void>("push", index_array(keys));
    val out = val::object();
    out.set("tokens", strings(h.tokens));
    out.set("features", strings(h.features));
    out.set("n", double(h.x.rows));
    out.set("d", double(h.x.cols));
    out.set("x", float32_array(h.x.data));
    out.set("wq", float32_array(h.wq.data));
    out.set("wk", float32_array(h.wk.data));
    out.set("strength", h.strength);
    out.set("expected", expected);
    return out;
  });
}

// args: { n, d, repeats, seed }
val time_attention(val args) {
  return guarded([&] {
    attn::TimingOptions o;
    o.n = size_arg(args, "n");
    o.d = size_arg(args, "d");
    o.repeats = size_arg(args, "repeats");
    o.seed = seed_arg(args);
    const attn::TimingResult r = attn::time_attention(o);
    val out = val::object();
    out.set("seconds", r.seconds);
    out.set("iterations", double(r.iterations));
    out.set("attentionBytes", r.attention_bytes);
    return out;
  });
}

// args: { points (m×2, row-major), m }
val convex_hull(val args) {
  return guarded([&] {
    const attn::Matrix points = matrix_arg(args, "points", "m", "cols");
    if (points.cols != 2) throw attn::Error("convexHull needs points with 2 coordinates");
    val out = val::object();
    out.set("hull", index_array(attn::convex_hull_2d(points)));
    return out;
  });
}

// The flat, output-only call. Its buffers live as long as the module and only grow, so a call of
// a size seen before allocates nothing: JS writes Q, K, V straight into them (prepareOutput
// gives their heap addresses), runOutput computes, and JS copies the output out.
struct OutputBuffers {
  std::vector<float> q, k, v, out;
  attn::StreamingWorkspace workspace;
};
OutputBuffers& output_buffers() {
  static OutputBuffers buffers;
  return buffers;
}

attn::OutputShape output_shape(double n, double m, double d, double dv) {
  return {whole_number<std::size_t>(n, "n"), whole_number<std::size_t>(m, "m"), whole_number<std::size_t>(d, "d"),
          whole_number<std::size_t>(dv, "dv")};
}

val prepare_output(double n, double m, double d, double dv) {
  return guarded([&] {
    const attn::OutputShape s = output_shape(n, m, d, dv);
    attn::validate_output_shape(s);  // before the buffers grow
    OutputBuffers& b = output_buffers();
    b.q.resize(s.n * s.d);
    b.k.resize(s.m * s.d);
    b.v.resize(s.m * s.dv);
    b.out.resize(s.n * s.dv);
    val out = val::object();
    out.set("q", double(reinterpret_cast<std::uintptr_t>(b.q.data())));
    out.set("k", double(reinterpret_cast<std::uintptr_t>(b.k.data())));
    out.set("v", double(reinterpret_cast<std::uintptr_t>(b.v.data())));
    out.set("out", double(reinterpret_cast<std::uintptr_t>(b.out.data())));
    return out;
  });
}

// Returns true, or false with the message left for outputError(): the hot path builds no JS
// object on success.
std::string& output_error() {
  static std::string message;
  return message;
}

bool run_output(double n, double m, double d, double dv, bool causal) {
  try {
    OutputBuffers& b = output_buffers();
    attn::attention_output(b.q.data(), b.k.data(), b.v.data(), output_shape(n, m, d, dv), causal, b.out.data(),
                           b.workspace);
    return true;
  } catch (const std::bad_alloc&) {
    output_error() = "out of memory: the inputs are too large for this page";  // as guard_call says
    return false;
  } catch (const std::exception& e) {
    output_error() = e.what();
    return false;
  }
}

std::string last_output_error() { return output_error(); }

val fit_power_law(const val& args) {
  return guarded([&] {
    const attn::PowerLaw fit = attn::fit_power_law(emscripten::convertJSArrayToNumberVector<double>(args["x"]),
                                                   emscripten::convertJSArrayToNumberVector<double>(args["y"]));
    val out = val::object();
    out.set("exponent", fit.exponent);
    out.set("coefficient", fit.coefficient);
    return out;
  });
}

// Bytes the allocator has handed out and not taken back: the heap-flatness tests read it.
double heap_bytes_in_use() { return double(mallinfo().uordblks); }

std::string arch() { return attn::kernels::arch_name(); }

// For the benchmark: the peak mul+add throughput of this build, measured in place.
val peak_mul_add(double iterations) {
  return guarded([&] {
    val out = val::object();
    out.set("value", attn::kernels::peak_mul_add(whole_number<std::size_t>(iterations, "iterations")));
    return out;
  });
}
double lanes() { return double(attn::kernels::kLanes); }
double peak_chains() { return double(attn::kernels::kPeakChains); }

// The core's documented limits, so attention.js checks its input against the same numbers
// instead of repeating them.
val limits() {
  val out = val::object();
  out.set("maxRows", double(attn::limits::kMaxRows));
  out.set("maxCols", double(attn::limits::kMaxCols));
  out.set("maxHeads", double(attn::limits::kMaxHeads));
  out.set("maxScoreEntries", double(attn::limits::kMaxScoreEntries));
  out.set("maxStreamingFloats", double(attn::limits::kMaxStreamingFloats));
  out.set("maxNormalSide", double(attn::kMaxNormalSide));
  out.set("maxScalingDk", double(attn::kMaxScalingDk));
  out.set("maxScalingPairs", double(attn::kMaxScalingPairs));
  out.set("maxScalingBins", double(attn::kMaxScalingBins));
  out.set("maxScalingRow", double(attn::kMaxScalingRow));
  out.set("maxTimingN", double(attn::kMaxTimingN));
  out.set("maxTimingRepeats", double(attn::kMaxTimingRepeats));
  out.set("maxConstructTokens", double(attn::kMaxConstructTokens));
  out.set("maxPeakIterations", std::min(double(std::numeric_limits<std::size_t>::max()), kMaxExactInteger));
  return out;
}

// --- learned heads (issue 13): a trained model and a trainer, held in C++ between calls ------

val learned_config(const attn::learned::ModelConfig& c, std::uint64_t seed, std::uint64_t steps) {
  val out = val::object();
  out.set("layers", double(c.layers));
  out.set("heads", double(c.heads));
  out.set("dModel", double(c.d_model));
  out.set("context", double(c.context));
  out.set("vocabulary", std::string(attn::learned::kSymbols));
  out.set("scale", std::string(c.scale == attn::learned::ScaleMode::none ? "none" : "sqrt"));
  out.set("seed", exact_count(seed, "seed"));
  out.set("steps", exact_count(steps, "steps"));
  return out;
}

// One forward pass over BOS + text: tokens, the loss of each predicted position, and every
// head's weights (n×n, row-major) with its scores.
val learned_run(const attn::learned::ModelConfig& c, const std::vector<float>& params, const std::string& text) {
  using namespace attn::learned;
  const std::vector<int> tokens = encode(text, c.context);
  const std::size_t n = tokens.size();
  Activations a;
  forward(c, params.data(), tokens.data(), 1, n, a);
  const std::vector<int> targets = next_token_targets(tokens.data(), 1, n);
  std::vector<float> per(n), probs;
  loss(a, targets.data(), per.data(), probs);
  per.pop_back();  // the last position predicts nothing
  std::vector<std::string> names;
  for (int t : tokens) names.push_back(token_name(t));
  val layers = val::array();
  for (std::size_t l = 0; l < c.layers; ++l) {
    val heads = val::array();
    for (std::size_t h = 0; h < c.heads; ++h) {
      const float* w = a.weights.data() + (l * c.heads + h) * n * n;
      const HeadScores s = head_scores(w, n, tokens.data());
      val head = val::object();
      head.set("weights", float32_array(std::vector<float>(w, w + n * n)));
      // Means over no positions are undefined: null, never NaN.
      head.set("previousToken", n > 1 ? val(s.previous_token) : val::null());
      head.set("firstToken", n > 1 ? val(s.first_token) : val::null());
      head.set("induction", s.induction_positions ? val(s.induction) : val::null());
      heads.call<void>("push", head);
    }
    val layer = val::object();
    layer.set("heads", heads);
    layers.call<void>("push", layer);
  }
  val out = val::object();
  out.set("tokens", strings(names));
  out.set("n", double(n));
  out.set("loss", float32_array(per));
  out.set("layers", layers);
  return out;
}

// Models and trainers live here between calls, named by a handle (a plain number): Embind's
// class machinery would add ~4 KB gzip of glue to every page, learned heads or not.
struct LearnedModel {
  attn::learned::ModelConfig config;
  std::vector<float> params;
  std::uint64_t seed = 0, steps = 0;
};

std::vector<std::unique_ptr<LearnedModel>>& learned_models() {
  static std::vector<std::unique_ptr<LearnedModel>> models;
  return models;
}

std::vector<std::unique_ptr<attn::learned::Trainer>>& learned_trainers() {
  static std::vector<std::unique_ptr<attn::learned::Trainer>> trainers;
  return trainers;
}

// Stores `item` in the first free slot; the handle is its index.
template <class T>
double keep(std::vector<std::unique_ptr<T>>& slots, std::unique_ptr<T> item) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) {
      slots[i] = std::move(item);
      return double(i);
    }
  }
  slots.push_back(std::move(item));
  return double(slots.size() - 1);
}

template <class T>
T& find(std::vector<std::unique_ptr<T>>& slots, double handle, const char* what) {
  const std::size_t i = whole_number<std::size_t>(handle, "handle");
  if (i >= slots.size() || !slots[i]) throw attn::Error(std::string("this ") + what + " was disposed");
  return *slots[i];
}

val handle_result(double handle) {
  val out = val::object();
  out.set("handle", handle);
  return out;
}

// bytes: the checkpoint file's bytes (Uint8Array). → { handle } or { error }.
val learned_load(val bytes) {
  return guarded([&] {
    const auto data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
    attn::learned::Checkpoint c = attn::learned::deserialize(data.data(), data.size());
    auto m = std::make_unique<LearnedModel>(LearnedModel{c.config, std::move(c.parameters), c.seed, c.steps});
    return handle_result(keep(learned_models(), std::move(m)));
  });
}

val learned_model_config(double handle) {
  return guarded([&] {
    const LearnedModel& m = find(learned_models(), handle, "model");
    return learned_config(m.config, m.seed, m.steps);
  });
}

val learned_model_run(double handle, std::string text) {
  return guarded([&] {
    const LearnedModel& m = find(learned_models(), handle, "model");
    return learned_run(m.config, m.params, text);
  });
}

void learned_model_free(double handle) {
  const std::size_t i = std::size_t(handle);
  if (handle >= 0 && i < learned_models().size()) learned_models()[i].reset();
}

// createTrainer's defaults: the shipped checkpoint's recipe.
val learned_recipe() {
  const attn::learned::TrainerOptions o = attn::learned::recipe();
  val out = val::object();
  out.set("seed", exact_count(o.seed, "seed"));
  out.set("layers", double(o.model.layers));
  out.set("heads", double(o.model.heads));
  out.set("dModel", double(o.model.d_model));
  out.set("context", double(o.model.context));
  out.set("batch", double(o.batch));
  out.set("learningRate", double(o.learning_rate));
  out.set("scale", std::string(o.model.scale == attn::learned::ScaleMode::none ? "none" : "sqrt"));
  return out;
}

// args: { seed, layers, heads, dModel, context, batch, learningRate, scale: 'sqrt' | 'none' },
// every field present (attention.js fills in the defaults). → { handle } or { error }.
val learned_trainer_create(val args) {
  return guarded([&] {
    attn::learned::TrainerOptions o = attn::learned::recipe();
    o.seed = seed_arg(args);
    o.model.layers = size_arg(args, "layers");
    o.model.heads = size_arg(args, "heads");
    o.model.d_model = size_arg(args, "dModel");
    o.model.context = size_arg(args, "context");
    o.batch = size_arg(args, "batch");
    o.learning_rate = float(args["learningRate"].as<double>());
    o.model.scale = args["scale"].as<std::string>() == "none" ? attn::learned::ScaleMode::none
                                                               : attn::learned::ScaleMode::sqrt_d_k;
    return handle_result(keep(learned_trainers(), std::make_unique<attn::learned::Trainer>(o)));
  });
}

val learned_trainer_step(double handle, double k) {
  return guarded([&] {
    const std::size_t count = whole_number<std::size_t>(k, "k");
    const attn::learned::StepReport r = find(learned_trainers(), handle, "trainer").step(count);
    val out = val::object();
    out.set("step", double(r.step));
    out.set("loss", r.loss);
    out.set("lossFirstCopy", r.loss_first_copy);
    out.set("lossSecondCopy", r.loss_second_copy);
    return out;
  });
}

// A model with the trainer's current weights (a copy). → { handle } or { error }.
val learned_trainer_model(double handle) {
  return guarded([&] {
    const attn::learned::Trainer& t = find(learned_trainers(), handle, "trainer");
    auto m = std::make_unique<LearnedModel>(
        LearnedModel{t.options().model, t.parameters(), t.options().seed, t.steps()});
    return handle_result(keep(learned_models(), std::move(m)));
  });
}

void learned_trainer_free(double handle) {
  const std::size_t i = std::size_t(handle);
  if (handle >= 0 && i < learned_trainers().size()) learned_trainers()[i].reset();
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_calc) {
  emscripten::function("learnedLoad", &learned_load);
  emscripten::function("learnedModelConfig", &learned_model_config);
  emscripten::function("learnedModelRun", &learned_model_run);
  emscripten::function("learnedModelFree", &learned_model_free);
  emscripten::function("learnedRecipe", &learned_recipe);
  emscripten::function("learnedTrainerCreate", &learned_trainer_create);
  emscripten::function("learnedTrainerStep", &learned_trainer_step);
  emscripten::function("learnedTrainerModel", &learned_trainer_model);
  emscripten::function("learnedTrainerFree", &learned_trainer_free);
  emscripten::function("attention", &attention);
  emscripten::function("multiHead", &multi_head);
  emscripten::function("parameterCount", &parameter_count);
  emscripten::function("cost", &cost);
  emscripten::function("convexHull", &convex_hull);
  emscripten::function("fitPowerLaw", &fit_power_law);
  emscripten::function("normalMatrix", &normal_matrix);
  emscripten::function("entropy", &entropy);
  emscripten::function("scalingExperiment", &scaling_experiment);
  emscripten::function("constructedHead", &constructed_head);
  emscripten::function("timeAttention", &time_attention);
  emscripten::function("prepareOutput", &prepare_output);
  emscripten::function("runOutput", &run_output);
  emscripten::function("outputError", &last_output_error);
  emscripten::function("heapBytesInUse", &heap_bytes_in_use);
  emscripten::function("arch", &arch);
  emscripten::function("peakMulAdd", &peak_mul_add);
  emscripten::function("lanes", &lanes);
  emscripten::function("peakChains", &peak_chains);
  emscripten::function("limits", &limits);
}
