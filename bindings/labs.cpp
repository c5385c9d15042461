// Embind layer of the labs (multi-head attention, the √d_k experiment, constructed heads, the
// cost lab's timing, the benchmark's peak): linked beside embind.cpp into the full module,
// attention-{simd,scalar}. The calculator's own module, calculator-{simd,scalar}, leaves these out,
// so an embed without a lab downloads none of their code (issue 25: 32 KB gzip of the 69).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "attention.hpp"
#include "construct.hpp"
#include "cost.hpp"
#include "error.hpp"
#include "fit.hpp"
#include "kernels/peak.hpp"
#include "kernels/simd.hpp"
#include "kernels/streaming_attention.hpp"
#include "multihead.hpp"
#include "random.hpp"
#include "scaling.hpp"
#include "statistics.hpp"
#include "timing.hpp"
#include "validate.hpp"

#include "attention_args.hpp"
#include "convert.hpp"

using emscripten::val;
using namespace attn::bindings;

namespace {

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
    p.heads = count_arg(args, "heads");
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

// args: { rows, cols, seed, std } → { data: Float32Array (rows×cols) }
val normal_matrix(val args) {
  return guarded([&] {
    const attn::Matrix m = attn::normal_matrix(count_arg(args, "rows"), count_arg(args, "cols"),
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
    o.dk = count_arg(args, "dk");
    o.pairs = count_arg(args, "pairs");
    o.seed = seed_arg(args);
    o.bins = count_arg(args, "bins");
    o.row = count_arg(args, "row");
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
    o.dk = count_arg(args, "dk");
    o.rows = count_arg(args, "rows");
    o.row = count_arg(args, "row");
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

// args: { n, d, repeats, seed, path }
val time_attention(val args) {
  return guarded([&] {
    attn::TimingOptions o;
    o.path = attn::timed_path_from_string(args["path"].as<std::string>());
    o.n = count_arg(args, "n");
    o.d = count_arg(args, "d");
    o.repeats = count_arg(args, "repeats");
    o.seed = seed_arg(args);
    const attn::TimingResult r = attn::time_attention(o);
    val out = val::object();
    out.set("seconds", r.seconds);
    out.set("iterations", double(r.iterations));
    out.set("attentionBytes", r.attention_bytes);
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
  return attn::output_shape(whole_number<std::uint64_t>(n, "n"), whole_number<std::uint64_t>(m, "m"),
                            whole_number<std::uint64_t>(d, "d"), whole_number<std::uint64_t>(dv, "dv"));
}

val prepare_output(double n, double m, double d, double dv) {
  return guarded([&] {
    const attn::OutputShape s = output_shape(n, m, d, dv);  // checked before the buffers grow
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

// For the benchmark: the peak mul+add throughput of this build, measured in place.
val peak_mul_add(double iterations) {
  return guarded([&] {
    val out = val::object();
    out.set("value", attn::kernels::peak_mul_add(whole_number<std::uint64_t>(iterations, "iterations")));
    return out;
  });
}
double lanes() { return double(attn::kernels::kLanes); }
double peak_chains() { return double(attn::kernels::kPeakChains); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_calc_labs) {
  emscripten::function("multiHead", &multi_head);
  emscripten::function("parameterCount", &parameter_count);
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
  emscripten::function("peakMulAdd", &peak_mul_add);
  emscripten::function("lanes", &lanes);
  emscripten::function("peakChains", &peak_chains);
}
