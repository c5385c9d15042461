#pragma once
// Small statistics in double for the lesson's experiments: mean, standard deviation, a
// histogram, a softmax and the entropy of a probability vector. exp and ln are
// portable_math.hpp's, so results are the same on every platform.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn {

// Arithmetic mean. Throws attn::Error for n = 0.
double mean(const double* x, std::size_t n);

// Population standard deviation √(Σ(x − mean)²/n), NumPy's default np.std (ddof = 0): the
// spread of these numbers, not an estimate corrected for a sample. Over the experiment's
// 10,000 values the two differ by a factor of √(10000/9999), 5e-5. Two passes (mean, then
// squared deviations) to avoid the cancellation of Σx² − n·mean². Throws attn::Error for n = 0.
double std_dev(const double* x, std::size_t n);

struct Histogram {
  double lo = 0.0, hi = 0.0;           // the range, split into counts.size() equal bins
  std::vector<std::uint64_t> counts;   // bin b holds lo + b·w <= x < lo + (b + 1)·w; x = hi goes in the last
  std::uint64_t below = 0;             // x < lo, not in any bin
  std::uint64_t above = 0;             // x > hi, not in any bin
};

// Every value lands in exactly one of counts, below and above. Throws attn::Error unless
// lo < hi (both finite), bins >= 1, and every value is finite.
Histogram histogram(const double* x, std::size_t n, double lo, double hi, std::size_t bins);

// softmax(x)_i = exp(x_i − max) / Σ_j exp(x_j − max), with the max subtracted so nothing
// overflows. -inf entries (hidden) get 0; a vector that is all -inf gives all zeros, as a fully
// masked row does in attention. Throws attn::Error for n = 0, NaN or +inf.
std::vector<double> softmax(const double* x, std::size_t n);

// Entropy in nats, H(p) = −Σ p_i ln p_i with 0·ln 0 = 0: 0 for a one-hot vector, ln(n) for the
// uniform one, and in between otherwise. Throws attn::Error for n = 0, an entry that is not a
// finite number >= 0, or entries whose sum is not 1 within kProbabilitySumTolerance (float32
// attention weights sum to 1 within it; see checks.hpp).
inline constexpr double kProbabilitySumTolerance = 1e-5;
double entropy(const double* p, std::size_t n);

}  // namespace attn
