// The seeded generator: the same numbers on every platform, and normals that are normal.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "error.hpp"
#include "portable_math.hpp"
#include "random.hpp"
#include "statistics.hpp"

TEST_CASE("Rng gives the same numbers for a seed everywhere") {
  // Written down from an independent Python transcription of splitmix64 + xoshiro256** and the
  // polar method (Python floats are IEEE doubles without FMA), and checked bit for bit here in
  // every build: native SSE2, native -march=native, wasm SIMD and wasm scalar.
  attn::Rng a(0);
  CHECK(a.next_u64() == 0x99ec5f36cb75f2b4ull);
  CHECK(a.next_u64() == 0xbf6e1f784956452aull);
  CHECK(a.next_u64() == 0x1a5f849d4933e6e0ull);
  attn::Rng b(42);
  CHECK(b.next_u64() == 0x15780b2e0c2ec716ull);

  const std::vector<double> want0{0x1.323a82a4bc9e5p-1, 0x1.76a54f2c0effap+0, -0x1.ca445408b789cp-1,
                                  -0x1.81270d2ddbad6p-3, -0x1.3532999190f0ap+1};
  const std::vector<double> want42{-0x1.73d2feb0fb377p-1, -0x1.b088028693f9cp-3, 0x1.c5e21f7812a4ep-3,
                                   0x1.0ba8bb0c5fa51p-1, 0x1.db514bfac5b4ep-2};
  attn::Rng n0(0), n42(42);
  for (std::size_t i = 0; i < want0.size(); ++i) {
    CAPTURE(i);
    CHECK(n0.normal() == want0[i]);
    CHECK(n42.normal() == want42[i]);
  }
}

TEST_CASE("portable_log and portable_exp are within 2 ulp of the C library") {
  // The C library's results are within 1 ulp of the exact ones, so this allows for both.
  const auto ulps = [](double got, double want) {
    return want == 0.0 ? (got == 0.0 ? 0.0 : 1e9) : std::fabs(got - want) / (std::fabs(want) * 0x1p-52);
  };
  attn::Rng rng(7);
  double worst_log = 0.0, worst_exp = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const double u = rng.uniform() + 0x1p-53;                     // (0, 1]
    const double x = i % 2 ? u : std::ldexp(u, int(i % 2000) - 1000);  // 2⁻¹⁰⁰⁰ … 2¹⁰⁰⁰
    worst_log = std::fmax(worst_log, ulps(attn::portable_log(x), std::log(x)));
    const double y = (rng.uniform() - 0.5) * 1400.0;                 // -700 … 700
    worst_exp = std::fmax(worst_exp, ulps(attn::portable_exp(y), std::exp(y)));
  }
  MESSAGE("worst relative error: portable_log " << worst_log << " ulp, portable_exp " << worst_exp << " ulp");
  CHECK(worst_log <= 2.0);
  CHECK(worst_exp <= 2.0);
  CHECK(attn::portable_log(1.0) == 0.0);
  CHECK(attn::portable_exp(0.0) == 1.0);
  CHECK(attn::portable_exp(-std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(attn::portable_exp(1000.0) == std::numeric_limits<double>::infinity());
  CHECK(attn::portable_log(0.0) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("portable_sin_cos is within 1e-15 of the C library over its range, in every quadrant") {
  attn::Rng rng(9);
  double worst = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const double x = (rng.uniform() - 0.5) * (i % 2 ? 20.0 : 2.0e6);  // small angles and positions × frequencies up to 10⁶
    const attn::SinCos got = attn::portable_sin_cos(x);
    worst = std::fmax(worst, std::fmax(std::fabs(got.sin - std::sin(x)), std::fabs(got.cos - std::cos(x))));
  }
  MESSAGE("worst absolute error of portable_sin_cos: " << worst);
  CHECK(worst <= 1e-15);
  for (int quadrant = -8; quadrant <= 8; ++quadrant) {  // the exact multiples of π/2, where sin or cos crosses 0
    const double x = quadrant * 1.57079632679489661923;
    CAPTURE(quadrant);
    CHECK(std::fabs(attn::portable_sin_cos(x).sin - std::sin(x)) <= 1e-15);
    CHECK(std::fabs(attn::portable_sin_cos(x).cos - std::cos(x)) <= 1e-15);
  }
  CHECK(attn::portable_sin_cos(0.0).sin == 0.0);
  CHECK(attn::portable_sin_cos(0.0).cos == 1.0);
}

TEST_CASE("normals have mean 0 and standard deviation 1 within sampling error") {
  // N = 200,000 draws: the mean has standard error 1/√N ≈ 0.0022; the standard deviation
  // √((κ − 1)/(4N)) = √(2/(4N)) ≈ 0.0016 (κ = 3 for a normal). Allow 5 standard errors.
  // Also the fourth moment: E[x⁴] = 3, standard error √((E[x⁸] − 9)/N) = √(96/N) ≈ 0.022.
  const std::size_t n = 200000;
  attn::Rng rng(11);
  std::vector<double> x(n);
  double fourth = 0.0;
  for (double& v : x) {
    v = rng.normal();
    fourth += v * v * v * v;
  }
  CHECK(std::fabs(attn::mean(x.data(), n)) < 5 * std::sqrt(1.0 / n));
  CHECK(std::fabs(attn::std_dev(x.data(), n) - 1.0) < 5 * std::sqrt(2.0 / (4.0 * n)));
  CHECK(std::fabs(fourth / n - 3.0) < 5 * std::sqrt(96.0 / n));
}

TEST_CASE("normal_matrix: shape, seed, std, and clear errors") {
  const attn::Matrix a = attn::normal_matrix(3, 5, 9);
  CHECK(a.rows == 3);
  CHECK(a.cols == 5);
  CHECK(a.data == attn::normal_matrix(3, 5, 9).data);   // same seed, same numbers
  CHECK(a.data != attn::normal_matrix(3, 5, 10).data);  // another seed, others
  // std multiplies the same draws; the first entries are the first normals of the seed.
  const attn::Matrix b = attn::normal_matrix(3, 5, 9, 0.5);
  attn::Rng rng(9);
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const double z = rng.normal();
    CHECK(a.data[i] == float(z));
    CHECK(b.data[i] == float(0.5 * z));
  }
  CHECK_THROWS_WITH_AS(attn::normal_matrix(0, 2, 0), "rows must be a whole number from 1 to 256 (got 0)", attn::Error);
  CHECK_THROWS_WITH_AS(attn::normal_matrix(2, 257, 0), "cols must be a whole number from 1 to 256 (got 257)", attn::Error);
  CHECK_THROWS_WITH_AS(attn::normal_matrix(2, 2, 0, 0.0),
                       "std must be a finite number greater than 0, got 0", attn::Error);
  CHECK_THROWS_AS(attn::normal_matrix(2, 2, 0, std::nan("")), attn::Error);
}

TEST_CASE("normal_matrix: a std whose samples overflow float32 is refused, never Infinity") {
  // 256×256 draws at std 1e38 reach beyond 3.4e38 (about 45 of them at seed 0).
  CHECK_THROWS_WITH_AS(attn::normal_matrix(256, 256, 0, 1e38),
                       "std 1e+38 is too large: some samples overflow float32 (±3.4e38); use a smaller std",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::normal_matrix(2, 2, 0, -1e-50),
                       "std must be a finite number greater than 0, got -1e-50", attn::Error);
  const attn::Matrix small = attn::normal_matrix(4, 4, 0, 1e30);
  for (const float x : small.data) CHECK(std::isfinite(x));
}
