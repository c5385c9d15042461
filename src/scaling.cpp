#include "scaling.hpp"

#include <cmath>
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

}  // namespace

ScalingResult scaling_experiment(const ScalingOptions& options) {
  validate_range("dk", options.dk, 1, limits::kMaxScalingDk);
  validate_range("pairs", options.pairs, 1, limits::kMaxScalingPairs);
  validate_range("bins", options.bins, 1, limits::kMaxScalingBins);
  validate_range("row", options.row, 2, limits::kMaxScalingRow);
  if (options.pairs < options.row) {
    throw Error("row needs " + std::to_string(options.row) + " scores but pairs is " +
                std::to_string(options.pairs) + ": take at least as many pairs as the row has scores");
  }
  const std::size_t d = options.dk;
  const double root = std::sqrt(double(d));

  Rng rng(options.seed);
  std::vector<double> q(d), s(options.pairs), scaled(options.pairs);
  for (std::size_t p = 0; p < options.pairs; ++p) {
    for (double& x : q) x = rng.normal();
    double dot = 0.0;
    for (std::size_t t = 0; t < d; ++t) dot += q[t] * rng.normal();
    s[p] = dot;
    scaled[p] = dot / root;
  }

  ScalingResult r;
  r.options = options;
  r.expected_std = root;
  r.unscaled = summarize(s, 4.0 * root, options.bins);
  r.scaled = summarize(scaled, 4.0, options.bins);
  r.scores.assign(s.begin(), s.begin() + std::ptrdiff_t(options.row));
  r.softmax_unscaled = softmax_row(r.scores);
  r.softmax_scaled = softmax_row({scaled.begin(), scaled.begin() + std::ptrdiff_t(options.row)});
  r.max_entropy = portable_log(double(options.row));
  return r;
}

}  // namespace attn
