// The hull geometry behind the "inside the hull" check and the plot's hull (geometry.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "error.hpp"
#include "geometry.hpp"
#include "support/random.hpp"
#include "support/seed.hpp"

using attn::Matrix;

TEST_CASE("convex_hull_2d: corners only, counter-clockwise, degenerate sets handled") {
  // A square with a point inside and one on an edge.
  const Matrix square{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 1}, {1, 0}};
  CHECK(attn::convex_hull_2d(square) == std::vector<std::size_t>{0, 1, 2, 3});
  // The worked example's values: the triangle (1,0), (0,1), (1,1).
  CHECK(attn::convex_hull_2d(Matrix{{1, 0}, {0, 1}, {1, 1}}) == std::vector<std::size_t>{1, 0, 2});
  CHECK(attn::convex_hull_2d(Matrix{{0, 0}, {1, 1}, {2, 2}, {3, 3}}) == std::vector<std::size_t>{0, 3});
  CHECK(attn::convex_hull_2d(Matrix{{5, 5}, {5, 5}}) == std::vector<std::size_t>{0});
  CHECK(attn::convex_hull_2d(Matrix{{5, 5}}) == std::vector<std::size_t>{0});
}

TEST_CASE("convex_hull_of_columns: the hull a plot of two columns (or one) shows") {
  const Matrix v{{0, 5, 0}, {2, 5, 0}, {2, 5, 2}, {0, 5, 2}, {1, 5, 1}};
  CHECK(attn::convex_hull_of_columns(v, 0, 2) == attn::convex_hull_2d(Matrix{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 1}}));
  CHECK(attn::convex_hull_of_columns(v, 2, 0) == attn::convex_hull_2d(Matrix{{0, 0}, {0, 2}, {2, 2}, {2, 0}, {1, 1}}));
  // One coordinate: the points lie on y = 0, so the hull is the two ends.
  CHECK(attn::convex_hull_of_columns(v, 0, attn::kNoColumn) == std::vector<std::size_t>{0, 1});
  CHECK(attn::convex_hull_of_columns(v, 1, attn::kNoColumn) == std::vector<std::size_t>{0});
  CHECK_THROWS_WITH_AS(attn::convex_hull_of_columns(v, 3, 0), "the plot's x column must be a whole number from 0 to 2 (got 3)",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::convex_hull_of_columns(v, 0, 3), "the plot's y column must be a whole number from 0 to 2 (got 3)",
                       attn::Error);
  // As a caller gave it: 2³² + 1 is not column 1, as a 32-bit size_t would have made it.
  CHECK_THROWS_WITH_AS(attn::convex_hull_of_columns(v, (std::uint64_t{1} << 32) + 1, 0),
                       "the plot's x column must be a whole number from 0 to 2 (got 4294967297)", attn::Error);
}

TEST_CASE("inside_polygon: a polygon, a segment and a point, within the tolerance") {
  const Matrix square{{0, 0}, {2, 0}, {2, 2}, {0, 2}};
  const auto hull = attn::convex_hull_2d(square);
  CHECK(attn::inside_polygon(square, hull, 1, 1, 0));
  CHECK(attn::inside_polygon(square, hull, 2, 1, 0));
  CHECK_FALSE(attn::inside_polygon(square, hull, 2.1, 1, 0.05));
  CHECK(attn::inside_polygon(square, hull, 2.1, 1, 0.2));
  const Matrix segment{{0, 0}, {2, 2}};
  CHECK(attn::inside_polygon(segment, attn::convex_hull_2d(segment), 1, 1, 1e-9));
  CHECK_FALSE(attn::inside_polygon(segment, attn::convex_hull_2d(segment), 1, 1.1, 0.05));
  CHECK_FALSE(attn::inside_polygon(segment, attn::convex_hull_2d(segment), 3, 3, 0.05));
  const Matrix point{{1, 1}};
  CHECK(attn::inside_polygon(point, {0}, 1, 1.04, 0.05));
  CHECK_FALSE(attn::inside_polygon(point, {0}, 1, 1.06, 0.05));
}

