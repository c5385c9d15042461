#pragma once
// The lesson's checks on a result, computed by the core so the page only displays them: each
// row of A sums to 1, each output lies inside the convex hull of the value vectors (the geometry
// is geometry.hpp's), and the float32 result matches a float64 evaluation. checked_attention
// gives all of it for one edit of the calculator.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attention.hpp"
#include "geometry.hpp"
#include "matrix.hpp"

namespace attn {

struct AttentionChecks {
  // Σ_j A_ij in double, per row. 0 for a fully masked row.
  std::vector<double> row_sums;
  // |row_sums[i] - 1| <= kSumTolerance. A fully masked row passes: its weights are defined as 0.
  std::vector<std::uint8_t> row_sums_to_one;
  // Output row i is within hull_tolerance(v) (Euclidean distance) of the convex hull of the
  // value vectors. A fully masked row, whose output is defined as 0, passes.
  std::vector<std::uint8_t> output_in_hull;
  // True when every row's answer is certain: the distance was proven <= the tolerance or
  // > the tolerance. Always so for d_v <= 2 (interval, polygon). For d_v >= 3 a row's own
  // weights prove a correct output inside, and for other rows the search (as in
  // distance_to_hull) ends with a proof unless it runs out of iterations (see the complexity
  // below); such a row counts as outside, and this is false.
  bool hull_exact = true;
  // The hull's vertices when d_v = 2, else empty.
  std::vector<std::size_t> hull;
};

inline constexpr double kSumTolerance = 1e-5;
// The hull check's tolerance, relative to the values' size: an output passes when its
// Euclidean distance to the hull is at most
//   hull_tolerance(v) = kHullTolerance · max(max_j ‖v_j‖₂, 2⁻¹²⁶),
// the longest value vector's length (2⁻¹²⁶, float32's smallest normal number, only matters
// when every value is 0 or subnormal). float32 rounding of A·V moves an output by a few
// 1e-7 of that length, so correct outputs pass at any magnitude.
inline constexpr double kHullTolerance = 1e-5;
// Most iterations of the hull search for one output row; each is one pass over the m×d_v values.
inline constexpr std::size_t kHullMaxIterations = 64;

// hull_tolerance(v) above: kHullTolerance times the longest value vector's length.
double hull_tolerance(const MatrixView& values);

// Complexity, n rows of output, m values of d_v coordinates: O(m·d_v) once, then per row O(d_v)
// to compare with the values' bounding box and, for d_v >= 3, O(m·d_v) to test the row's own
// weights as a certificate (correct attention always stops there). The rows they do not prove
// inside (a pitfall) go to the search, whose passes over the values (one to measure, one per
// iteration; at most kHullMaxIterations + 1 per row) share a budget of max(n, 2^28 / (m·d_v))
// passes for the whole call: one per row on average, or up to 2^28 multiply-adds (a fraction
// of a second) in all. A row left without a step is unproven. Total: O(n·m·d_v + 2^28), about
// two passes over the values per row at large n, the order of A·V itself and of float64_max_abs_diff. d_v = 2
// costs O(m log m) once and O(h) per row for a hull of h corners.
AttentionChecks check_attention(const AttentionResult& result, const MatrixView& v);

// The "verified" badge, the lesson's "maximum absolute difference" exercise: the largest
// |float32 − float64| over every weight and every output entry, between `result` (the core's
// attention(q, k, v, options)) and the same inputs evaluated in double with the same options
// (reference/attention_ref.hpp): the same mask, and the same pitfall scale and
// mask_after_softmax, so a pitfall is compared with itself. The scale is exact_scale()
// (attention.hpp) in double: 1/√d_k by default. Fully masked rows are 0 in both, so they add
// nothing. NaN when an entry of the result is NaN, so such a result is never verified. Costs one more O(n·m·(d_k + d_v))
// pass in scalar double.
double float64_max_abs_diff(const AttentionResult& result, const MatrixView& q,
                            const MatrixView& k, const MatrixView& v,
                            const AttentionOptions& options);

// The verified badge's tolerance, relative to the values' scale: verified when
//   float64_max_abs_diff <= kVerifiedTolerance · max(1, max |V|).
// float32 rounds an output to a few units in the last place of the values it averages, so the
// bound grows with |V|; the weights, in [0, 1], keep the absolute 1e-5 while |V| <= 1.
inline constexpr double kVerifiedTolerance = 1e-5;

struct Verification {
  double max_abs_diff = 0.0;  // float64_max_abs_diff
  double value_scale = 1.0;   // max(1, max |V|)
  double tolerance = 0.0;     // kVerifiedTolerance · value_scale
  bool verified = false;      // max_abs_diff <= tolerance (false for NaN)
};

// The badge judged: float64_max_abs_diff against its tolerance.
Verification verify_against_float64(const AttentionResult& result, const MatrixView& q,
                                    const MatrixView& k, const MatrixView& v,
                                    const AttentionOptions& options);

// The two columns of V a plot shows, as convex_hull_of_columns (geometry.hpp) takes them:
// y = kNoColumn puts every point on y = 0 (one coordinate).
struct PlotAxes {
  std::uint64_t x = 0;
  std::uint64_t y = kNoColumn;
};

// All the calculator shows for one edit: the steps, their checks, the verified badge and the
// plot's hull.
struct CheckedAttention {
  AttentionResult result;        // attention(q, k, v, options)
  AttentionChecks checks;        // check_attention(result, v)
  Verification verification;     // verify_against_float64(result, q, k, v, options)
  // convex_hull_of_columns(v, axes.x, axes.y) when plot axes are given, else none.
  std::optional<std::vector<std::size_t>> plot_hull;
};

// One call for one edit, so a binding only converts. Errors are those of the calls above, in
// that order: attention's first, then the plot's columns.
CheckedAttention checked_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                                   const AttentionOptions& options,
                                   const std::optional<PlotAxes>& plot_axes = std::nullopt);

}  // namespace attn
