// The power-law fit behind the cost lab's log-log slope.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "error.hpp"
#include "fit.hpp"

TEST_CASE("power-law fit: exact on y = c·x^k, robust to noise, clear on bad input") {
  const std::vector<double> n = {32, 64, 128, 256, 512, 1024};
  std::vector<double> quadratic, noisy;
  for (std::size_t i = 0; i < n.size(); ++i) {
    quadratic.push_back(3e-9 * n[i] * n[i]);
    noisy.push_back(quadratic.back() * (i % 2 ? 1.1 : 0.9));  // ±10 %, like a noisy timer
  }
  const attn::PowerLaw exact = attn::fit_power_law(n, quadratic);
  CHECK(exact.exponent == doctest::Approx(2).epsilon(1e-12));
  CHECK(exact.coefficient == doctest::Approx(3e-9).epsilon(1e-9));
  CHECK(attn::fit_power_law(n, noisy).exponent == doctest::Approx(2).epsilon(0.05));
  CHECK(attn::fit_power_law({1, 10}, {5, 5}).exponent == doctest::Approx(0).epsilon(1e-12));

  CHECK_THROWS_WITH_AS(attn::fit_power_law({1}, {1}), "a power-law fit needs at least two points", attn::Error);
  CHECK_THROWS_WITH_AS(attn::fit_power_law({2, 2}, {1, 3}), "a power-law fit needs at least two different x values",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::fit_power_law({1, 2}, {1, 0}), "a power-law fit needs finite values above 0 (point 2)",
                       attn::Error);
  CHECK_THROWS_AS(attn::fit_power_law({1, 2}, {1, std::nan("")}), attn::Error);
  CHECK_THROWS_AS(attn::fit_power_law({1, 2, 3}, {1, 2}), attn::Error);
}
