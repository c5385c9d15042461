// The live checks the page shows: rows sum to 1, outputs inside the values' hull, float32 against float64.
#include <doctest/doctest.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <limits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks.hpp"
#include "error.hpp"
#include "reference/attention_ref.hpp"
#include "support/fixtures.hpp"
#include "support/random.hpp"
#include "support/seed.hpp"

using attn::Matrix;

TEST_CASE("checks pass for correct attention on random inputs, d_v from 1 to 4") {
  ATTN_SEEDED_RANDOM(rng, 31);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 1 + rng.index(8), d = 1 + rng.index(8), dv = 1 + rng.index(4);
    CAPTURE(trial); CAPTURE(n); CAPTURE(dv);
    const Matrix q = rng.matrix(n, d, -3, 3), k = rng.matrix(n, d, -3, 3), v = rng.matrix(n, dv, -5, 5);
    attn::AttentionOptions o;
    o.mask = trial % 2 ? attn::Mask::causal() : attn::Mask::none();
    const auto c = attn::check_attention(attn::attention(q, k, v, o), v);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(c.row_sums[i] == doctest::Approx(1.0).epsilon(1e-6));
      CHECK(c.row_sums_to_one[i] == 1);
      CHECK(c.output_in_hull[i] == 1);
    }
    CHECK(c.hull.empty() == (dv != 2));
  }
}

TEST_CASE("checks fail visibly when the mask is applied after the softmax") {
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1, 0}, {0, 1}, {1, 1}};
  attn::AttentionOptions o;
  o.mask = attn::Mask::causal();
  o.pitfalls.mask_after_softmax = true;
  const auto c = attn::check_attention(attn::attention(q, k, v, o), v);
  CHECK(c.row_sums[0] == doctest::Approx(0.445808).epsilon(1e-5));
  CHECK(c.row_sums_to_one == std::vector<std::uint8_t>{0, 0, 1});
  // Row 1 becomes 0.446·v₁ = (0.446, 0): pulled toward the origin, out of the triangle.
  CHECK(c.output_in_hull[0] == 0);
  CHECK(c.output_in_hull[2] == 1);
}

TEST_CASE("a fully masked row passes both checks by definition") {
  const Matrix q{{1}, {2}}, k{{1}, {2}}, v{{3, 4}, {5, 6}};
  attn::AttentionOptions o;
  o.mask = attn::Mask::custom({0, 0, 1, 1});
  const auto c = attn::check_attention(attn::attention(q, k, v, o), v);
  CHECK(c.row_sums[1] == 0.0);
  CHECK(c.row_sums_to_one[1] == 1);
  CHECK(c.output_in_hull[1] == 1);
}

TEST_CASE("outputs outside a segment or a box are caught") {
  // Two values: the hull is a segment; any convex mix stays on it.
  const Matrix q{{1, 0}}, k{{1, 0}, {0, 1}}, v2{{0, 0}, {2, 2}}, v3{{0, 0, 0}, {1, 1, 1}};
  attn::AttentionOptions scale_wrong;
  scale_wrong.pitfalls.mask_after_softmax = true;
  scale_wrong.mask = attn::Mask::key_padding({0, 1});
  const auto r2 = attn::attention(q, k, v2, scale_wrong);
  CHECK(attn::check_attention(r2, v2).output_in_hull[0] == 1);  // a·(0,0): still on the segment
  const Matrix v2b{{1, 1}, {2, 2}};
  const auto r2b = attn::attention(q, k, v2b, scale_wrong);
  CHECK(attn::check_attention(r2b, v2b).output_in_hull[0] == 0);  // a·(1,1) with a < 1: off the end
  const Matrix v3b{{1, 1, 1}, {2, 2, 2}};
  const auto r3 = attn::attention(q, k, v3b, scale_wrong);
  CHECK(attn::check_attention(r3, v3b).output_in_hull[0] == 0);
}

TEST_CASE("distance_to_hull agrees with the polygon test in 2-D") {
  ATTN_SEEDED_RANDOM(rng, 32);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t m = 1 + rng.index(8);
    CAPTURE(trial); CAPTURE(m);
    const Matrix v = rng.matrix(m, 2, -2, 2);
    const float z[] = {rng.uniform(-2, 2), rng.uniform(-2, 2)};
    // Attention on a one-row query with these values: the output is a convex combination.
    const Matrix q{{rng.uniform(), rng.uniform()}}, k = rng.matrix(m, 2);
    const auto r = attn::attention(q, k, v);
    CHECK(attn::distance_to_hull(v, r.output.row(0)) < 1e-5);
    // An arbitrary point: inside the polygon exactly when its distance is 0.
    attn::AttentionResult fake = r;
    fake.output(0, 0) = z[0];
    fake.output(0, 1) = z[1];
    const bool polygon = attn::check_attention(fake, v).output_in_hull[0];
    CHECK(polygon == (attn::distance_to_hull(v, z) <= 1e-5 * 2.0));
  }
}

