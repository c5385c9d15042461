// The lesson's √d_k experiment, against its expectations within sampling error.
//
// Tolerances. s = Σ_{t=1..d} q_t k_t with q_t, k_t independent N(0, 1). Each product has mean 0,
// variance 1 and E[(qk)⁴] = E[q⁴]·E[k⁴] = 9, so s has mean 0, variance d and fourth moment
// E[s⁴] = d·9 + 3·d(d − 1)·1 = 3d² + 6d: kurtosis κ = E[s⁴]/d² = 3 + 6/d.
// Over N samples the sample mean has standard error σ/√N and the sample standard deviation
// (delta method on the sample variance, whose variance is σ⁴(κ − 1)/N) about σ·√((κ − 1)/(4N)).
// With σ = √d (unscaled) or 1 (scaled) and N = 10,000 pairs, the checks allow 5 standard
// errors: for d = 1, κ = 9 and the std of s is 1 ± 5·0.0141; for d = 512, κ ≈ 3.01 and it is
// 22.63 ± 5·0.160.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "error.hpp"
#include "scaling.hpp"

namespace {

std::uint64_t total(const attn::Histogram& h) {
  std::uint64_t t = h.below + h.above;
  for (auto c : h.counts) t += c;
  return t;
}

double std_error_of_std(double sigma, double kurtosis, double n) {
  return sigma * std::sqrt((kurtosis - 1.0) / (4.0 * n));
}

}  // namespace

TEST_CASE("q·k has standard deviation √d_k before scaling and 1 after, mean 0") {
  for (std::size_t dk : {1u, 16u, 64u, 512u}) {
    attn::ScalingOptions o;
    o.dk = dk;
    const attn::ScalingResult r = attn::scaling_experiment(o);
    const double n = double(o.pairs), root = std::sqrt(double(dk));
    const double kurtosis = 3.0 + 6.0 / double(dk);
    const double se_unscaled = std_error_of_std(root, kurtosis, n);
    const double se_scaled = std_error_of_std(1.0, kurtosis, n);
    CAPTURE(dk);
    MESSAGE("d_k " << dk << ": std before " << r.unscaled.std << " (√d_k = " << root << " ± "
                   << se_unscaled << "), after " << r.scaled.std << " (1 ± " << se_scaled
                   << "); means " << r.unscaled.mean << ", " << r.scaled.mean);
    CHECK(r.expected_std == root);
    CHECK(std::fabs(r.unscaled.std - root) < 5 * se_unscaled);
    CHECK(std::fabs(r.scaled.std - 1.0) < 5 * se_scaled);
    CHECK(std::fabs(r.unscaled.mean) < 5 * root / std::sqrt(n));
    CHECK(std::fabs(r.scaled.mean) < 5 / std::sqrt(n));
    // The scaled sample is the unscaled one divided by √d_k.
    CHECK(r.scaled.std == doctest::Approx(r.unscaled.std / root).epsilon(1e-12));
    // Histograms: ±4σ, every sample counted once.
    CHECK(r.unscaled.histogram.lo == -4 * root);
    CHECK(r.unscaled.histogram.hi == 4 * root);
    CHECK(r.scaled.histogram.lo == -4.0);
    CHECK(r.unscaled.histogram.counts.size() == o.bins);
    CHECK(total(r.unscaled.histogram) == o.pairs);
    CHECK(total(r.scaled.histogram) == o.pairs);
  }
}

TEST_CASE("unscaled softmax at d_k = 1024 is nearly one-hot, scaled it spreads out") {
  attn::ScalingOptions o;
  o.dk = 1024;
  const attn::ScalingResult r = attn::scaling_experiment(o);
  MESSAGE("d_k 1024, seed 0, row of 64: entropy unscaled " << r.softmax_unscaled.entropy
                                                         << " nats, scaled " << r.softmax_scaled.entropy
                                                         << ", max ln 64 = " << r.max_entropy);
  CHECK(r.max_entropy == doctest::Approx(std::log(64.0)).epsilon(1e-15));
  CHECK(r.scores.size() == 64);
  CHECK(r.softmax_unscaled.weights.size() == 64);
  CHECK(r.softmax_unscaled.entropy < 0.5);
  CHECK(r.softmax_scaled.entropy > 3.0);
  CHECK(r.softmax_scaled.entropy <= r.max_entropy);
  // Over several seeds too, not just a lucky one: the unscaled row is far more concentrated.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    o.seed = seed;
    o.pairs = 64;
    const attn::ScalingResult s = attn::scaling_experiment(o);
    CAPTURE(seed);
    MESSAGE("seed " << seed << ": entropy unscaled " << s.softmax_unscaled.entropy << ", scaled "
                    << s.softmax_scaled.entropy);
    CHECK(s.softmax_unscaled.entropy < 1.0);
    CHECK(s.softmax_scaled.entropy > 3.0);
  }
}

TEST_CASE("the scaling experiment is deterministic per seed and checks its options") {
  attn::ScalingOptions o;
  o.dk = 8;
  o.pairs = 300;
  o.row = 5;
  o.bins = 7;
  const attn::ScalingResult a = attn::scaling_experiment(o);
  const attn::ScalingResult b = attn::scaling_experiment(o);
  CHECK(a.scores == b.scores);
  CHECK(a.unscaled.histogram.counts == b.unscaled.histogram.counts);
  CHECK(a.unscaled.std == b.unscaled.std);
  CHECK(a.scores.size() == 5);
  CHECK(a.softmax_scaled.weights.size() == 5);
  o.seed = 1;
  CHECK(attn::scaling_experiment(o).scores != a.scores);

  attn::ScalingOptions bad;
  bad.dk = 0;
  CHECK_THROWS_WITH_AS(attn::scaling_experiment(bad), "dk must be a whole number from 1 to 1024, got 0",
                       attn::Error);
  bad = {};
  bad.pairs = 100001;
  CHECK_THROWS_AS(attn::scaling_experiment(bad), attn::Error);
  bad = {};
  bad.row = 1;
  CHECK_THROWS_AS(attn::scaling_experiment(bad), attn::Error);
  bad = {};
  bad.bins = 201;
  CHECK_THROWS_AS(attn::scaling_experiment(bad), attn::Error);
  bad = {};
  bad.pairs = 10;
  CHECK_THROWS_WITH_AS(attn::scaling_experiment(bad),
                       "row needs 64 scores but pairs is 10: take at least as many pairs as the row has scores",
                       attn::Error);
}
