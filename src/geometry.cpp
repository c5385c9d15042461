#include "geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "error.hpp"
#include "kernels/float_checks.hpp"
#include "validate.hpp"

namespace attn {

namespace {

struct Point {
  double x, y;
};

// > 0 when o → a → b turns counter-clockwise.
double cross(Point o, Point a, Point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

}  // namespace

std::vector<std::size_t> convex_hull_2d(const MatrixView& points) {
  // NaN compares false both ways, so sorting and the turns would return nonsense indices.
  validate_finite("points", points);
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
  // Rounding can make both chains keep a point that lies all but on the line through its
  // neighbours (fuzz_hull found one): it is one corner, kept where it first comes.
  std::vector<char> seen(m, 0);
  hull.erase(std::remove_if(hull.begin(), hull.end(), [&](std::size_t i) { return std::exchange(seen[i], char{1}) != 0; }),
             hull.end());
  return hull;
}

std::vector<std::size_t> convex_hull_of_columns(const MatrixView& points, std::uint64_t x, std::uint64_t y) {
  if (points.cols == 0) throw Error("the points have no column to plot");
  validate_range("the plot's x column", x, 0, points.cols - 1);
  if (y != kNoColumn) validate_range("the plot's y column", y, 0, points.cols - 1);
  Matrix plotted(points.rows, 2);
  for (std::size_t j = 0; j < points.rows; ++j) {
    plotted(j, 0) = points(j, std::size_t(x));  // in range, so it fits a size_t
    plotted(j, 1) = y == kNoColumn ? 0.0f : points(j, std::size_t(y));
  }
  return convex_hull_2d(plotted);
}

bool inside_polygon(const MatrixView& v, const std::vector<std::size_t>& hull, double x, double y, double tol) {
  const Point p{x, y};
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

namespace {

// Solves A x = b (k×k, row-major) by Gaussian elimination with partial pivoting. Entries are
// in units of the points' spread (at most 1 and the 1s of the constraint), so a pivot under
// 1e-13 means the active face's points are affinely dependent to rounding.
bool solve(std::vector<double>& a, std::vector<double>& b, std::size_t k) {
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < k; ++r) {
      if (std::fabs(a[r * k + c]) > std::fabs(a[pivot * k + c])) pivot = r;
    }
    if (std::fabs(a[pivot * k + c]) < 1e-13) return false;
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

DistanceBounds search_hull(const MatrixView& v, const float* z, const std::vector<double>* start,
                           double tol, std::size_t max_passes) {
  const std::size_t m = v.rows, d = v.cols;
  DistanceBounds out;
  double unit2 = 0.0, nearest2 = std::numeric_limits<double>::infinity();
  std::size_t nearest = 0;
  for (std::size_t j = 0; j < m; ++j) {
    double r2 = 0.0;
    for (std::size_t t = 0; t < d; ++t) r2 += (double(v(j, t)) - z[t]) * (double(v(j, t)) - z[t]);
    unit2 = std::max(unit2, r2);
    if (r2 < nearest2) nearest2 = r2, nearest = j;
  }
  if (unit2 == 0.0) return {0.0, 0.0, true};  // every value is z itself
  const double unit = std::sqrt(unit2), inv = 1.0 / unit;
  auto coord = [&](std::size_t a, std::size_t t) {
    return ((a < m ? double(v(a, t)) : (*start)[t]) - double(z[t])) * inv;
  };
  auto dot = [&](std::size_t a, std::size_t b) {
    double s = 0.0;
    for (std::size_t t = 0; t < d; ++t) s += coord(a, t) * coord(b, t);
    return s;
  };

  std::vector<std::size_t> face{start ? m : nearest};  // the active face ("corral")
  std::vector<double> lambda{1.0}, gram{dot(face[0], face[0])}, x(d), kkt, rhs;
  for (std::size_t t = 0; t < d; ++t) x[t] = coord(face[0], t);
  out.passes = 1;  // the one above
  for (;;) {
    double xx = 0.0;
    for (std::size_t t = 0; t < d; ++t) xx += x[t] * x[t];
    out.upper = std::sqrt(xx) * unit;
    if ((tol >= 0.0 && out.upper <= tol) || xx <= 1e-30) {
      out.certain = true;
      return out;
    }
    // The value that improves most: smallest <x, p_j>. Every hull point y has <x, y> >= mu,
    // so the plane <x, ·> = mu separates 0 from the hull at distance mu / |x|.
    // <x, p_j> = <x, v_j − z> / unit, the division once per point: this is the O(m·d) pass.
    std::size_t best = 0;
    double mu = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < m; ++j) {
      const float* vj = v.row(j);
      double s = 0.0;
      for (std::size_t t = 0; t < d; ++t) s += x[t] * (double(vj[t]) - double(z[t]));
      if (s < mu) mu = s, best = j;
    }
    mu *= inv;
    out.lower = std::max(out.lower, std::max(mu, 0.0) / std::sqrt(xx) * unit);
    if (tol >= 0.0 && out.lower > tol) {
      out.certain = true;
      return out;
    }
    // Optimal when no value improves by more than rounding: then upper − distance <=
    // (xx − mu) / |x|, at most 1e-7 of the spread.
    // A value already on the face, or a copy of one (repeated values), would make the face
    // degenerate: x is optimal to rounding then too.
    const auto on_face = [&](std::size_t a) {
      bool same = true;
      for (std::size_t t = 0; t < d && same; ++t) same = a < m && v(a, t) == v(best, t);
      return same;
    };
    if (xx - mu <= 1e-15 + 1e-12 * xx || std::any_of(face.begin(), face.end(), on_face)) {
      out.certain = true;
      return out;
    }
    if (++out.passes >= max_passes) return out;

    face.push_back(best);
    lambda.push_back(0.0);
    const std::size_t old = face.size() - 1;
    std::vector<double> grown(face.size() * face.size());
    for (std::size_t r = 0; r < old; ++r) {
      for (std::size_t c = 0; c < old; ++c) grown[r * face.size() + c] = gram[r * old + c];
    }
    for (std::size_t r = 0; r < face.size(); ++r) {
      grown[r * face.size() + old] = grown[old * face.size() + r] = dot(face[r], best);
    }
    gram.swap(grown);

    // Minor cycles: move to the affine minimizer of the face, or as far toward it as the
    // weights stay >= 0, dropping the points whose weight reaches 0.
    for (;;) {
      const std::size_t k = face.size(), s = k + 1;
      // min |Σ α_a p_a|² with Σ α_a = 1:  [G 1; 1ᵀ 0] [α; ρ] = [0; 1].
      kkt.assign(s * s, 0.0);
      rhs.assign(s, 0.0);
      for (std::size_t r = 0; r < k; ++r) {
        for (std::size_t c = 0; c < k; ++c) kkt[r * s + c] = gram[r * k + c];
        kkt[r * s + k] = kkt[k * s + r] = 1.0;
      }
      rhs[k] = 1.0;
      if (!solve(kkt, rhs, s)) return out;  // degenerate to rounding: keep the bounds found
      double theta = 1.0;
      for (std::size_t a = 0; a < k; ++a) {
        if (rhs[a] > 0.0) continue;
        const double gap = lambda[a] - rhs[a];
        theta = std::min(theta, gap > 0.0 ? lambda[a] / gap : 0.0);
      }
      for (std::size_t a = 0; a < k; ++a) lambda[a] = (1.0 - theta) * lambda[a] + theta * rhs[a];
      if (theta == 1.0) break;
      // Drop the points whose weight reached 0 (at least the one that set theta).
      std::size_t keep = 0;
      double total = 0.0;
      std::vector<std::size_t> kept;
      for (std::size_t a = 0; a < k; ++a) {
        if (lambda[a] > 1e-14) kept.push_back(a);
      }
      if (kept.empty()) kept.push_back(std::size_t(std::max_element(lambda.begin(), lambda.end()) - lambda.begin()));
      std::vector<double> g2(kept.size() * kept.size());
      for (std::size_t r = 0; r < kept.size(); ++r) {
        for (std::size_t c = 0; c < kept.size(); ++c) g2[r * kept.size() + c] = gram[kept[r] * k + kept[c]];
        face[keep] = face[kept[r]];
        lambda[keep] = lambda[kept[r]];
        total += lambda[keep++];
      }
      face.resize(keep);
      lambda.resize(keep);
      for (double& l : lambda) l /= total;
      gram.swap(g2);
    }
    std::fill(x.begin(), x.end(), 0.0);
    for (std::size_t a = 0; a < face.size(); ++a) {
      for (std::size_t t = 0; t < d; ++t) x[t] += lambda[a] * coord(face[a], t);
    }
  }
}

double distance_to_hull(const MatrixView& points, const float* z) {
  validate_finite("points", points);
  if (points.empty()) throw Error("the distance to a hull needs at least one point");
  for (std::size_t t = 0; t < points.cols; ++t) {
    if (!std::isfinite(z[t])) throw Error("the point's coordinate " + std::to_string(t + 1) + " is not a finite number");
  }
  return search_hull(points, z, nullptr, -1.0, kDistanceMaxIterations + 1).upper;
}

}  // namespace attn