TEST_CASE("the hull check is exact for d_v = 3 in the mask-after-softmax pitfall") {
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}};
  const Matrix v{{1, 0, 0.5f}, {0, 1, 1}, {1, 1, 0}};
  attn::AttentionOptions o;
  o.mask = attn::Mask::causal();
  o.pitfalls.mask_after_softmax = true;
  const auto c = attn::check_attention(attn::attention(q, k, v, o), v);
  CHECK(c.hull_exact);
  // Row 1 is 0.446·v₁ = (0.446, 0, 0.223): inside the bounding box, outside the triangle.
  CHECK(c.output_in_hull == std::vector<std::uint8_t>{0, 0, 1});
  o.pitfalls.mask_after_softmax = false;
  const auto ok = attn::check_attention(attn::attention(q, k, v, o), v);
  CHECK(ok.output_in_hull == std::vector<std::uint8_t>{1, 1, 1});
}

namespace {

double badge(const Matrix& q, const Matrix& k, const Matrix& v, const attn::AttentionOptions& o) {
  return attn::float64_max_abs_diff(attn::attention(q, k, v, o), q, k, v, o);
}

}  // namespace

TEST_CASE("verified badge: float32 core vs float64 is tiny on the worked example") {
  const auto spec = testsupport::read_json_file(testsupport::fixture_path("worked-example.json"));
  const Matrix q = testsupport::matrix_from_json(spec["Q"]), k = testsupport::matrix_from_json(spec["K"]);
  for (const char* values : {"V", "exercise_V"}) {
    const Matrix v = testsupport::matrix_from_json(spec[values]);
    for (const attn::Mask& mask : {attn::Mask::none(), attn::Mask::causal()}) {
      attn::AttentionOptions o;
      o.mask = mask;
      const double diff = badge(q, k, v, o);
      CAPTURE(values);
      MESSAGE("worked example (" << std::string(values) << ", " << std::string(attn::to_string(mask))
                                 << "): float64 max abs diff " << diff);
      CHECK(diff < 1e-6);
    }
  }
}

TEST_CASE("verified badge: judged by the core, and a wrong result is not verified") {
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1, 0}, {0, 1}, {1, 1}};
  const attn::AttentionOptions o;
  attn::AttentionResult r = attn::attention(q, k, v, o);
  const attn::Verification good = attn::verify_against_float64(r, q, k, v, o);
  CHECK(good.verified);
  CHECK(good.value_scale == 1.0);
  CHECK(good.tolerance == attn::kVerifiedTolerance);
  CHECK(good.max_abs_diff < 1e-6);
  // One weight off by 1e-4, more than the tolerance: the badge says so.
  r.weights(1, 2) += 1e-4f;
  const attn::Verification bad = attn::verify_against_float64(r, q, k, v, o);
  CHECK_FALSE(bad.verified);
  CHECK(bad.max_abs_diff == doctest::Approx(1e-4).epsilon(1e-3));
  // An output off by NaN is never verified.
  r = attn::attention(q, k, v, o);
  r.output(0, 0) = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(attn::verify_against_float64(r, q, k, v, o).verified);
}

TEST_CASE("verified badge: the tolerance grows with max |V|, so an error of the same relative size passes") {
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1e6f, 0}, {0, -2e6f}, {1, 1}};
  const attn::AttentionOptions o;
  attn::AttentionResult r = attn::attention(q, k, v, o);
  const attn::Verification good = attn::verify_against_float64(r, q, k, v, o);
  CHECK(good.value_scale == 2e6);
  CHECK(good.tolerance == doctest::Approx(20.0));
  CHECK(good.verified);
  r.output(2, 1) += 8.0f;  // 4e-6 of max |V|: within the tolerance
  CHECK(attn::verify_against_float64(r, q, k, v, o).verified);
  r.output(2, 1) += 32.0f;  // 2e-5 of max |V|: not
  CHECK_FALSE(attn::verify_against_float64(r, q, k, v, o).verified);
}

