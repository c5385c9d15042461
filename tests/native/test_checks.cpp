// The convex hull and the two live checks the page shows.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks.hpp"
#include "reference/attention_ref.hpp"
#include "support/fixtures.hpp"
#include "support/seed.hpp"

using attn::Matrix;

TEST_CASE("convex_hull_2d: corners only, counter-clockwise, degenerate sets handled") {
  // A square with a point inside and one on an edge.
  const Matrix square{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 1}, {1, 0}};
  CHECK(attn::convex_hull_2d(square) == std::vector<std::size_t>{0, 1, 2, 3});
  // The worked example's values: the triangle (1,0), (0,1), (1,1).
  CHECK(attn::convex_hull_2d(Matrix{{1, 0}, {0, 1}, {1, 1}}) == std::vector<std::size_t>{1, 0, 2});
  CHECK(attn::convex_hull_2d(Matrix{{0, 0}, {1, 1}, {2, 2}, {3, 3}}) == std::vector<std::size_t>{0, 3});
  CHECK(attn::convex_hull_2d(Matrix{{5, 5}, {5, 5}}) == std::vector<std::size_t>{0});
  CHECK(attn::convex_hull_2d(Matrix{{5, 5}}) == std::vector<std::size_t>{0});
}

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

TEST_CASE("distance_to_hull: exact in 3-D, and agrees with the polygon test in 2-D") {
  const Matrix simplex{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const float inside[] = {0.2f, 0.2f, 0.2f}, vertex[] = {1, 0, 0}, outside[] = {1, 1, 1};
  CHECK(attn::distance_to_hull(simplex, inside) == doctest::Approx(0.0).epsilon(1e-9));
  CHECK(attn::distance_to_hull(simplex, vertex) == doctest::Approx(0.0));
  CHECK(attn::distance_to_hull(simplex, outside) == doctest::Approx(2.0 / std::sqrt(3.0)));

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
      MESSAGE("worked example (" << std::string(values) << ", " << std::string(attn::to_string(mask.kind))
                                 << "): float64 max abs diff " << diff);
      CHECK(diff < 1e-6);
    }
  }
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
