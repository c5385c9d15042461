#pragma once
// The lesson's experiment on the √d_k: sample pairs of standard-normal vectors q, k of length
// d_k, look at the spread of s = q·k before and after dividing by √d_k, and feed a row of such
// scores through the softmax with and without the scaling.
//
// Why √d_k: s = Σ_t q_t k_t is a sum of d_k independent products with mean 0 and variance
// E[q²]E[k²] = 1, so Var(s) = d_k and std(s) = √d_k. Unscaled, the scores of a row differ by
// several √d_k, and the softmax of a row with gaps that large is nearly one-hot.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "limits.hpp"
#include "statistics.hpp"

namespace attn {

struct ScalingOptions {
  std::size_t dk = 64;       // 1..limits::kMaxScalingDk
  std::size_t pairs = 10000; // 1..limits::kMaxScalingPairs, and at least `row`
  std::uint64_t seed = 0;
  std::size_t bins = 40;     // 1..limits::kMaxScalingBins
  std::size_t row = 64;      // scores in the softmax row, 2..limits::kMaxScalingRow
};

struct SampleSummary {
  double mean = 0.0;
  double std = 0.0;       // population standard deviation (statistics.hpp)
  Histogram histogram;
};

struct SoftmaxRow {
  std::vector<double> weights;
  double entropy = 0.0;   // nats
};

struct ScalingResult {
  ScalingOptions options;
  double expected_std = 0.0;      // √d_k
  SampleSummary unscaled;         // s = q·k; histogram over ±4·√d_k
  SampleSummary scaled;           // s/√d_k; histogram over ±4
  std::vector<double> scores;     // the first `row` unscaled s
  SoftmaxRow softmax_unscaled;    // softmax(scores)
  SoftmaxRow softmax_scaled;      // softmax(scores/√d_k)
  double max_entropy = 0.0;       // ln(row), the entropy of the uniform row
};

// Pair p draws q (d_k normals) and then k (d_k normals) from Rng(seed), in that order, so a
// seed gives the same numbers everywhere. The dot products are accumulated in double.
// Throws attn::Error when an option is out of range.
ScalingResult scaling_experiment(const ScalingOptions& options);

}  // namespace attn