TEST_CASE("verified badge: tiny on random inputs, masks included") {
  ATTN_SEEDED_RANDOM(rng, 47);
  double worst = 0.0;
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 1 + rng.index(40), m = 1 + rng.index(40), d = 1 + rng.index(64),
                      dv = 1 + rng.index(16);
    CAPTURE(trial); CAPTURE(n); CAPTURE(m); CAPTURE(d);
    // Entries in [-1, 1]: the float32 rounding then stays a few 1e-7 at most (a few ulp of the
    // outputs, which are at most 1 in size), so the 1e-6 bound holds for any seed.
    const Matrix q = rng.matrix(n, d), k = rng.matrix(m, d), v = rng.matrix(m, dv);
    attn::AttentionOptions o;
    if (trial % 3 == 1 && n == m) o.mask = attn::Mask::causal();
    const double diff = badge(q, k, v, o);
    worst = std::max(worst, diff);
    CHECK(diff < 1e-6);
  }
  MESSAGE("random inputs: worst float64 max abs diff " << worst);
}

TEST_CASE("verified badge: fully masked rows add 0, in both mask modes") {
  const Matrix q{{1, 2}, {3, 4}}, k{{1, 0}, {0, 1}, {5, 5}}, v{{1e3, -1e3}, {2, 2}, {3, 3}};
  for (bool after : {false, true}) {
    CAPTURE(after);
    attn::AttentionOptions o;
    o.pitfalls.mask_after_softmax = after;
    o.mask = attn::Mask::custom({1, 1, 1, 1, 1, 1});  // every key hidden from every query
    CHECK(badge(q, k, v, o) == 0.0);
  }
}

TEST_CASE("verified badge: a pitfall is compared with the same pitfall in float64") {
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1, 0}, {0, 1}, {1, 1}};
  const std::vector<std::uint8_t> causal{0, 1, 1, 0, 0, 1, 0, 0, 0};
  struct Case { const char* name; std::optional<float> scale; bool after; };
  for (const Case& c : {Case{"mask after softmax", std::nullopt, true}, Case{"no scaling", 1.0f, false},
                        Case{"scale by d_k", 0.5f, false}, Case{"both", 1.0f, true}}) {
    CAPTURE(c.name);
    attn::AttentionOptions o;
    o.mask = attn::Mask::causal();
    o.pitfalls.scale = c.scale;
    o.pitfalls.mask_after_softmax = c.after;
    const auto r = attn::attention(q, k, v, o);
    CHECK(attn::float64_max_abs_diff(r, q, k, v, o) < 1e-6);
    // Against correct attention in float64 the pitfall is far off: the badge does not measure that.
    const auto correct = attn::reference::attention_ref(q, k, v, causal, 1.0 / std::sqrt(2.0), false);
    double far = 0.0;
    for (std::size_t i = 0; i < correct.weights.size(); ++i) {
      far = std::max(far, std::fabs(double(r.weights.data[i]) - correct.weights[i]));
    }
    CHECK(far > 0.05);
  }
}

namespace {

// The processor time f takes, not the wall clock's: the bound below is on the work, and a busy
// machine (other builds, the other tests of ctest -j) stretches the wall clock many times over.
double seconds_of(const std::function<void()>& f) {
  const std::clock_t start = std::clock();
  f();
  return double(std::clock() - start) / CLOCKS_PER_SEC;
}

}  // namespace

TEST_CASE("correct outputs pass the hull check at any magnitude") {
  // The reported case: one value at 1e7, its output equal to it.
  const Matrix one{{1e7f, 0, 0}};
  const auto r = attn::attention(Matrix{{1}}, Matrix{{1}}, one);
  CHECK(attn::check_attention(r, one).output_in_hull[0] == 1);
  CHECK(attn::distance_to_hull(one, one.row(0)) == 0.0);
  // |V| from 1e6 to 1e30 with d_v >= 3: 11 % and 42 % of the rows failed at 1e6 and 1e7.
  ATTN_SEEDED_RANDOM(rng, 105);
  for (float size : {1e6f, 1e7f, 1e12f, 1e30f}) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::size_t n = 1 + rng.index(6), m = 1 + rng.index(8), dv = 3 + rng.index(5);
      CAPTURE(size); CAPTURE(trial); CAPTURE(m); CAPTURE(dv);
      const Matrix q = rng.matrix(n, 4), k = rng.matrix(m, 4), v = rng.matrix(m, dv, -size, size);
      const auto c = attn::check_attention(attn::attention(q, k, v), v);
      for (std::size_t i = 0; i < n; ++i) CHECK(c.output_in_hull[i] == 1);
      CHECK(c.hull_exact);
      // A value itself is at distance 0 from the hull (it was inf or 2.9e38).
      CHECK(attn::distance_to_hull(v, v.row(rng.index(m))) <= 1e-9 * size);
    }
  }
  // Still strict: the mask-after-softmax pitfall at 1e7 leaves the triangle.
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}};
  const Matrix v{{1e7f, 0, 5e6f}, {0, 1e7f, 1e7f}, {1e7f, 1e7f, 0}};
  attn::AttentionOptions o;
  o.mask = attn::Mask::causal();
  o.pitfalls.mask_after_softmax = true;
  CHECK(attn::check_attention(attn::attention(q, k, v, o), v).output_in_hull ==
        std::vector<std::uint8_t>{0, 0, 1});
}

