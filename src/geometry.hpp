#pragma once
// Convex-hull geometry, for the lesson's "each output lies inside the hull of the values" check
// (checks.hpp) and the hull the plot draws: the 2-D hull, a point-in-polygon test, and the
// distance from a point to the hull of any number of points in any dimension.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "matrix.hpp"

namespace attn {

// Indices of the convex hull of 2-D points (rows of an m×2 matrix), counter-clockwise,
// starting from the lowest-leftmost point, without collinear points. Degenerate sets give
// 1 index (all points equal) or 2 (all points on a line), and no points give none.
// Throws attn::Error naming the first NaN or infinite coordinate: a hull of such points has no meaning.
std::vector<std::size_t> convex_hull_2d(const MatrixView& points);

// No column: convex_hull_of_columns puts every point at y = 0.
inline constexpr std::uint64_t kNoColumn = ~std::uint64_t{0};

// convex_hull_2d of the points (x_j, y_j) = (points(j, x), points(j, y)), as a plot of two of
// the points' coordinates shows them; y = kNoColumn puts every point on y = 0 (one coordinate).
// Throws attn::Error for a column out of range ("the plot's y column must be a whole number
// from 0 to 2 (got 3)"); 64-bit, so the check sees a column as its caller gave it.
std::vector<std::size_t> convex_hull_of_columns(const MatrixView& points, std::uint64_t x, std::uint64_t y);

// Is (x, y) inside the convex polygon `hull` (convex_hull_2d of the rows of `points`, m×2), or
// within `tol` of it? A hull of one point is a point, of two a segment.
bool inside_polygon(const MatrixView& points, const std::vector<std::size_t>& hull, double x,
                    double y, double tol);

// What search_hull learned of the distance from z to the hull.
struct DistanceBounds {
  double lower = 0.0;  // the distance is at least this (a separating plane proves it)
  double upper = std::numeric_limits<double>::infinity();  // a point of the hull this close
  bool certain = false;  // compared with the tolerance for sure, or optimal
  std::size_t passes = 0;  // passes over the m×d values the search made
};

// Wolfe's minimum-norm-point algorithm on p_j = (v_j − z) / unit, where unit is the largest
// |v_j − z|: the hull point nearest z is the point of conv{p_j} nearest 0. Working in these
// units keeps the arithmetic the same at every magnitude. `start`, if given, is a known point of
// the hull (d doubles): it becomes an extra atom, so the search begins there. With tol >= 0 it
// stops as soon as the distance is proven <= tol or > tol; it stops after `max_passes` passes
// over the m×d points in any case. The points and z must be finite, and m >= 1.
DistanceBounds search_hull(const MatrixView& points, const float* z, const std::vector<double>* start,
                           double tol, std::size_t max_passes);

// Most iterations of distance_to_hull's search.
inline constexpr std::size_t kDistanceMaxIterations = 1024;

// Euclidean distance from z (d coordinates) to the convex hull of the rows of `points` (m×d),
// for any m and d: search_hull with no tolerance. Each iteration costs O(m·d) for the point that
// improves most and O(k·d + k³) for the active face of k <= min(m, d + 1) points. It stops when
// no point improves the nearest one found by more than 1e-12 of its squared distance plus 1e-15
// of the squared spread of the points around z, or after kDistanceMaxIterations iterations.
// Returns the distance to that point of the hull: not less than the true distance (up to
// rounding), and within 1e-7 of the spread above it when the search stopped at the optimum.
// Throws attn::Error for an empty set or non-finite coordinates.
double distance_to_hull(const MatrixView& points, const float* z);

}  // namespace attn
