#pragma once
// The lesson's two checks on a result, computed by the core so the page only displays them:
// each row of A sums to 1, and each output lies inside the convex hull of the value vectors.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention.hpp"
#include "matrix.hpp"

namespace attn {

// Indices of the convex hull of 2-D points (rows of an m×2 matrix), counter-clockwise,
// starting from the lowest-leftmost point, without collinear points. Degenerate sets give
// 1 index (all points equal) or 2 (all points on a line).
std::vector<std::size_t> convex_hull_2d(const MatrixView& points);

struct AttentionChecks {
  // Σ_j A_ij in double, per row. 0 for a fully masked row.
  std::vector<double> row_sums;
  // |row_sums[i] - 1| <= kSumTolerance. A fully masked row passes: its weights are defined as 0.
  std::vector<std::uint8_t> row_sums_to_one;
  // Output row i inside the hull of all value vectors, within a tolerance relative to the
  // values' spread. Exact for d_v <= 2 (interval, polygon) and, for any d_v, up to
  // kExactHullMaxPoints values; beyond that, every coordinate within the values' range (the
  // bounding box, which contains the hull; hull_exact is then false). A fully masked row,
  // whose output is defined as 0, passes.
  std::vector<std::uint8_t> output_in_hull;
  bool hull_exact = true;
  // The hull's vertices when d_v = 2, else empty.
  std::vector<std::size_t> hull;
};

inline constexpr double kSumTolerance = 1e-5;
// Up to this many value vectors (the calculator shows at most 8) the hull test is exact in any
// dimension: it searches the faces of the hull, which grow combinatorially with m.
inline constexpr std::size_t kExactHullMaxPoints = 10;

// Distance from z (d coordinates) to the convex hull of the rows of `points` (m×d), m <=
// kExactHullMaxPoints. The nearest point of a hull lies on a face spanned by at most d + 1
// affinely independent points, so trying each such subset's least-squares combination with
// weights >= 0 and sum 1 finds it.
double distance_to_hull(const MatrixView& points, const float* z);

AttentionChecks check_attention(const AttentionResult& result, const MatrixView& v);

// The "verified" badge, the lesson's "maximum absolute difference" exercise: the largest
// |float32 − float64| over every weight and every output entry, between `result` (the core's
// attention(q, k, v, options)) and the same inputs evaluated in double with the same options
// (reference/attention_ref.hpp): the same mask, and the same pitfall scale and
// mask_after_softmax, so a pitfall is compared with itself. The default scale is 1/√d_k in
// double. Fully masked rows are 0 in both, so they add nothing. Costs one more O(n·m·(d_k + d_v))
// pass in scalar double.
double float64_max_abs_diff(const AttentionResult& result, const MatrixView& q,
                            const MatrixView& k, const MatrixView& v,
                            const AttentionOptions& options);

}  // namespace attn