TEST_CASE("the tolerance is 1e-5 of the longest value vector") {
  const Matrix v{{3e6f, 4e6f, 0}, {0, 0, 0}};  // the longest value is 5e6 long
  CHECK(attn::hull_tolerance(v) == doctest::Approx(50.0));
  const Matrix q{{1}}, k{{1}, {1}};
  attn::AttentionResult r = attn::attention(q, k, v);
  const float mid[] = {1.5e6f, 2e6f, 0};
  for (std::size_t t = 0; t < 3; ++t) CHECK(r.output(0, t) == doctest::Approx(mid[t]));
  r.output(0, 2) = 49.0f;  // 49 off the segment: inside the tolerance
  CHECK(attn::check_attention(r, v).output_in_hull[0] == 1);
  r.output(0, 2) = 51.0f;  // 51 off: outside
  CHECK(attn::check_attention(r, v).output_in_hull[0] == 0);
  CHECK(attn::hull_tolerance(Matrix{{0, 0, 0}}) == doctest::Approx(1e-5 * 0x1p-126));
}

TEST_CASE("hull check is polynomial: 256×4 / 10×4096 takes < 1 s of processor time") {
  ATTN_SEEDED_RANDOM(rng, 107);
  const Matrix q = rng.matrix(256, 4), k = rng.matrix(10, 4), v = rng.matrix(10, 4096);
  for (bool pitfall : {false, true}) {
    CAPTURE(pitfall);
    attn::AttentionOptions o;
    o.mask = attn::Mask::key_padding({0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
    o.pitfalls.mask_after_softmax = pitfall;
    const auto r = attn::attention(q, k, v, o);
    attn::AttentionChecks c;
    const double s = seconds_of([&] { c = attn::check_attention(r, v); });  // took 146 s
    MESSAGE("check_attention 256×4 / 10×4096" << std::string(pitfall ? " (mask after softmax)" : "") << ": " << s << " s");
    // Correct attention: one pass per row, its weights prove it. The pitfall's rows need the
    // search, about 8 passes of 10×4096 each (0.2 s natively); the bound leaves room for the
    // unoptimized and scalar wasm builds of this suite.
    CHECK(s < (pitfall ? 10.0 : 1.0));
    CHECK(c.hull_exact);
    // Correct attention: every row inside. The pitfall shrinks each output by about 0.8: 10
    // random values in 4096 dimensions span a 9-dimensional hull, off which the shrunk
    // output lies.
    for (std::size_t i = 0; i < 256; ++i) CHECK(c.output_in_hull[i] == (pitfall ? 0 : 1));
  }
}

TEST_CASE("the largest explaining-path shapes stay within the documented cost") {
  // n = m = 2048 (the limit of the n×m matrices), with every row a pitfall row that the
  // search must decide: at most kHullMaxIterations passes over the values per row.
  ATTN_SEEDED_RANDOM(rng, 108);
  const std::size_t n = 2048, dv = 3;
  const Matrix q = rng.matrix(n, 2), k = rng.matrix(n, 2), v = rng.matrix(n, dv);
  attn::AttentionOptions o;
  o.mask = attn::Mask::causal();
  o.pitfalls.mask_after_softmax = true;
  const auto r = attn::attention(q, k, v, o);
  attn::AttentionChecks c;
  const double s = seconds_of([&] { c = attn::check_attention(r, v); });
  MESSAGE("check_attention 2048 rows, 2048 values of 3 (mask after softmax): " << s << " s");
  CHECK(s < 10.0);  // 0.2 s natively; the old face search would take 2^2048 steps per row
  // Shrunk toward the origin, which lies inside these values' hull: every row is inside, and
  // the search proved each (the old fallback only compared the bounding box: not exact).
  CHECK(c.hull_exact);
  CHECK(std::count(c.output_in_hull.begin(), c.output_in_hull.end(), 1) == std::ptrdiff_t(n));
}

TEST_CASE("hull check with repeated values and a pitfall: every row proven") {
  // The calculator's values may repeat; the pitfall's outputs then need the search.
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}, {2, 1}}, k{{1, 0}, {0, 1}, {-1, 0}, {1, 0}};
  const Matrix v{{1, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 1, 0}};
  for (bool after : {false, true}) {
    CAPTURE(after);
    attn::AttentionOptions o;
    o.mask = attn::Mask::causal();
    o.pitfalls.mask_after_softmax = after;
    const auto r = attn::attention(q, k, v, o);
    const auto c = attn::check_attention(r, v);
    CHECK(c.hull_exact);
    for (std::size_t i = 0; i < 4; ++i) {
      CAPTURE(i);
      // On the segment from (1, 0, 0) to (0, 1, 0) exactly when the row's weights sum to 1.
      CHECK(c.output_in_hull[i] == (std::fabs(c.row_sums[i] - 1.0) < 1e-6 ? 1 : 0));
    }
  }
}

