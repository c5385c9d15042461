#include "scaling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "error.hpp"
#include "portable_math.hpp"
#include "random.hpp"
#include "validate.hpp"

namespace attn {

namespace {

SampleSummary summarize(const std::vector<double>& x, double half_range, std::size_t bins) {
  SampleSummary s;
  s.mean = mean(x.data(), x.size());
  s.std = std_dev(x.data(), x.size());
  s.histogram = histogram(x.data(), x.size(), -half_range, half_range, bins);
  return s;
}

SoftmaxRow softmax_row(const std::vector<double>& scores) {
  SoftmaxRow r;
  r.weights = softmax(scores.data(), scores.size());
  r.entropy = entropy(r.weights.data(), r.weights.size());
  return r;
}

// A chi-square variate with k degrees of freedom: 2·Gamma(k/2). Marsaglia and Tsang's method for a
// shape a ≥ 1 (k ≥ 2); for k = 1 the square of one normal. Only +, −, ×, ÷, √ and portable_log,
// so a seed gives the same numbers on every platform.
double chi_square(Rng& rng, std::size_t k) {
  if (k == 1) {
    const double z = rng.normal();
    return z * z;
  }
  const double d = double(k) / 2.0 - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return 2.0 * d * v;
    if (u > 0.0 && portable_log(u) < 0.5 * x * x + d * (1.0 - v + portable_log(v))) return 2.0 * d * v;
  }
}

// NumPy's default percentile: linear between the two sorted values around rank (n − 1)·q.
double percentile_sorted(const std::vector<double>& sorted, double q) {
  const double rank = double(sorted.size() - 1) * q;
  const std::size_t lo = std::size_t(rank);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - double(lo));
}

RowMeasure measure(std::vector<double> x, double threshold) {
  RowMeasure m;
  m.mean = mean(x.data(), x.size());
  std::size_t below = 0;
  for (double v : x) below += v < threshold ? 1 : 0;
  m.share_below = double(below) / double(x.size());
  std::sort(x.begin(), x.end());
  m.quartiles = {percentile_sorted(x, 0.25), percentile_sorted(x, 0.5), percentile_sorted(x, 0.75)};
  return m;
}

}  // namespace

double softmax_jacobian_norm(const double* s, std::size_t n) { return softmax_row_measures(s, n).jacobian_norm; }

SoftmaxRowMeasures softmax_row_measures(const double* s, std::size_t n) {
  if (n == 0) throw Error("a softmax row needs at least one score");
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(s[i]) || s[i] == std::numeric_limits<double>::infinity()) {
      throw Error("softmax: entry " + std::to_string(i + 1) + " is " + (std::isnan(s[i]) ? "NaN" : "+Infinity") +
                  "; scores must be finite numbers or -Infinity (hidden)");
    }
    if (s[i] > s[m]) m = i;
  }
  if (s[m] == -std::numeric_limits<double>::infinity()) return {};  // every key hidden: p = 0
  // e_j = exp(s_j − s_max) ≤ 1, e_max = 1; rest = the others' sum, so 1 − p_max = rest/(1 + rest)
  // without the cancellation of 1 − p_max when p_max rounds to 1.
  std::vector<double> e(n);
  double rest = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    e[j] = j == m ? 1.0 : portable_exp(s[j] - s[m]);
    if (j != m) rest += e[j];
  }
  if (rest == 0.0) return {};  // one-hot to double precision: the Jacobian and the entropy are 0
  const double z = 1.0 + rest, pm = 1.0 / z, w = rest / z;  // w = 1 − p_max
  // H = −Σ p_j ln p_j = ln z − Σ p_j (s_j − s_max), two terms ≥ 0 added; hidden keys add nothing.
  SoftmaxRowMeasures out;
  double spread = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    if (j != m && e[j] > 0.0) spread += (e[j] / z) * (s[j] - s[m]);
  }
  // ln z = ln(1 + rest) by Goldberg's log1p (exact to a few ulp where 1 + rest rounds), so a
  // nearly one-hot row keeps the digits of its tiny entropy.
  const double log_z = z == 1.0 ? rest : portable_log(z) * rest / (z - 1.0);
  out.entropy = log_z - spread;
  // ‖J‖² = Σ_i p_i²·((1 − p_i)² + Σ_{k≠i} p_k²). With r_j = e_j/rest = p_j/w for j ≠ max (so the
  // r_j sum to 1 and cannot underflow while w is representable), every term has a factor w²,
  // taken out before the square root: ‖J‖ = w·√B.
  double r2 = 0.0;  // Σ_{j≠max} r_j²
  for (std::size_t j = 0; j < n; ++j) {
    if (j != m) r2 += (e[j] / rest) * (e[j] / rest);
  }
  const double rest2 = w * w * r2;  // Σ_{j≠max} p_j²
  double b = pm * pm * (1.0 + r2);  // the max's row: p_max²·((1 − p_max)² + rest2) / w²
  for (std::size_t j = 0; j < n; ++j) {
    if (j == m) continue;
    const double r = e[j] / rest, p = e[j] / z;  // p_j ≤ p_max, so 1 − p_j ≥ ½: no cancellation
    b += r * r * ((1.0 - p) * (1.0 - p) + pm * pm + (rest2 - p * p));
  }
  out.jacobian_norm = w * std::sqrt(b);
  return out;
}

