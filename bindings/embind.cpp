// Embind layer: plain functions over the core, for web/attention.js only. This file is the
// calculator's (calculator-{simd,scalar}: attention, masks, checks, the plot's hull, cost, limits);
// the full module, attention-{simd,scalar}, links labs.cpp beside it.
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
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "attention.hpp"
#include "checks.hpp"
#include "cost.hpp"
#include "error.hpp"
#include "kernels/simd.hpp"
#include "limits.hpp"
#include "mask.hpp"
#include "validate.hpp"

#include "attention_args.hpp"
#include "convert.hpp"

using emscripten::val;
using namespace attn::bindings;

namespace {

// args: { n, m, maskCausal, maskKeys, maskHidden } → { hidden: n×m MaskReason bits }: the mask
// alone, so a page can show why each cell is hidden even while Q, K or V cannot be computed.
val mask_reasons(val args) {
  return guarded([&] {
    const std::uint64_t n_given = count_arg(args, "n"), m_given = count_arg(args, "m");
    attn::validate_score_shape(n_given, m_given);  // before either narrows to a size_t
    const auto n = std::size_t(n_given), m = std::size_t(m_given);
    const attn::Mask mask = mask_arg(args);
    attn::validate_mask(mask, n, m);
    val out = val::object();
    out.set("hidden", uint8_array(attn::expand_mask(mask, n, m)));
    return out;
  });
}

// args: { q, qRows, qCols, k, kRows, kCols, v, vRows, vCols, maskCausal, maskKeys, maskHidden,
//         scaling ('sqrt' | 'dk' | 'none'), scale (a fixed factor; NaN for none), maskAfterSoftmax,
//         hullX, hullY (optional: the columns of V whose 2-D hull checks.plotHull holds, hullY -1
//         for none) }
// One call gives the calculator all it shows for an edit (checks.hpp's checked_attention): the
// steps, the checks, the verified badge judged by the core, and the plot's hull.
val attention(val args) {
  return guarded([&] {
    const attn::Matrix q = matrix_arg(args, "q", "qRows", "qCols");
    const attn::Matrix k = matrix_arg(args, "k", "kRows", "kCols");
    const attn::Matrix v = matrix_arg(args, "v", "vRows", "vCols");
    attn::AttentionOptions options;
    options.mask = mask_arg(args);
    options.pitfalls.scaling = attn::scaling_from_string(args["scaling"].as<std::string>());
    const double scale = args["scale"].as<double>();
    if (scale == scale) options.pitfalls.scale = float(scale);
    options.pitfalls.mask_after_softmax = args["maskAfterSoftmax"].as<bool>();
    std::optional<attn::PlotAxes> plot_axes;
    if (!args["hullX"].isUndefined()) {
      plot_axes = attn::PlotAxes{count_arg(args, "hullX"),
                                 args["hullY"].as<double>() < 0 ? attn::kNoColumn : count_arg(args, "hullY")};
    }
    const attn::CheckedAttention answer = attn::checked_attention(q, k, v, options, plot_axes);
    val out = attention_result(answer.result);
    val checks = val::object();
    checks.set("rowSums", float64_array(answer.checks.row_sums));
    checks.set("rowSumsToOne", uint8_array(answer.checks.row_sums_to_one));
    checks.set("outputInHull", uint8_array(answer.checks.output_in_hull));
    checks.set("hull", index_array(answer.checks.hull));
    checks.set("hullExact", answer.checks.hull_exact);
    checks.set("float64MaxAbsDiff", answer.verification.max_abs_diff);
    checks.set("verified", answer.verification.verified);
    checks.set("verifiedTolerance", answer.verification.tolerance);
    checks.set("valueScale", answer.verification.value_scale);
    if (answer.plot_hull) checks.set("plotHull", index_array(*answer.plot_hull));
    out.set("checks", checks);
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

// Bytes the allocator has handed out and not taken back: the heap-flatness tests read it.
double heap_bytes_in_use() { return double(mallinfo().uordblks); }

std::string arch() { return attn::kernels::arch_name(); }

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
  out.set("maxPeakIterations", double(attn::limits::kMaxPeakIterations));
  out.set("maxPeakTokens", double(attn::limits::kMaxPeakTokens));
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_calc) {
  emscripten::function("attention", &attention);
  emscripten::function("maskReasons", &mask_reasons);
  emscripten::function("maskReasonBits", &mask_reason_bits);
  emscripten::function("cost", &cost);
  emscripten::function("convexHull", &convex_hull);
  emscripten::function("heapBytesInUse", &heap_bytes_in_use);
  emscripten::function("arch", &arch);
  emscripten::function("limits", &limits);
  emscripten::function("countTooLarge", &count_too_large);
  emscripten::function("checkShape", &check_shape);
  emscripten::function("checkScoreShape", &check_score_shape);
}