TEST_CASE("a correct row over tens of thousands of keys sums to 1 within 1e-5") {
  // The fuzzer's seeds: 48483 and 65536 keys, where a float32 row sum left the weights of a
  // correct row summing to 1.00001043 and 1.00001928. Scores in about ±8 give exp values of
  // every size, so a float32 sum rounds on nearly every addition.
  const std::uint64_t seed = testsupport::test_seed(7);
  CAPTURE(seed);
  testsupport::Random random(seed);
  for (const std::size_t m : {std::size_t{48483}, std::size_t{65536}}) {
    CAPTURE(m);
    const Matrix q = random.matrix(8, 8, -8.0f, 8.0f), k = random.matrix(m, 8, -8.0f, 8.0f);
    const Matrix v = random.matrix(m, 2);
    attn::AttentionOptions options;
    options.pitfalls.scale = 1.0f / 8.0f;
    const attn::AttentionResult r = attn::attention(q, k, v, options);
    const attn::AttentionChecks c = attn::check_attention(r, v);
    for (std::size_t i = 0; i < 8; ++i) {
      CAPTURE(c.row_sums[i]);
      CHECK(std::fabs(c.row_sums[i] - 1.0) <= 2e-6);
      CHECK(c.row_sums_to_one[i] == 1);
    }
  }
}

TEST_CASE("checked_attention: one edit's answer is the four calls it stands for") {
  const Matrix q{{1, 0, 2}, {0, 1, -1}}, k{{1, 1, 0}, {0, 2, 1}, {-1, 0, 1}}, v{{0, 1, 3}, {2, 0, 1}, {1, 2, 2}};
  attn::AttentionOptions o;
  o.mask = attn::Mask::causal();
  const attn::AttentionResult r = attn::attention(q, k, v, o);
  const attn::AttentionChecks c = attn::check_attention(r, v);
  const attn::Verification verification = attn::verify_against_float64(r, q, k, v, o);

  const attn::CheckedAttention answer = attn::checked_attention(q, k, v, o, attn::PlotAxes{0, 2});
  CHECK(answer.result.weights.data == r.weights.data);
  CHECK(answer.result.output.data == r.output.data);
  CHECK(answer.result.hidden == r.hidden);
  CHECK(answer.checks.row_sums == c.row_sums);
  CHECK(answer.checks.row_sums_to_one == c.row_sums_to_one);
  CHECK(answer.checks.output_in_hull == c.output_in_hull);
  CHECK(answer.checks.hull == c.hull);
  CHECK(answer.checks.hull_exact == c.hull_exact);
  CHECK(answer.verification.max_abs_diff == verification.max_abs_diff);
  CHECK(answer.verification.tolerance == verification.tolerance);
  CHECK(answer.verification.value_scale == verification.value_scale);
  CHECK(answer.verification.verified == verification.verified);
  REQUIRE(answer.plot_hull.has_value());
  CHECK(*answer.plot_hull == attn::convex_hull_of_columns(v, 0, 2));

  // No axes, no plot hull; one axis, every point on y = 0.
  CHECK_FALSE(attn::checked_attention(q, k, v, o).plot_hull.has_value());
  CHECK(*attn::checked_attention(q, k, v, o, attn::PlotAxes{1, attn::kNoColumn}).plot_hull ==
        attn::convex_hull_of_columns(v, 1, attn::kNoColumn));

  // Attention's errors come first, then the plot's columns.
  CHECK_THROWS_WITH_AS(attn::checked_attention(q, k, v, o, attn::PlotAxes{0, 3}),
                       "the plot's y column must be a whole number from 0 to 2 (got 3)", attn::Error);
  const Matrix bad_q{{1, 0, std::numeric_limits<float>::quiet_NaN()}, {0, 1, -1}};
  CHECK_THROWS_WITH_AS(attn::checked_attention(bad_q, k, v, o, attn::PlotAxes{0, 3}), "NaN at Q row 1 column 3",
                       attn::Error);
}
