#pragma once
// What any 2-D hull the core returns must satisfy (checks.hpp): indices in range and distinct;
// for finite points, a counter-clockwise convex polygon (or the 1- and 2-point degenerate cases)
// with every point inside it, within a tolerance relative to the points' magnitude.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "matrix.hpp"

namespace fuzz {

inline void check_hull_2d(const attn::MatrixView& p, const std::vector<std::size_t>& hull, const char* who) {
  const std::size_t m = p.rows;
  std::vector<std::uint8_t> seen(m, 0);
  for (std::size_t i : hull) {
    FUZZ_CHECK(i < m, who, "hull index " + std::to_string(i) + " out of range for " + std::to_string(m) + " points");
    FUZZ_CHECK(!seen[i], who, "hull repeats point " + std::to_string(i));
    seen[i] = 1;
  }
  bool finite = true;
  double scale = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t t = 0; t < 2; ++t) {
      finite = finite && std::isfinite(p(i, t));
      scale = std::fmax(scale, std::fabs(double(p(i, t))));
    }
  }
  if (!finite) return;  // no geometry to hold it to; the indices above still must be sane
  FUZZ_CHECK(m == 0 || !hull.empty(), who, "empty hull for a non-empty set");
  const double tol = 1e-9 * scale + 1e-300;
  auto x = [&](std::size_t i) { return double(p(i, 0)); };
  auto y = [&](std::size_t i) { return double(p(i, 1)); };
  // Distance of point c from the line a→b, positive on the left (inside for a CCW polygon).
  auto side = [&](std::size_t a, std::size_t b, std::size_t c) {
    const double dx = x(b) - x(a), dy = y(b) - y(a), len = std::hypot(dx, dy);
    return (dx * (y(c) - y(a)) - dy * (x(c) - x(a))) / len;
  };
  if (hull.size() == 1) {
    for (std::size_t i = 0; i < m; ++i) {
      FUZZ_CHECK(std::hypot(x(i) - x(hull[0]), y(i) - y(hull[0])) <= tol, who, "a 1-point hull but the points differ");
    }
    return;
  }
  if (hull.size() == 2) {
    for (std::size_t i = 0; i < m; ++i) {
      FUZZ_CHECK(std::fabs(side(hull[0], hull[1], i)) <= tol, who, "a 2-point hull but point " + std::to_string(i) + " is off the line");
    }
    return;
  }
  for (std::size_t e = 0; e < hull.size(); ++e) {
    const std::size_t a = hull[e], b = hull[(e + 1) % hull.size()], c = hull[(e + 2) % hull.size()];
    FUZZ_CHECK(side(a, b, c) > -tol, who, "hull is not convex and counter-clockwise at point " + std::to_string(b));
    for (std::size_t i = 0; i < m; ++i) {
      FUZZ_CHECK(side(a, b, i) >= -tol, who, "point " + std::to_string(i) + " lies outside the hull");
    }
  }
}

}  // namespace fuzz
