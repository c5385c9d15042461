// Mean, standard deviation, histogram, softmax and entropy in double.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "error.hpp"
#include "statistics.hpp"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double sum(const std::vector<double>& x) { return std::accumulate(x.begin(), x.end(), 0.0); }

}  // namespace

TEST_CASE("mean and population standard deviation") {
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};  // the textbook example: σ = 2
  CHECK(attn::mean(x.data(), x.size()) == 5.0);
  CHECK(attn::std_dev(x.data(), x.size()) == 2.0);  // population (÷n); the sample one is 2.138
  const std::vector<double> one{3.5};
  CHECK(attn::std_dev(one.data(), 1) == 0.0);
  // Two passes: a large offset does not cancel the spread away.
  const std::vector<double> shifted{1e9 + 1, 1e9 - 1, 1e9 + 1, 1e9 - 1};
  CHECK(attn::std_dev(shifted.data(), shifted.size()) == 1.0);
  CHECK_THROWS_WITH_AS(attn::mean(x.data(), 0), "mean needs at least one value", attn::Error);
  CHECK_THROWS_AS(attn::std_dev(x.data(), 0), attn::Error);
}

TEST_CASE("histogram: equal bins, edges, and counts outside the range kept apart") {
  const std::vector<double> x{-5, -1, -0.5, 0, 0.25, 0.999, 1, 1.0000001, 7};
  const attn::Histogram h = attn::histogram(x.data(), x.size(), -1, 1, 4);
  CHECK(h.lo == -1);
  CHECK(h.hi == 1);
  // Bins [-1, -0.5), [-0.5, 0), [0, 0.5), [0.5, 1]: the top edge belongs to the last bin.
  CHECK(h.counts == std::vector<std::uint64_t>{1, 1, 2, 2});
  CHECK(h.below == 1);
  CHECK(h.above == 2);
  std::uint64_t total = h.below + h.above;
  for (auto c : h.counts) total += c;
  CHECK(total == x.size());
  CHECK_THROWS_AS(attn::histogram(x.data(), x.size(), 1, 1, 4), attn::Error);
  CHECK_THROWS_WITH_AS(attn::histogram(x.data(), x.size(), -1, 1, 0),
                       "a histogram needs at least 1 bin", attn::Error);
  const std::vector<double> bad{0, std::nan("")};
  CHECK_THROWS_WITH_AS(attn::histogram(bad.data(), 2, -1, 1, 2),
                       "histogram: entry 2 is not a finite number", attn::Error);
}

TEST_CASE("softmax in double: stable, masked entries 0, all masked gives zeros") {
  const std::vector<double> x{1, 2, 3};
  const std::vector<double> p = attn::softmax(x.data(), 3);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(p[0] == doctest::Approx(std::exp(1.0) / z).epsilon(1e-15));
  CHECK(p[2] == doctest::Approx(std::exp(3.0) / z).epsilon(1e-15));
  CHECK(sum(p) == doctest::Approx(1.0).epsilon(1e-15));
  // Adding a constant changes nothing, even one that would overflow exp without the max.
  const std::vector<double> big{1001, 1002, 1003};
  const std::vector<double> q = attn::softmax(big.data(), 3);
  for (int i = 0; i < 3; ++i) CHECK(q[i] == doctest::Approx(p[i]).epsilon(1e-14));
  const std::vector<double> masked{0, -kInf, 0};
  CHECK(attn::softmax(masked.data(), 3) == std::vector<double>{0.5, 0.0, 0.5});
  const std::vector<double> all_masked{-kInf, -kInf};
  CHECK(attn::softmax(all_masked.data(), 2) == std::vector<double>{0.0, 0.0});
  const std::vector<double> plus_inf{0, kInf};
  CHECK_THROWS_WITH_AS(attn::softmax(plus_inf.data(), 2),
                       "softmax: entry 2 is +Infinity; scores must be finite or -Infinity (hidden)",
                       attn::Error);
}

TEST_CASE("entropy in nats: 0 ≤ H ≤ ln n, ln n for uniform, 0 for one-hot") {
  for (std::size_t n : {1u, 2u, 3u, 64u, 1000u}) {
    CAPTURE(n);
    const std::vector<double> uniform(n, 1.0 / double(n));
    CHECK(attn::entropy(uniform.data(), n) == doctest::Approx(std::log(double(n))).epsilon(1e-12));
    std::vector<double> one_hot(n, 0.0);
    one_hot[n / 2] = 1.0;
    CHECK(attn::entropy(one_hot.data(), n) == 0.0);  // 0·ln 0 = 0
  }
  const std::vector<double> half{0.5, 0.5, 0.0};
  CHECK(attn::entropy(half.data(), 3) == doctest::Approx(std::log(2.0)).epsilon(1e-15));
  // Random distributions stay inside the bounds.
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> s(10);
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = std::sin(double(trial * 10 + int(i))) * 5.0;
    const std::vector<double> p = attn::softmax(s.data(), s.size());
    const double h = attn::entropy(p.data(), p.size());
    CHECK(h >= 0.0);
    CHECK(h <= std::log(10.0) + 1e-12);
  }
  const std::vector<double> not_one{0.5, 0.4};
  CHECK_THROWS_WITH_AS(attn::entropy(not_one.data(), 2),
                       "entropy: the probabilities sum to 0.900000, not 1; pass a probability "
                       "vector such as a row of attention weights",
                       attn::Error);
  const std::vector<double> negative{1.5, -0.5};
  CHECK_THROWS_AS(attn::entropy(negative.data(), 2), attn::Error);
  CHECK_THROWS_AS(attn::entropy(negative.data(), 0), attn::Error);
}
