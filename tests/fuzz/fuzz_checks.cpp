// libFuzzer harness: the lesson's checks on real attention results. check_attention must report
// what is true (a correct result's rows sum to 1 and its outputs lie inside the values' hull at
// any magnitude, item 5; in polynomial time, item 6), and float64_max_abs_diff must be a finite
// number that matches the actual largest |float32 − float64| and stays within the tolerance the
// oracle comparison allows (agreement.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "attention.hpp"
#include "checks.hpp"
#include "error.hpp"
#include "fuzz/agreement.hpp"
#include "fuzz/attention_case.hpp"
#include "fuzz/fuzz_input.hpp"
#include "fuzz/hull_checks.hpp"

namespace {

void check_checks(const fuzz::AttentionCase& c, const attn::AttentionResult& r, const attn::AttentionChecks& checks) {
  const std::size_t n = r.weights.rows, m = r.weights.cols, dv = c.v.cols;
  const char* who = "check_attention()";
  FUZZ_CHECK(checks.row_sums.size() == n && checks.row_sums_to_one.size() == n && checks.output_in_hull.size() == n,
                who, "per-row results of the wrong length");
  const bool convex = !c.options.pitfalls.mask_after_softmax;  // otherwise outputs are convex combinations
  const double size = std::max(fuzz::max_abs(c.v.data), 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) sum += double(r.weights(i, j));
    FUZZ_CHECK(std::fabs(checks.row_sums[i] - sum) <= 1e-12, who, "row_sums is not the sum of the weights");
    const bool sums_to_one = r.fully_masked[i] || std::fabs(checks.row_sums[i] - 1.0) <= attn::kSumTolerance;
    FUZZ_CHECK(bool(checks.row_sums_to_one[i]) == sums_to_one, who, "row_sums_to_one contradicts row_sums");
    if (convex) {
      std::ostringstream detail;
      detail.precision(9);
      detail << "row " << i + 1 << " of " << n << ", m = " << m << ", d_v = " << dv << ", row sum " << checks.row_sums[i]
             << ", |V| up to " << fuzz::max_abs(c.v.data);
      FUZZ_CHECK(checks.row_sums_to_one[i], who, "a correct softmax row reported as not summing to 1: " + detail.str());
      FUZZ_CHECK(checks.output_in_hull[i], who, "a correct output reported outside the values' hull: " + detail.str());
    } else if (!r.fully_masked[i]) {
      // Far outside the values' bounding box is outside the hull, whatever the tolerance.
      for (std::size_t t = 0; t < dv; ++t) {
        double lo = c.v(0, t), hi = c.v(0, t);
        for (std::size_t j = 0; j < m; ++j) {
          lo = std::min(lo, double(c.v(j, t)));
          hi = std::max(hi, double(c.v(j, t)));
        }
        const double z = r.output(i, t), margin = 1e-3 * size;
        if (z < lo - margin || z > hi + margin) {
          FUZZ_CHECK(!checks.output_in_hull[i], who, "an output far outside the values' range reported inside the hull");
        }
      }
    }
  }
  if (dv == 2) {
    fuzz::check_hull_2d(c.v, checks.hull, who);
  } else {
    FUZZ_CHECK(checks.hull.empty(), who, "a hull for d_v != 2");
  }
}

void check_max_abs_diff(const fuzz::AttentionCase& c, const attn::AttentionResult& r, const fuzz::Reference& ref) {
  const double got = attn::float64_max_abs_diff(r, c.q, c.k, c.v, c.options);
  double actual = 0.0, allowed = 0.0, magnitude = 1.0;
  for (std::size_t e = 0; e < ref.weights.size(); ++e) {
    const double w = r.weights.data[e], want = ref.weights[e];
    actual = std::max(actual, std::fabs(w - want));
    allowed = std::max(allowed, fuzz::kStated + ref.slack[e / ref.m] * std::max(w, want));
  }
  for (std::size_t e = 0; e < ref.output.size(); ++e) {
    actual = std::max(actual, std::fabs(double(r.output.data[e]) - ref.output[e]));
    allowed = std::max(allowed, ref.output_tolerance[e]);
    magnitude = std::max(magnitude, std::fabs(ref.output[e]));
  }
  std::ostringstream detail;
  detail.precision(9);
  detail << "float64_max_abs_diff " << got << ", measured " << actual << ", allowed " << allowed;
  const char* who = "float64_max_abs_diff()";
  FUZZ_CHECK(std::isfinite(got) && got >= 0.0, who, "not a finite difference: " + detail.str());
  // Two double evaluations of the same sums differ by double rounding only.
  FUZZ_CHECK(std::fabs(got - actual) <= 1e-9 * actual + 1e-12 * magnitude, who, "does not measure the difference: " + detail.str());
  FUZZ_CHECK(got <= allowed, who, "over the tolerance: " + detail.str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const fuzz::AttentionCase c = fuzz::decode_attention_case(in, 12, 8);
  if (!c.valid) return 0;  // the attention harness holds attention() to refusing these
  attn::AttentionResult r;
  try {
    r = attn::attention(c.q, c.k, c.v, c.options);
  } catch (const attn::Error&) {
    return 0;
  }
  check_checks(c, r, attn::check_attention(r, c.v));
  check_max_abs_diff(c, r, fuzz::reference(c));
  return 0;
}
