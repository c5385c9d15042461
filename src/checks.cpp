#include "checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "reference/attention_ref.hpp"

namespace attn {

namespace {

struct Point {
  double x, y;
};

// > 0 when o → a → b turns counter-clockwise.
double cross(Point o, Point a, Point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

}  // namespace

std::vector<std::size_t> convex_hull_2d(const MatrixView& points) {
  const std::size_t m = points.rows;
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto at = [&](std::size_t i) { return Point{points(i, 0), points(i, 1)}; };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Point p = at(a), q = at(b);
    return p.x < q.x || (p.x == q.x && (p.y < q.y || (p.y == q.y && a < b)));
  });
  // Drop repeated points: they are not extra corners.
  order.erase(std::unique(order.begin(), order.end(),
                          [&](std::size_t a, std::size_t b) { return at(a).x == at(b).x && at(a).y == at(b).y; }),
              order.end());
  if (order.size() <= 2) return order;
  // Andrew's monotone chain: lower hull left to right, then upper hull right to left.
  std::vector<std::size_t> hull(2 * order.size());
  std::size_t k = 0;
  for (std::size_t i : order) {
    while (k >= 2 && cross(at(hull[k - 2]), at(hull[k - 1]), at(i)) <= 0) --k;
    hull[k++] = i;
  }
  for (std::size_t t = order.size() - 1, lower = k + 1; t-- > 0;) {
    const std::size_t i = order[t];
    while (k >= lower && cross(at(hull[k - 2]), at(hull[k - 1]), at(i)) <= 0) --k;
    hull[k++] = i;
  }
  hull.resize(k - 1);  // the last point repeats the first
  return hull;
}

namespace {

// Is p inside the convex polygon `hull` (counter-clockwise) or within `tol` of it?
bool inside_polygon(const MatrixView& v, const std::vector<std::size_t>& hull, Point p, double tol) {
  auto at = [&](std::size_t i) { return Point{v(i, 0), v(i, 1)}; };
  if (hull.size() == 1) return std::hypot(p.x - at(hull[0]).x, p.y - at(hull[0]).y) <= tol;
  for (std::size_t e = 0; e < hull.size(); ++e) {
    const Point a = at(hull[e]), b = at(hull[(e + 1) % hull.size()]);
    const double len = std::hypot(b.x - a.x, b.y - a.y);
    const double side = cross(a, b, p) / len;  // signed distance, > 0 on the inner side
    if (hull.size() == 2) {
      // A segment: p must lie on the line and between the ends.
      const double along = ((p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y)) / len;
      return std::fabs(side) <= tol && along >= -tol && along <= len + tol;
    }
    if (side < -tol) return false;
  }
  return true;
}

}  // namespace

namespace {

// Solves A x = b (k×k, row-major) by Gaussian elimination with partial pivoting.
// Returns false when A is singular: that subset of points is affinely dependent.
bool solve(std::vector<double>& a, std::vector<double>& b, std::size_t k) {
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < k; ++r) {
      if (std::fabs(a[r * k + c]) > std::fabs(a[pivot * k + c])) pivot = r;
    }
    if (std::fabs(a[pivot * k + c]) < 1e-12) return false;
    if (pivot != c) {
      for (std::size_t t = 0; t < k; ++t) std::swap(a[c * k + t], a[pivot * k + t]);
      std::swap(b[c], b[pivot]);
    }
    for (std::size_t r = c + 1; r < k; ++r) {
      const double f = a[r * k + c] / a[c * k + c];
      for (std::size_t t = c; t < k; ++t) a[r * k + t] -= f * a[c * k + t];
      b[r] -= f * b[c];
    }
  }
  for (std::size_t c = k; c-- > 0;) {
    for (std::size_t t = c + 1; t < k; ++t) b[c] -= a[c * k + t] * b[t];
    b[c] /= a[c * k + c];
  }
  return true;
}

}  // namespace

