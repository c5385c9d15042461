#include "checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "error.hpp"
#include "kernels/float_checks.hpp"
#include "reference/attention_ref.hpp"
#include "validate.hpp"

namespace attn {

namespace {

// Every coordinate within the values' range widened by tol. False for NaN.
bool inside_box(const std::vector<double>& lo, const std::vector<double>& hi, const float* z,
                double tol) {
  for (std::size_t t = 0; t < lo.size(); ++t) {
    if (!(z[t] >= lo[t] - tol && z[t] <= hi[t] + tol)) return false;
  }
  return true;
}

// d_v >= 3. The row's own weights, normalized, mix a point of the hull: an output within tol of
// that mix is proven inside in one pass. Otherwise (a pitfall row) the search decides, starting
// from that mix, with at most kHullMaxIterations + 1 passes over the values and no more than
// `budget`, the passes left for the whole check, which it spends. `mix` is scratch of d_v doubles.
bool inside_hull(const MatrixView& v, const float* weights, const float* z, double tol,
                 bool& exact, std::size_t& budget, std::vector<double>& mix) {
  const std::size_t m = v.rows, d = v.cols;
  double sum = 0.0;
  bool usable = true;
  for (std::size_t j = 0; j < m; ++j) {
    usable = usable && weights[j] >= 0.0f && std::isfinite(weights[j]);
    sum += double(weights[j]);
  }
  usable = usable && sum > 0.0;
  if (usable) {
    std::fill(mix.begin(), mix.end(), 0.0);
    for (std::size_t j = 0; j < m; ++j) {
      if (weights[j] == 0.0f) continue;
      const double f = double(weights[j]) / sum;
      for (std::size_t t = 0; t < d; ++t) mix[t] += f * double(v(j, t));
    }
    double d2 = 0.0;
    for (std::size_t t = 0; t < d; ++t) d2 += (mix[t] - z[t]) * (mix[t] - z[t]);
    if (std::sqrt(d2) <= tol) return true;
  }
  const std::size_t allowed = std::min(kHullMaxIterations + 1, budget);
  if (allowed < 2) {  // not even one step: unproven, so counted outside
    exact = false;
    return false;
  }
  const DistanceBounds b = search_hull(v, z, usable ? &mix : nullptr, tol, allowed);
  budget -= std::min(budget, b.passes);
  exact = exact && b.certain;
  return b.upper <= tol;
}

}  // namespace

double hull_tolerance(const MatrixView& v) {
  double longest2 = 0.0;
  for (std::size_t j = 0; j < v.rows; ++j) {
    double r2 = 0.0;
    for (std::size_t t = 0; t < v.cols; ++t) r2 += double(v(j, t)) * double(v(j, t));
    longest2 = std::max(longest2, r2);
  }
  return kHullTolerance * std::max(std::sqrt(longest2), 0x1p-126);
}

AttentionChecks check_attention(const AttentionResult& r, const MatrixView& v) {
  const std::size_t n = r.weights.rows, m = r.weights.cols, dv = v.cols;
  if (v.rows != m || r.output.cols != dv || r.output.rows != n || r.fully_masked.size() != n) {
    throw Error("check_attention: V is " + shape(v.rows, dv) + " but the result has " +
                count(m, "key", "keys") + " and outputs of " + std::to_string(r.output.cols) +
                " columns");
  }
  validate_finite("V", v);
  AttentionChecks c;
  c.row_sums.assign(n, 0.0);
  c.row_sums_to_one.assign(n, 0);
  c.output_in_hull.assign(n, 0);
  const double tol = hull_tolerance(v);
  if (dv == 2) c.hull = convex_hull_2d(v);
  // The values' bounding box contains the hull: outside it by more than tol is outside for sure.
  std::vector<double> lo(dv, std::numeric_limits<double>::infinity()), hi(dv, -lo[0]), mix(dv);
  // The search's passes over the m×d_v values, shared by all rows: one per row on average, or
  // more while they total under 2^28 multiply-adds (a fraction of a second).
  std::size_t budget = std::max<std::size_t>(n, (std::size_t{1} << 28) / std::max<std::size_t>(m * dv, 1));
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t t = 0; t < dv; ++t) {
      lo[t] = std::min(lo[t], double(v(j, t)));
      hi[t] = std::max(hi[t], double(v(j, t)));
    }
  }

  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) c.row_sums[i] += double(r.weights(i, j));
    if (r.fully_masked[i]) {
      c.row_sums_to_one[i] = c.output_in_hull[i] = 1;
      continue;
    }
    c.row_sums_to_one[i] = std::fabs(c.row_sums[i] - 1.0) <= kSumTolerance;
    const float* z = r.output.row(i);
    bool inside = inside_box(lo, hi, z, tol);  // for d_v = 1 the box is the hull
    if (inside && dv == 2) inside = inside_polygon(v, c.hull, z[0], z[1], tol);
    if (inside && dv >= 3) inside = inside_hull(v, r.weights.row(i), z, tol, c.hull_exact, budget, mix);
    c.output_in_hull[i] = inside;
  }
  return c;
}

double float64_max_abs_diff(const AttentionResult& result, const MatrixView& q,
                            const MatrixView& k, const MatrixView& v,
                            const AttentionOptions& options) {
  const double scale = exact_scale(options.pitfalls, q.cols);
  const reference::AttentionRef ref = reference::attention_ref(
      q, k, v, result.hidden, scale, options.pitfalls.mask_after_softmax);
  // A NaN difference sticks (std::max would drop it), so a NaN in the result is never verified.
  double worst = 0.0;
  const auto note = [&](double diff) { worst = std::isnan(diff) || diff > worst ? diff : worst; };
  for (std::size_t i = 0; i < ref.weights.size(); ++i) note(std::fabs(double(result.weights.data[i]) - ref.weights[i]));
  for (std::size_t i = 0; i < ref.output.size(); ++i) note(std::fabs(double(result.output.data[i]) - ref.output[i]));
  return worst;
}

Verification verify_against_float64(const AttentionResult& result, const MatrixView& q,
                                    const MatrixView& k, const MatrixView& v,
                                    const AttentionOptions& options) {
  Verification out;
  out.max_abs_diff = float64_max_abs_diff(result, q, k, v, options);
  for (std::size_t j = 0; j < v.rows; ++j) {
    for (std::size_t t = 0; t < v.cols; ++t) out.value_scale = std::max(out.value_scale, std::fabs(double(v(j, t))));
  }
  out.tolerance = kVerifiedTolerance * out.value_scale;
  out.verified = out.max_abs_diff <= out.tolerance;
  return out;
}

CheckedAttention checked_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                                   const AttentionOptions& options, const std::optional<PlotAxes>& plot_axes) {
  CheckedAttention out;
  out.result = attention(q, k, v, options);
  out.checks = check_attention(out.result, v);
  out.verification = verify_against_float64(out.result, q, k, v, options);
  if (plot_axes) out.plot_hull = convex_hull_of_columns(v, plot_axes->x, plot_axes->y);
  return out;
}

}  // namespace attn
