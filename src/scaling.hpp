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

// Counts are 64-bit, as a caller gives them, so that the range checks see the value itself: on
// wasm32 a size_t would have wrapped 2³² + 1 to 1 before any check.
struct ScalingOptions {
  std::uint64_t dk = 64;       // 1..limits::kMaxScalingDk
  std::uint64_t pairs = 10000; // 1..limits::kMaxScalingPairs, and at least `row`
  std::uint64_t seed = 0;
  std::uint64_t bins = 40;     // 1..limits::kMaxScalingBins
  std::uint64_t row = 64;      // scores in the softmax row, 2..limits::kMaxScalingRow
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

// The lesson's *why*: how much gradient a softmax row passes back, over many rows.
//
// ‖∂softmax(s)/∂s‖_F of one row of n scores: with p = softmax(s), the Jacobian is
// J_ij = p_i(δ_ij − p_j), and this is √(Σ_ij J_ij²). Uniform weights give √(n − 1)/n (0.124 for
// n = 64); a one-hot row gives 0: a saturated softmax passes (almost) no gradient to its scores.
// Computed so that nearly one-hot rows keep their digits: 1 − p_max comes from the sum of the
// other exponentials, never from 1 − p_max itself, and the sum is scaled by 1 − p_max so the
// squares cannot underflow before the square root (a gap of 400 gives about 1e-174, not 0).
// -inf entries are hidden keys (weight 0); a row that is all -inf gives 0. Throws attn::Error for
// n = 0, NaN or +inf.
double softmax_jacobian_norm(const double* scores, std::size_t n);

// Both measures of one row from one pass of exponentials: the Jacobian's norm as above and the
// entropy of softmax(scores) in nats (as entropy(softmax(scores)) of statistics.hpp, from
// ln p_j = (s_j − s_max) − ln Σ_k e^{s_k − s_max}: one logarithm a row, not one a score). A row
// that is all -inf has weights 0 and gives 0 for both. Throws as softmax_jacobian_norm.
struct SoftmaxRowMeasures {
  double jacobian_norm = 0.0;
  double entropy = 0.0;
};
SoftmaxRowMeasures softmax_row_measures(const double* scores, std::size_t n);

struct RowStudyOptions {  // counts 64-bit, as in ScalingOptions
  std::uint64_t dk = 64;       // 1..limits::kMaxScalingDk
  std::uint64_t rows = 1000;   // 1..limits::kMaxScalingRows
  std::uint64_t row = 64;      // scores per row, 2..limits::kMaxScalingRow
  std::uint64_t seed = 0;
  double threshold = 0.01;   // a row "passes almost no gradient" below this norm; finite, > 0
};

// The quartiles of a sample, NumPy's default (linear) method: the value at rank (count − 1)·q of
// the sorted sample, interpolated between its neighbours.
struct Quartiles {
  double q1 = 0.0, median = 0.0, q3 = 0.0;
};

struct RowMeasure {
  Quartiles quartiles;
  double mean = 0.0;
  double share_below = 0.0;  // the share of rows below options.threshold (gradients only)
};

struct RowStudy {
  RowStudyOptions options;
  RowMeasure gradient_unscaled, gradient_scaled;  // ‖∂softmax/∂s‖_F per row
  RowMeasure entropy_unscaled, entropy_scaled;    // nats per row (share_below unused: 0)
  double max_entropy = 0.0;                       // ln(row)
  double uniform_gradient = 0.0;                  // √(row − 1)/row, the norm of a uniform row
};

// `rows` rows of `row` scores s = q·k, each score of its own independent standard-normal q and k
// of length d_k, through the softmax unscaled and divided by √d_k; per row the Jacobian's norm and
// the entropy, summarised over the rows. Each score is drawn as ‖q‖·z with ‖q‖² chi-square with
// d_k degrees of freedom (a gamma variate, Marsaglia and Tsang 2000) and z standard normal: that
// is exactly the law of q·k (turn the axes so that q lies along the first one; k's coordinate
// there is a standard normal independent of q), and it costs O(1) per score instead of 2·d_k
// normals, so 1,000 rows at d_k = 1024 take milliseconds. The rows come from Rng seeded by seed
// and d_k, so a d_k's rows are the same whichever other d_k were studied. Throws attn::Error when
// an option is out of range.
RowStudy scaling_row_study(const RowStudyOptions& options);

// Pair p draws q (d_k normals) and then k (d_k normals) from Rng(seed), in that order, so a
// seed gives the same numbers everywhere. The dot products are accumulated in double.
// Throws attn::Error when an option is out of range.
ScalingResult scaling_experiment(const ScalingOptions& options);

}  // namespace attn