double distance_to_hull(const MatrixView& points, const float* z) {
  const std::size_t m = points.rows, d = points.cols;
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> subset;
  for (std::uint32_t bits = 1; bits < (std::uint32_t{1} << m); ++bits) {
    subset.clear();
    for (std::size_t j = 0; j < m; ++j) {
      if (bits & (std::uint32_t{1} << j)) subset.push_back(j);
    }
    const std::size_t s = subset.size();
    if (s > d + 1) continue;  // affinely dependent: a smaller face covers it
    // Minimise |Σ λ_a p_a − z|² subject to Σ λ_a = 1, via the KKT system
    //   [G 1; 1ᵀ 0] [λ; μ] = [P z; 1], with G the Gram matrix of the subset.
    const std::size_t k = s + 1;
    std::vector<double> a(k * k, 0.0), b(k, 0.0);
    for (std::size_t r = 0; r < s; ++r) {
      for (std::size_t c = 0; c < s; ++c) {
        double g = 0.0;
        for (std::size_t t = 0; t < d; ++t) g += double(points(subset[r], t)) * double(points(subset[c], t));
        a[r * k + c] = g;
      }
      a[r * k + s] = a[s * k + r] = 1.0;
      for (std::size_t t = 0; t < d; ++t) b[r] += double(points(subset[r], t)) * double(z[t]);
    }
    b[s] = 1.0;
    if (!solve(a, b, k)) continue;
    bool convex = true;
    for (std::size_t r = 0; r < s; ++r) convex = convex && b[r] >= -1e-9;
    if (!convex) continue;
    double dist2 = 0.0;
    for (std::size_t t = 0; t < d; ++t) {
      double x = -double(z[t]);
      for (std::size_t r = 0; r < s; ++r) x += b[r] * double(points(subset[r], t));
      dist2 += x * x;
    }
    best = std::min(best, std::sqrt(dist2));
  }
  return best;
}

AttentionChecks check_attention(const AttentionResult& r, const MatrixView& v) {
  const std::size_t n = r.weights.rows, m = r.weights.cols, dv = v.cols;
  AttentionChecks c;
  c.row_sums.assign(n, 0.0);
  c.row_sums_to_one.assign(n, 0);
  c.output_in_hull.assign(n, 0);

  // Tolerance for "inside": float32 rounding of outputs relative to the values' size.
  double spread = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t t = 0; t < dv; ++t) spread = std::max(spread, std::fabs(double(v(j, t))));
  }
  const double tol = 1e-5 * std::max(spread, 1.0);
  if (dv == 2) c.hull = convex_hull_2d(v);

  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) c.row_sums[i] += double(r.weights(i, j));
    if (r.fully_masked[i]) {
      c.row_sums_to_one[i] = c.output_in_hull[i] = 1;
      continue;
    }
    c.row_sums_to_one[i] = std::fabs(c.row_sums[i] - 1.0) <= kSumTolerance;
    if (dv == 2) {
      c.output_in_hull[i] = inside_polygon(v, c.hull, {r.output(i, 0), r.output(i, 1)}, tol);
    } else if (dv > 2 && m <= kExactHullMaxPoints) {
      c.output_in_hull[i] = distance_to_hull(v, r.output.row(i)) <= tol;
    } else {
      c.hull_exact = dv == 1;
      bool inside = true;
      for (std::size_t t = 0; t < dv; ++t) {
        double lo = v(0, t), hi = v(0, t);
        for (std::size_t j = 1; j < m; ++j) {
          lo = std::min(lo, double(v(j, t)));
          hi = std::max(hi, double(v(j, t)));
        }
        inside = inside && r.output(i, t) >= lo - tol && r.output(i, t) <= hi + tol;
      }
      c.output_in_hull[i] = inside;
    }
  }
  return c;
}

double float64_max_abs_diff(const AttentionResult& result, const MatrixView& q,
                            const MatrixView& k, const MatrixView& v,
                            const AttentionOptions& options) {
  const double scale = options.pitfalls.scale ? double(*options.pitfalls.scale)
                                              : 1.0 / std::sqrt(double(q.cols));
  const reference::AttentionRef ref = reference::attention_ref(
      q, k, v, result.hidden, scale, options.pitfalls.mask_after_softmax);
  double worst = 0.0;
  for (std::size_t i = 0; i < ref.weights.size(); ++i) {
    worst = std::max(worst, std::fabs(double(result.weights.data[i]) - ref.weights[i]));
  }
  for (std::size_t i = 0; i < ref.output.size(); ++i) {
    worst = std::max(worst, std::fabs(double(result.output.data[i]) - ref.output[i]));
  }
  return worst;
}

}  // namespace attn
