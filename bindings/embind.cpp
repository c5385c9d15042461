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
#include "limits.hpp"
#include "mask.hpp"
#include "multihead.hpp"
#include "random.hpp"
#include "scaling.hpp"
#include "statistics.hpp"
#include "kernels/streaming_attention.hpp"
#include "timing.hpp"
#include "validate.hpp"

#include "convert.hpp"

using emscripten::val;
using namespace attn::bindings;

namespace {

attn::Matrix matrix_arg(const val& args, const char* data, const char* rows, const char* cols) {
  return attn::Matrix(size_arg(args, rows), size_arg(args, cols),
                      emscripten::convertJSArrayToNumberVector<float>(args[data]));
}

std::vector<float> floats_arg(const val& args, const char* key) {
  const val v = args[key];
  if (v.isUndefined() || v.isNull()) return {};
  return emscripten::convertJSArrayToNumberVector<float>(v);
}

// The union mask: { maskCausal: bool, maskKeys: m flags or empty, maskHidden: n×m flags or empty }.
attn::Mask mask_arg(const val& args) {
  attn::Mask mask;
  mask.is_causal = args["maskCausal"].as<bool>();
  mask.padded_keys = emscripten::convertJSArrayToNumberVector<std::uint8_t>(args["maskKeys"]);
  mask.hidden_pairs = emscripten::convertJSArrayToNumberVector<std::uint8_t>(args["maskHidden"]);
  return mask;
}

// 'sqrt', 'dk' or 'none' (attention.hpp's Scaling, by its to_string name).
attn::Scaling scaling_arg(const val& args) {
  const std::string name = args["scaling"].as<std::string>();
  for (attn::Scaling s : {attn::Scaling::sqrt_dk, attn::Scaling::dk, attn::Scaling::none}) {
    if (name == attn::to_string(s)) return s;
  }
  throw attn::Error("scale must be 'sqrt', 'dk', 'none' or a number, got '" + name + "'");
}

// args: { n, m, maskCausal, maskKeys, maskHidden } → { hidden: n×m MaskReason bits }: the mask
// alone, so a page can show why each cell is hidden even while Q, K or V cannot be computed.
val mask_reasons(val args) {
  return guarded([&] {
    const std::size_t n = size_arg(args, "n"), m = size_arg(args, "m");
    attn::validate_score_shape(n, m);
    const attn::Mask mask = mask_arg(args);
    attn::validate_mask(mask, n, m);
    val out = val::object();
    out.set("hidden", uint8_array(attn::expand_mask(mask, n, m)));
    return out;
  });
}

// Every field under its JS name (attention.d.ts); hidden holds the MaskReason bits per cell.
val attention_result(const attn::AttentionResult& r) {
  val out = val::object();
  out.set("scale", r.scale);
  out.set("scores", float32_array(r.scores.data));
  out.set("scaledBeforeMask", float32_array(r.scaled_before_mask.data));
  out.set("scaled", float32_array(r.scaled.data));
  out.set("rowMax", float32_array(r.row_max));
  out.set("exp", float32_array(r.exp.data));
  out.set("rowSum", float32_array(r.row_sum));
  out.set("weights", float32_array(r.weights.data));
  out.set("output", float32_array(r.output.data));
  out.set("hidden", uint8_array(r.hidden));
  out.set("fullyMasked", uint8_array(r.fully_masked));
  return out;
}

// args: { q, qRows, qCols, k, kRows, kCols, v, vRows, vCols, maskCausal, maskKeys, maskHidden,
//         scaling ('sqrt' | 'dk' | 'none'), scale (a fixed factor; NaN for none), maskAfterSoftmax }
val attention(val args) {
  return guarded([&] {
    const attn::Matrix q = matrix_arg(args, "q", "qRows", "qCols");
    const attn::Matrix k = matrix_arg(args, "k", "kRows", "kCols");
    const attn::Matrix v = matrix_arg(args, "v", "vRows", "vCols");
    attn::AttentionOptions options;
    options.mask = mask_arg(args);
    options.pitfalls.scaling = scaling_arg(args);
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

// args: { x, n, d, wq, wk, wv, wo, bq, bk, bv, bo (optional), heads, maskCausal, maskKeys, maskHidden }
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
    out.set("value", double(count));  // exact: cost.hpp refuses counts over limits::kMaxExactCount
    return out;
  });
}

val cost(double n, double m, double d_model, double heads) {
  return guarded([&] {
    const std::uint64_t d = whole_number<std::uint64_t>(d_model, "d_model");
    const attn::Cost c = attn::cost(whole_number<std::uint64_t>(n, "n"), whole_number<std::uint64_t>(m, "m"), d,
                                    whole_number<std::uint64_t>(heads, "heads"));
    val out = val::object();
    // Each count is exact as a double: cost.hpp refuses any over limits::kMaxExactCount.
    out.set("projectionFlops", double(c.projection_flops));
    out.set("scoreFlops", double(c.score_flops));
    out.set("valueFlops", double(c.value_flops));
    out.set("outputFlops", double(c.output_flops));
    out.set("attentionBytes", double(c.attention_bytes));
    out.set("crossoverN", double(attn::crossover_n(d)));
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

val row_measure(const attn::RowMeasure& m, bool share) {
  val out = val::object();
  out.set("q1", m.quartiles.q1);
  out.set("median", m.quartiles.median);
  out.set("q3", m.quartiles.q3);
  out.set("mean", m.mean);
  if (share) out.set("shareBelow", m.share_below);
  return out;
}

// args: { dk, rows, row, seed, threshold }
val scaling_row_study(val args) {
  return guarded([&] {
    attn::RowStudyOptions o;
    o.dk = size_arg(args, "dk");
    o.rows = size_arg(args, "rows");
    o.row = size_arg(args, "row");
    o.seed = seed_arg(args);
    o.threshold = args["threshold"].as<double>();
    const attn::RowStudy r = attn::scaling_row_study(o);
    val gradient = val::object(), entropy = val::object();
    gradient.set("unscaled", row_measure(r.gradient_unscaled, true));
    gradient.set("scaled", row_measure(r.gradient_scaled, true));
    gradient.set("uniform", r.uniform_gradient);
    entropy.set("unscaled", row_measure(r.entropy_unscaled, false));
    entropy.set("scaled", row_measure(r.entropy_scaled, false));
    entropy.set("max", r.max_entropy);
    val out = val::object();
    out.set("gradient", gradient);
    out.set("entropy", entropy);
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

// A matrix's size checked by the core before attention.js copies anything: {} or { error }.
// The limits and their messages live in the core alone (validate.hpp). Both take one object, as
// most bindings do, so they share Embind's one invoker for val(val).
// args: { name, rows, cols }
val check_shape(val args) {
  return guarded([&] {
    const std::string name = args["name"].as<std::string>();
    attn::validate_shape(name.c_str(), whole_number<std::uint64_t>(args["rows"].as<double>(), "rows"),
                         whole_number<std::uint64_t>(args["cols"].as<double>(), "cols"));
    return val::object();
  });
}

// args: { n, m }
val check_score_shape(val args) {
  return guarded([&] {
    attn::validate_score_shape(whole_number<std::uint64_t>(args["n"].as<double>(), "n"),
                               whole_number<std::uint64_t>(args["m"].as<double>(), "m"));
    return val::object();
  });
}

// The core's one message for a count over limits::kMaxExactCount (cost.hpp), for what attention.js
// refuses before calling the core: "<what> is over 2^53 − 1 = …".
std::string count_too_large(std::string what) { return attn::count_too_large(what); }

// The MaskReason bit of each rule by its name ({ causal: 1, padding: 2, custom: 4 }), so
// attention.js names the reasons in the core's hidden grids without a copy of the bits.
val mask_reason_bits() {
  val out = val::object();
  for (const attn::MaskReasonName& reason : attn::kMaskReasonNames) out.set(reason.name, double(reason.bit));
  return out;
}

// The core's documented limits, so attention.js checks its input against the same numbers
// instead of repeating them.
val limits() {
  val out = val::object();
  out.set("maxRows", double(attn::limits::kMaxRows));
  out.set("maxCols", double(attn::limits::kMaxCols));
  out.set("maxHeads", double(attn::limits::kMaxHeads));
  out.set("maxScoreEntries", double(attn::limits::kMaxScoreEntries));
  out.set("maxStreamingFloats", double(attn::limits::kMaxStreamingFloats));
  out.set("maxExactCount", double(attn::limits::kMaxExactCount));
  out.set("maxNormalSide", double(attn::limits::kMaxNormalSide));
  out.set("maxScalingDk", double(attn::limits::kMaxScalingDk));
  out.set("maxScalingPairs", double(attn::limits::kMaxScalingPairs));
  out.set("maxScalingBins", double(attn::limits::kMaxScalingBins));
  out.set("maxScalingRow", double(attn::limits::kMaxScalingRow));
  out.set("maxScalingRows", double(attn::limits::kMaxScalingRows));
  out.set("maxTimingN", double(attn::limits::kMaxTimingN));
  out.set("maxTimingRepeats", double(attn::limits::kMaxTimingRepeats));
  out.set("maxConstructTokens", double(attn::limits::kMaxConstructTokens));
  out.set("maxPeakIterations", std::min(double(std::numeric_limits<std::size_t>::max()), kMaxExactInteger));
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_calc) {
  emscripten::function("attention", &attention);
  emscripten::function("multiHead", &multi_head);
  emscripten::function("maskReasons", &mask_reasons);
  emscripten::function("maskReasonBits", &mask_reason_bits);
  emscripten::function("parameterCount", &parameter_count);
  emscripten::function("cost", &cost);
  emscripten::function("convexHull", &convex_hull);
  emscripten::function("fitPowerLaw", &fit_power_law);
  emscripten::function("normalMatrix", &normal_matrix);
  emscripten::function("entropy", &entropy);
  emscripten::function("scalingExperiment", &scaling_experiment);
  emscripten::function("scalingRowStudy", &scaling_row_study);
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
  emscripten::function("countTooLarge", &count_too_large);
  emscripten::function("checkShape", &check_shape);
  emscripten::function("checkScoreShape", &check_score_shape);
}