RowStudy scaling_row_study(const RowStudyOptions& options) {
  validate_range("dk", options.dk, 1, limits::kMaxScalingDk);
  validate_range("rows", options.rows, 1, limits::kMaxScalingRows);
  validate_range("row", options.row, 2, limits::kMaxScalingRow);
  if (!(std::isfinite(options.threshold) && options.threshold > 0.0)) {
    throw Error("threshold must be a finite number greater than 0");
  }
  // In range, so each fits a size_t.
  const auto n = std::size_t(options.row), rows = std::size_t(options.rows), dk = std::size_t(options.dk);
  const double root = std::sqrt(double(dk));
  // A stream per d_k (Rng spreads the seed with splitmix64), apart from scaling_experiment's.
  Rng rng(options.seed ^ (0xd1b54a32d192ed03ULL * (options.dk + 1)));
  std::vector<double> s(n), scaled(n);
  std::vector<double> grad_u(rows), grad_s(rows), ent_u(rows), ent_s(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < n; ++j) {
      const double norm_q = std::sqrt(chi_square(rng, dk));
      s[j] = norm_q * rng.normal();
      scaled[j] = s[j] / root;
    }
    const SoftmaxRowMeasures u = softmax_row_measures(s.data(), n), c = softmax_row_measures(scaled.data(), n);
    grad_u[r] = u.jacobian_norm;
    grad_s[r] = c.jacobian_norm;
    ent_u[r] = u.entropy;
    ent_s[r] = c.entropy;
  }
  RowStudy study;
  study.options = options;
  study.gradient_unscaled = measure(std::move(grad_u), options.threshold);
  study.gradient_scaled = measure(std::move(grad_s), options.threshold);
  study.entropy_unscaled = measure(std::move(ent_u), 0.0);
  study.entropy_scaled = measure(std::move(ent_s), 0.0);
  study.max_entropy = portable_log(double(n));
  study.uniform_gradient = std::sqrt(double(n - 1)) / double(n);
  return study;
}

ScalingResult scaling_experiment(const ScalingOptions& options) {
  validate_range("dk", options.dk, 1, limits::kMaxScalingDk);
  validate_range("pairs", options.pairs, 1, limits::kMaxScalingPairs);
  validate_range("bins", options.bins, 1, limits::kMaxScalingBins);
  validate_range("row", options.row, 2, limits::kMaxScalingRow);
  if (options.pairs < options.row) {
    throw Error("row needs " + std::to_string(options.row) + " scores but pairs is " +
                std::to_string(options.pairs) + ": take at least as many pairs as the row has scores");
  }
  // In range, so each fits a size_t.
  const auto d = std::size_t(options.dk), pairs = std::size_t(options.pairs), bins = std::size_t(options.bins);
  const auto row = std::ptrdiff_t(options.row);
  const double root = std::sqrt(double(d));

  Rng rng(options.seed);
  std::vector<double> q(d), s(pairs), scaled(pairs);
  for (std::size_t p = 0; p < pairs; ++p) {
    for (double& x : q) x = rng.normal();
    double dot = 0.0;
    for (std::size_t t = 0; t < d; ++t) dot += q[t] * rng.normal();
    s[p] = dot;
    scaled[p] = dot / root;
  }

  ScalingResult r;
  r.options = options;
  r.expected_std = root;
  r.unscaled = summarize(s, 4.0 * root, bins);
  r.scaled = summarize(scaled, 4.0, bins);
  r.scores.assign(s.begin(), s.begin() + row);
  r.softmax_unscaled = softmax_row(r.scores);
  r.softmax_scaled = softmax_row({scaled.begin(), scaled.begin() + row});
  r.max_entropy = portable_log(double(options.row));
  return r;
}

}  // namespace attn