TEST_CASE("distance_to_hull: exact in 3-D") {
  const Matrix simplex{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const float inside[] = {0.2f, 0.2f, 0.2f}, vertex[] = {1, 0, 0}, outside[] = {1, 1, 1};
  CHECK(attn::distance_to_hull(simplex, inside) == doctest::Approx(0.0).epsilon(1e-9));
  CHECK(attn::distance_to_hull(simplex, vertex) == doctest::Approx(0.0));
  CHECK(attn::distance_to_hull(simplex, outside) == doctest::Approx(2.0 / std::sqrt(3.0)));
}

TEST_CASE("distance_to_hull refuses an empty set and non-finite coordinates") {
  const float z[] = {0, 0};
  CHECK_THROWS_AS(attn::distance_to_hull(Matrix(0, 2), z), attn::Error);
  const float nan[] = {std::numeric_limits<float>::quiet_NaN(), 0};
  CHECK_THROWS_AS(attn::distance_to_hull(Matrix{{0, 0}, {1, 1}}, nan), attn::Error);
}

namespace {

// The distance to a hull by brute force, for small m: the nearest point lies on a face of at
// most d + 1 points, so the best feasible least-squares point over all subsets is it. In
// coordinates relative to z and divided by the spread, so it is well conditioned at any scale.
double brute_force_distance(const Matrix& v, const float* z) {
  const std::size_t m = v.rows, d = v.cols;
  double unit = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    double r2 = 0.0;
    for (std::size_t t = 0; t < d; ++t) r2 += (double(v(j, t)) - z[t]) * (double(v(j, t)) - z[t]);
    unit = std::max(unit, std::sqrt(r2));
  }
  if (unit == 0.0) return 0.0;
  auto p = [&](std::size_t j, std::size_t t) { return (double(v(j, t)) - z[t]) / unit; };
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t bits = 1; bits < (1u << m); ++bits) {
    std::vector<std::size_t> s;
    for (std::size_t j = 0; j < m; ++j) if (bits & (1u << j)) s.push_back(j);
    if (s.size() > d + 1) continue;
    const std::size_t k = s.size() + 1;
    std::vector<double> a(k * k, 0.0), b(k, 0.0);
    for (std::size_t r = 0; r < s.size(); ++r) {
      for (std::size_t c = 0; c < s.size(); ++c) {
        for (std::size_t t = 0; t < d; ++t) a[r * k + c] += p(s[r], t) * p(s[c], t);
      }
      a[r * k + k - 1] = a[(k - 1) * k + r] = 1.0;
    }
    b[k - 1] = 1.0;
    bool ok = true;  // Gaussian elimination with partial pivoting
    for (std::size_t c = 0; c < k && ok; ++c) {
      std::size_t piv = c;
      for (std::size_t r = c + 1; r < k; ++r) if (std::fabs(a[r * k + c]) > std::fabs(a[piv * k + c])) piv = r;
      if (std::fabs(a[piv * k + c]) < 1e-12) { ok = false; break; }
      for (std::size_t t = 0; t < k; ++t) std::swap(a[c * k + t], a[piv * k + t]);
      std::swap(b[c], b[piv]);
      for (std::size_t r = c + 1; r < k; ++r) {
        const double f = a[r * k + c] / a[c * k + c];
        for (std::size_t t = c; t < k; ++t) a[r * k + t] -= f * a[c * k + t];
        b[r] -= f * b[c];
      }
    }
    if (!ok) continue;
    for (std::size_t c = k; c-- > 0;) {
      for (std::size_t t = c + 1; t < k; ++t) b[c] -= a[c * k + t] * b[t];
      b[c] /= a[c * k + c];
    }
    bool convex = true;
    for (std::size_t r = 0; r + 1 < k; ++r) convex = convex && b[r] >= -1e-12;
    if (!convex) continue;
    double d2 = 0.0;
    for (std::size_t t = 0; t < d; ++t) {
      double x = 0.0;
      for (std::size_t r = 0; r + 1 < k; ++r) x += b[r] * p(s[r], t);
      d2 += x * x;
    }
    best = std::min(best, std::sqrt(d2) * unit);
  }
  return best;
}

}  // namespace

TEST_CASE("the hull search agrees with the brute-force face search") {
  ATTN_SEEDED_RANDOM(rng, 106);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t m = 1 + rng.index(7), d = 3 + rng.index(3);
    const float size = trial % 4 == 0 ? 1e7f : 2.0f;
    CAPTURE(trial); CAPTURE(m); CAPTURE(d);
    const Matrix v = rng.matrix(m, d, -size, size);
    std::vector<float> z(d);
    for (float& x : z) x = rng.uniform(-1.5f * size, 1.5f * size);
    if (trial % 3 == 0) {  // a point inside: a random convex mix
      std::vector<float> w(m);
      float total = 0.0f;
      for (float& x : w) total += x = rng.uniform(0.0f, 1.0f);
      for (std::size_t t = 0; t < d; ++t) {
        z[t] = 0.0f;
        for (std::size_t j = 0; j < m; ++j) z[t] += w[j] / total * v(j, t);
      }
    }
    const double want = brute_force_distance(v, z.data()), got = attn::distance_to_hull(v, z.data());
    CHECK(got >= want - 1e-7 * size);
    CHECK(got <= want + 1e-6 * size);
  }
}

TEST_CASE("convex_hull_2d refuses NaN and infinite points") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH_AS(attn::convex_hull_2d(Matrix{{nan, nan}, {nan, nan}, {nan, nan}}),
                       "NaN at points row 1 column 1", attn::Error);
  CHECK_THROWS_WITH_AS(attn::convex_hull_2d(Matrix{{0, 0}, {1, inf}}),
                       "+Infinity at points row 2 column 2: inputs must be finite numbers", attn::Error);
  CHECK(attn::convex_hull_2d(Matrix(0, 2)).empty());
}

