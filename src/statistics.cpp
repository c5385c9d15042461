#include "statistics.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "error.hpp"
#include "portable_math.hpp"

namespace attn {

namespace {

void require_values(const char* what, std::size_t n) {
  if (n == 0) throw Error(std::string(what) + " needs at least one value");
}

std::string entry(std::size_t i) { return "entry " + std::to_string(i + 1); }

}  // namespace

double mean(const double* x, std::size_t n) {
  require_values("mean", n);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += x[i];
  return sum / double(n);
}

double std_dev(const double* x, std::size_t n) {
  require_values("standard deviation", n);
  const double mu = mean(x, n);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += (x[i] - mu) * (x[i] - mu);
  return std::sqrt(sum / double(n));
}

Histogram histogram(const double* x, std::size_t n, double lo, double hi, std::size_t bins) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
    throw Error("a histogram needs a finite range with lo < hi, got " + std::to_string(lo) +
                " to " + std::to_string(hi));
  }
  if (bins == 0) throw Error("a histogram needs at least 1 bin");
  Histogram h;
  h.lo = lo;
  h.hi = hi;
  h.counts.assign(bins, 0);
  const double width = (hi - lo) / double(bins);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) throw Error("histogram: " + entry(i) + " is not a finite number");
    if (x[i] < lo) {
      ++h.below;
    } else if (x[i] > hi) {
      ++h.above;
    } else {
      // Rounding can put a value just under a bin edge into the next bin, and x = hi past the
      // end; clamp to the last bin.
      const auto b = std::size_t((x[i] - lo) / width);
      ++h.counts[b < bins ? b : bins - 1];
    }
  }
  return h;
}

std::vector<double> softmax(const double* x, std::size_t n) {
  require_values("softmax", n);
  double max = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i]) || x[i] == std::numeric_limits<double>::infinity()) {
      throw Error("softmax: " + entry(i) + " is " + (std::isnan(x[i]) ? "NaN" : "+Infinity") +
                  "; scores must be finite or -Infinity (hidden)");
    }
    if (x[i] > max) max = x[i];
  }
  std::vector<double> out(n, 0.0);
  if (max == -std::numeric_limits<double>::infinity()) return out;  // every entry hidden
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += out[i] = portable_exp(x[i] - max);
  for (double& p : out) p /= sum;  // sum >= 1: the max entry contributes exp(0)
  return out;
}

double entropy(const double* p, std::size_t n) {
  require_values("entropy", n);
  double sum = 0.0, h = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(p[i]) || p[i] < 0.0) {
      throw Error("entropy: " + entry(i) + " is " + std::to_string(p[i]) +
                  "; probabilities must be finite numbers >= 0");
    }
    sum += p[i];
    if (p[i] > 0.0) h -= p[i] * portable_log(p[i]);  // 0·ln 0 = 0, the limit of p·ln p
  }
  if (std::fabs(sum - 1.0) > kProbabilitySumTolerance) {
    throw Error("entropy: the probabilities sum to " + std::to_string(sum) +
                ", not 1; pass a probability vector such as a row of attention weights");
  }
  // A one-hot vector gives -1·ln 1 = -0; rounding elsewhere cannot make it negative.
  return h > 0.0 ? h : 0.0;
}

}  // namespace attn
