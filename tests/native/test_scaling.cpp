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

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "error.hpp"
#include "random.hpp"
#include "reference/softmax_jacobian_ref.hpp"
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
  CHECK_THROWS_WITH_AS(attn::scaling_experiment(bad), "dk must be a whole number from 1 to 1024 (got 0)",
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

// ‖∂softmax/∂s‖_F: closed forms, then the long-double reference on seeded rows of every kind.
TEST_CASE("the softmax Jacobian's norm matches its closed forms, also where the row is one-hot") {
  // Uniform weights 1/n: ‖J‖ = √(n − 1)/n.
  for (std::size_t n : {2u, 3u, 64u, 256u}) {
    const std::vector<double> row(n, 0.7);
    CAPTURE(n);
    CHECK(attn::softmax_jacobian_norm(row.data(), n) ==
          doctest::Approx(std::sqrt(double(n - 1)) / double(n)).epsilon(1e-14));
  }
  // Two scores a gap g apart: p = σ(g), J = p(1 − p)·[[1, −1], [−1, 1]], ‖J‖ = 2p(1 − p)
  // = 2e^{−g}/(1 + e^{−g})². At g = 40 and 400 the naive Σp² − 2Σp³ + (Σp²)² cancels to 0 or
  // noise; the value is 8.5e-18 and 3.8e-174.
  for (double g : {0.0, 1e-3, 1.0, 10.0, 40.0, 400.0}) {
    const double row[2] = {5.0, 5.0 - g};
    const double t = std::exp(-g), expected = 2.0 * t / ((1.0 + t) * (1.0 + t));
    CAPTURE(g);
    CHECK(attn::softmax_jacobian_norm(row, 2) == doctest::Approx(expected).epsilon(1e-13));
    const double swapped[2] = {row[1], row[0]};
    CHECK(attn::softmax_jacobian_norm(swapped, 2) == doctest::Approx(expected).epsilon(1e-13));
  }
  // One score alone, a row one-hot beyond double's range, hidden keys, every key hidden.
  const double inf = std::numeric_limits<double>::infinity();
  const double one[1] = {3.0}, far[3] = {0.0, -800.0, -900.0}, hidden[3] = {1.0, -inf, 1.0}, none[2] = {-inf, -inf};
  CHECK(attn::softmax_jacobian_norm(one, 1) == 0.0);
  CHECK(attn::softmax_jacobian_norm(far, 3) == 0.0);
  CHECK(attn::softmax_jacobian_norm(hidden, 3) == doctest::Approx(0.5).epsilon(1e-14));  // two equal keys
  CHECK(attn::softmax_jacobian_norm(none, 2) == 0.0);
  CHECK(attn::softmax_row_measures(none, 2).entropy == 0.0);
  CHECK(attn::softmax_row_measures(hidden, 3).entropy == doctest::Approx(std::log(2.0)).epsilon(1e-14));
  const double nan = std::numeric_limits<double>::quiet_NaN(), bad[2] = {0.0, nan}, plus[2] = {inf, 0.0};
  CHECK_THROWS_AS(attn::softmax_jacobian_norm(bad, 2), attn::Error);
  CHECK_THROWS_AS(attn::softmax_jacobian_norm(plus, 2), attn::Error);
  CHECK_THROWS_AS(attn::softmax_jacobian_norm(one, 0), attn::Error);
}

TEST_CASE("the softmax Jacobian's norm agrees with the long-double reference on seeded rows") {
  const std::uint64_t seed = 2025;
  CAPTURE(seed);
  attn::Rng rng(seed);
  double worst = 0.0;
  for (std::size_t n : {2u, 3u, 7u, 64u, 255u}) {
    for (double sigma : {0.01, 1.0, 8.0, 32.0, 300.0}) {
      for (int trial = 0; trial < 6; ++trial) {
        std::vector<double> row(n);
        for (double& x : row) x = sigma * rng.normal();
        if (trial == 1) row[n / 2] = *std::max_element(row.begin(), row.end());  // a tie at the top
        if (trial == 2 && n > 2) row[0] = -std::numeric_limits<double>::infinity();  // a hidden key
        const double got = attn::softmax_jacobian_norm(row.data(), n);
        const double want = attn::reference::softmax_jacobian_norm_ref(row.data(), n);
        CAPTURE(n);
        CAPTURE(sigma);
        CAPTURE(trial);
        if (want < 1e-290) {  // a gap past about 670: the norm is below double's range
          CHECK(got < 1e-290);
          continue;
        }
        const double rel = std::fabs(got - want) / want;
        worst = std::max(worst, rel);
        CHECK(rel < 1e-12);
        // The entropy from the same pass, against the long-double entropy of the softmax.
        const double entropy = attn::reference::softmax_entropy_ref(row.data(), n);
        CHECK(attn::softmax_row_measures(row.data(), n).entropy ==
              doctest::Approx(entropy).epsilon(1e-12).scale(1e-300));
        CHECK(attn::softmax_row_measures(row.data(), n).jacobian_norm == got);
        // Adding a constant to a row changes its softmax, and so its Jacobian, not at all.
        for (double& x : row) x += 17.0;
        CHECK(attn::softmax_jacobian_norm(row.data(), n) == doctest::Approx(got).epsilon(1e-12));
      }
    }
  }
  MESSAGE("largest relative difference from the reference: " << worst);
}

// The NumPy figures (2,000 rows of 64 scores of independent q·k): scaled medians 0.18 at
// every d_k; unscaled medians 0.32, 0.17, 0.020, 0.0037, 0.0003 and shares below 0.01 of 4, 18,
// 44, 56 and 66 % at d_k = 16, 64, 256, 512, 1024. Over 1,000 rows a share has a standard error
// of at most 1.6 points: the checks allow 5 points.
TEST_CASE("the row study reproduces the lesson's gradient collapse, from d_k = 64 on") {
  struct Expect { std::size_t dk; double median_lo, median_hi, share; };
  for (const Expect e : {Expect{16, 0.27, 0.38, 0.04}, Expect{64, 0.12, 0.24, 0.18}, Expect{256, 0.012, 0.032, 0.44},
                         Expect{512, 0.0015, 0.008, 0.56}, Expect{1024, 0.00005, 0.0012, 0.66}}) {
    attn::RowStudyOptions o;
    o.dk = e.dk;
    const attn::RowStudy r = attn::scaling_row_study(o);
    CAPTURE(e.dk);
    MESSAGE("d_k " << e.dk << ": unscaled median " << r.gradient_unscaled.quartiles.median << " ["
                   << r.gradient_unscaled.quartiles.q1 << ", " << r.gradient_unscaled.quartiles.q3 << "], "
                   << r.gradient_unscaled.share_below * 100 << " % below 0.01; scaled median "
                   << r.gradient_scaled.quartiles.median << "; entropy " << r.entropy_unscaled.mean << " / "
                   << r.entropy_scaled.mean << " nats");
    CHECK(r.gradient_unscaled.quartiles.median > e.median_lo);
    CHECK(r.gradient_unscaled.quartiles.median < e.median_hi);
    CHECK(std::fabs(r.gradient_unscaled.share_below - e.share) < 0.05);
    CHECK(r.gradient_scaled.quartiles.median == doctest::Approx(0.18).epsilon(0.1));
    CHECK(r.gradient_scaled.share_below < 0.02);
    CHECK(r.gradient_unscaled.quartiles.q1 <= r.gradient_unscaled.quartiles.median);
    CHECK(r.gradient_unscaled.quartiles.median <= r.gradient_unscaled.quartiles.q3);
    CHECK(r.entropy_unscaled.mean < r.entropy_scaled.mean);
    CHECK(r.entropy_scaled.quartiles.q3 <= r.max_entropy);
  }
  // Partly saturated still passes gradient: at d_k = 4 and 16 the unscaled median is larger.
  for (std::size_t dk : {4u, 16u}) {
    attn::RowStudyOptions o;
    o.dk = dk;
    const attn::RowStudy r = attn::scaling_row_study(o);
    CAPTURE(dk);
    CHECK(r.gradient_unscaled.quartiles.median > r.gradient_scaled.quartiles.median);
  }
}

// ‖q‖·z against the definition: literal dot products of sampled q and k, through the reference,
// compared by the shares of rows below three thresholds (the whole distribution, where a median
// alone can sit on a flat stretch: at d_k = 64 the middle half spans 0.03 to 0.39). Over 800
// rows a share's standard error is at most 1.8 points; the checks allow 6.
TEST_CASE("the row study's sampling of q·k agrees with literal dot products") {
  for (std::size_t dk : {2u, 64u, 256u}) {
    for (double threshold : {0.001, 0.01, 0.1}) {
      attn::RowStudyOptions o;
      o.dk = dk;
      o.rows = 800;
      o.threshold = threshold;
      const attn::RowStudy study = attn::scaling_row_study(o);
      attn::Rng rng(99);
      std::size_t below = 0;
      std::vector<double> row(std::size_t(o.row));
      for (std::size_t r = 0; r < o.rows; ++r) {
        for (double& s : row) {
          double dot = 0.0;
          for (std::size_t t = 0; t < dk; ++t) dot += rng.normal() * rng.normal();
          s = dot;
        }
        below += attn::reference::softmax_jacobian_norm_ref(row.data(), row.size()) < threshold ? 1 : 0;
      }
      const double share = double(below) / double(o.rows);
      CAPTURE(dk);
      CAPTURE(threshold);
      MESSAGE("d_k " << dk << ", below " << threshold << ": " << study.gradient_unscaled.share_below
                     << " (literal " << share << ")");
      CHECK(std::fabs(study.gradient_unscaled.share_below - share) < 0.06);
    }
  }
}

TEST_CASE("the row study is deterministic per seed and d_k, and checks its options") {
  attn::RowStudyOptions o;
  o.dk = 8;
  o.rows = 50;
  const attn::RowStudy a = attn::scaling_row_study(o), b = attn::scaling_row_study(o);
  CHECK(a.gradient_unscaled.quartiles.median == b.gradient_unscaled.quartiles.median);
  CHECK(a.entropy_scaled.mean == b.entropy_scaled.mean);
  o.seed = 1;
  CHECK(attn::scaling_row_study(o).gradient_unscaled.mean != a.gradient_unscaled.mean);
  CHECK(a.uniform_gradient == doctest::Approx(std::sqrt(63.0) / 64.0));
  CHECK(a.max_entropy == doctest::Approx(std::log(64.0)).epsilon(1e-15));
  // One row: every quartile is that row.
  o.rows = 1;
  const attn::RowStudy one = attn::scaling_row_study(o);
  CHECK(one.gradient_scaled.quartiles.q1 == one.gradient_scaled.quartiles.q3);
  CHECK(one.gradient_scaled.mean == one.gradient_scaled.quartiles.median);

  attn::RowStudyOptions bad;
  bad.dk = 1025;
  CHECK_THROWS_WITH_AS(attn::scaling_row_study(bad), "dk must be a whole number from 1 to 1024 (got 1025)", attn::Error);
  bad = {};
  bad.rows = 0;
  CHECK_THROWS_AS(attn::scaling_row_study(bad), attn::Error);
  bad = {};
  bad.row = 1;
  CHECK_THROWS_AS(attn::scaling_row_study(bad), attn::Error);
  bad = {};
  bad.threshold = 0.0;
  CHECK_THROWS_AS(attn::scaling_row_study(bad), attn::Error);
}
