// libFuzzer harness: the hull geometry behind the "inside the hull" check. convex_hull_2d on any
// points: a hull never repeats or invents an index, and non-finite coordinates are an
// attn::Error (item 12's NaN hull). distance_to_hull for points of the set, convex combinations
// of them and arbitrary points, up to 4096 dimensions and at any magnitude (items 5 and 6): for
// finite input a finite distance, for a point of the hull within 1e-5 of the points' length
// (the check's tolerance, checks.hpp) of 0, and for any point between the sound lower bound of
// the bounding box and the distance to the nearest point of the set.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "checks.hpp"
#include "error.hpp"
#include "fuzz/attention_case.hpp"
#include "fuzz/fuzz_input.hpp"
#include "fuzz/hull_checks.hpp"
#include "limits.hpp"

namespace {

void fuzz_convex_hull_2d(fuzz::Input& in) {
  const std::size_t m = std::min<std::size_t>(in.size(12, 300), 4096);
  const attn::Matrix p = in.matrix(m, 2);
  const bool finite = fuzz::all_finite(p.data);
  try {
    fuzz::check_hull_2d(p, attn::convex_hull_2d(p), "convex_hull_2d()");
    FUZZ_CHECK(finite, "convex_hull_2d() returned a hull of non-finite points");
  } catch (const attn::Error&) {
    FUZZ_CHECK(!finite, "convex_hull_2d() refused finite points");
  }
}

void fuzz_distance_to_hull(fuzz::Input& in) {
  std::size_t m = in.size(12, 300), d = in.size(6, attn::limits::kMaxCols);
  fuzz::fit(m, d, attn::limits::kMaxRows, attn::limits::kMaxCols);
  d = std::max<std::size_t>(d, 1);
  // One search iteration costs O(m·d + k³) for a face of k <= min(m, d + 1) points: keep both
  // small enough for many executions a second (item 6's 10×4096 stays as it is).
  auto face = [&] { return std::min(m, d + 1); };
  while (m > 1 && (m * d > 65536 || face() * face() * face() > 32768)) m = (m + 1) / 2;
  const attn::Matrix p = in.matrix(m, d);
  std::vector<float> z(d);
  const std::size_t kind = m == 0 ? 2 : in.pick(3);
  if (kind == 0) {  // a point of the set
    const std::size_t j = in.pick(m);
    std::copy(p.row(j), p.row(j) + d, z.begin());
  } else if (kind == 1) {  // a convex combination, rounded to float32
    std::vector<double> w(m);
    double sum = 0.0;
    for (double& x : w) sum += x = in.byte();
    if (sum == 0.0) w[0] = sum = 1.0;
    for (std::size_t t = 0; t < d; ++t) {
      double x = 0.0;
      for (std::size_t j = 0; j < m; ++j) x += w[j] / sum * double(p(j, t));
      z[t] = float(x);
    }
  } else {
    for (float& x : z) x = in.value();
  }
  const bool finite = m > 0 && fuzz::all_finite(p.data) && fuzz::all_finite(z);
  double got = 0.0;
  try {
    got = attn::distance_to_hull(p, z.data());
  } catch (const attn::Error&) {
    FUZZ_CHECK(!finite, "distance_to_hull() refused finite points");
    return;
  }
  FUZZ_CHECK(finite, "distance_to_hull() accepted an empty set or non-finite coordinates");

  double length = 0.0, lower = 0.0, upper = std::numeric_limits<double>::infinity(), farthest = 0.0;
  for (std::size_t t = 0; t < d; ++t) {
    double lo = p(0, t), hi = p(0, t);
    for (std::size_t j = 0; j < m; ++j) {
      lo = std::min(lo, double(p(j, t)));
      hi = std::max(hi, double(p(j, t)));
    }
    lower = std::max({lower, lo - double(z[t]), double(z[t]) - hi});
  }
  for (std::size_t j = 0; j < m; ++j) {
    double norm2 = 0.0;
    for (std::size_t t = 0; t < d; ++t) norm2 += double(p(j, t)) * double(p(j, t));
    length = std::max(length, std::sqrt(norm2));
  }
  for (std::size_t j = 0; j < m; ++j) {
    double dist2 = 0.0;
    for (std::size_t t = 0; t < d; ++t) dist2 += (double(z[t]) - p(j, t)) * (double(z[t]) - p(j, t));
    upper = std::min(upper, std::sqrt(dist2));
    farthest = std::max(farthest, std::sqrt(dist2));
  }
  // The check's own tolerance, 1e-5 of the longest point, plus the rounding of a combination to
  // float32 (relative, or one subnormal step per coordinate at the bottom of the range). For a
  // far point, the search's own accuracy: 1e-9 of the points' spread around it (checks.hpp).
  const double tol = attn::kHullTolerance * length + std::sqrt(double(d)) * (fuzz::kUnit * length + fuzz::kDenormal) +
                     (kind < 2 ? 0.0 : 1e-8 * farthest);
  std::ostringstream detail;
  detail.precision(9);
  detail << m << " points in " << d << " dimensions, longest point " << length << ": distance " << got
         << ", must lie in [" << lower - tol << ", " << (kind < 2 ? tol : upper + tol) << "]";
  FUZZ_CHECK(std::isfinite(got) && got >= 0.0, "distance_to_hull() is not a finite distance", detail.str());
  FUZZ_CHECK(got >= lower - tol && got <= upper + tol, "distance_to_hull() is out of its bounds", detail.str());
  if (kind < 2) FUZZ_CHECK(got <= tol, "distance_to_hull() puts a point of the hull outside it", detail.str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  if (in.pick(2) == 0) {
    fuzz_convex_hull_2d(in);
  } else {
    fuzz_distance_to_hull(in);
  }
  return 0;
}
