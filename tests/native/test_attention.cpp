// Scaled dot-product attention: the lesson's worked example, the float64 oracle, and the
// properties the lesson states, on random inputs with printed seeds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "support/compare.hpp"
#include "support/fixtures.hpp"
#include "support/oracle.hpp"
#include "support/seed.hpp"

using attn::AttentionOptions;
using attn::Mask;
using attn::Matrix;
using testsupport::Random;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

AttentionOptions with_mask(Mask mask) {
  AttentionOptions o;
  o.mask = std::move(mask);
  return o;
}

// A random mask of `kind` for n queries and m keys.
Mask random_mask(Random& rng, int kind, std::size_t n, std::size_t m) {
  switch (kind) {
    case 1: return Mask::causal();
    case 2: {
      std::vector<std::uint8_t> keys(m);
      for (auto& h : keys) h = rng.coin(0.3);
      return Mask::key_padding(keys);
    }
    case 3: {
      std::vector<std::uint8_t> grid(n * m);
      for (auto& h : grid) h = rng.coin(0.4);
      return Mask::custom(grid);
    }
    default: return Mask::none();
  }
}

// float32's unit roundoff.
constexpr double kEps = 0x1p-24;

// How far the explaining path may be from the float64 oracle, derived from the sizes and the
// inputs as test_kernels.cpp derives its kernels' bounds, not chosen by hand:
// - a score is a float dot product of length d: within 2·d·eps·Σ|q·k|;
// - a scaled score off by δ·scale moves exp(s − max) by a relative 2·scale·δ (its own error
//   and the row max's); exp adds 2 ulp and the row sum (in double) one rounding, so each weight
//   (at most 1) is within 2·scale·δ + 8·eps;
// - an output sums m weights times values: m weight errors, plus the dot product's own
//   2·m·eps, times max |v|.
struct Bounds {
  testsupport::Tolerance scores, weights, output;
};

Bounds attention_bounds(const Matrix& q, const Matrix& k, const Matrix& v, double scale) {
  const std::size_t m = k.rows, d = q.cols;
  double dot = 0.0, v_max = 0.0;
  for (std::size_t i = 0; i < q.rows; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      double s = 0.0;
      for (std::size_t t = 0; t < d; ++t) s += std::fabs(double(q(i, t)) * double(k(j, t)));
      dot = std::max(dot, s);
    }
  }
  for (float x : v.data) v_max = std::max(v_max, std::fabs(double(x)));
  const double scores = 2.0 * double(d) * kEps * dot;
  const double weights = 2.0 * scale * scores + 8.0 * kEps;
  const double output = (double(m) * weights + 2.0 * double(m) * kEps) * v_max;
  return {{scores, 0.0}, {weights, 0.0}, {output, 0.0}};
}

}  // namespace

TEST_CASE("worked example: the core reproduces the lesson's numbers to 1e-5") {
  const auto spec = testsupport::read_json_file(testsupport::fixture_path("worked-example.json"));
  const Matrix q = testsupport::matrix_from_json(spec["Q"]);
  const Matrix k = testsupport::matrix_from_json(spec["K"]);
  const testsupport::Tolerance tol{1e-5, 0.0};
  for (const char* variant : {"no_mask", "causal", "exercise_no_mask", "exercise_causal"}) {
    CAPTURE(variant);
    const std::string name = variant;
    const bool causal = name.find("causal") != std::string::npos;
    const Matrix v = testsupport::matrix_from_json(
        spec[name.rfind("exercise", 0) == 0 ? "exercise_V" : "V"]);
    const auto r = attn::attention(q, k, v, with_mask(causal ? Mask::causal() : Mask::none()));
    const auto& want = spec[name];
    CHECK(testsupport::compare_matrix(r.scores.data, testsupport::flat_rows(want["scores"]), 3, 3,
                                      tol, "scores") == "");
    CHECK(testsupport::compare_matrix(r.scaled.data, testsupport::flat_rows(want["scaled"]), 3, 3,
                                      tol, "masked scores") == "");
    CHECK(testsupport::compare_matrix(r.weights.data, testsupport::flat_rows(want["weights"]), 3,
                                      3, tol, "weights") == "");
    CHECK(testsupport::compare_matrix(r.output.data, testsupport::flat_rows(want["output"]), 3, 2,
                                      tol, "output") == "");
  }
}

TEST_CASE("worked example: every intermediate step agrees with the others") {
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1, 0}, {0, 1}, {1, 1}};
  const auto r = attn::attention(q, k, v);
  CHECK(r.scale == doctest::Approx(1.0 / std::sqrt(2.0)));
  // Row 1, as the lesson derives it: max 0.707, exp values 1, 1, e^(−1.414), sum 2.243.
  CHECK(r.scaled_before_mask(0, 0) == doctest::Approx(0.707107).epsilon(1e-6));
  CHECK(r.row_max[0] == doctest::Approx(0.707107).epsilon(1e-6));
  CHECK(r.exp(0, 0) == 1.0f);
  CHECK(r.exp(0, 1) == 1.0f);
  CHECK(r.exp(0, 2) == doctest::Approx(std::exp(-std::sqrt(2.0))).epsilon(1e-6));
  CHECK(r.row_sum[0] == doctest::Approx(2.0 + std::exp(-std::sqrt(2.0))).epsilon(1e-6));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK_FALSE(r.fully_masked[i]);
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(r.scaled_before_mask(i, j) == r.scaled(i, j));
      CHECK(r.weights(i, j) == doctest::Approx(r.exp(i, j) / r.row_sum[i]).epsilon(1e-6));
      CHECK(r.hidden[i * 3 + j] == 0);
    }
  }
}

TEST_CASE("random inputs agree with the float64 oracle, for every mask kind") {
  ATTN_SEEDED_RANDOM(rng, 11);
  const std::size_t sizes[] = {1, 2, 3, 5, 8, 13, 31};
  for (int trial = 0; trial < 120; ++trial) {
    const std::size_t n = sizes[rng.index(7)], m = sizes[rng.index(7)];
    const std::size_t d = 1 + rng.index(70), dv = 1 + rng.index(9);
    const int kind = int(rng.index(4));
    CAPTURE(trial); CAPTURE(n); CAPTURE(m); CAPTURE(d); CAPTURE(dv); CAPTURE(kind);
    const Matrix q = rng.matrix(n, d, -2, 2), k = rng.matrix(m, d, -2, 2), v = rng.matrix(m, dv);
    const auto r = attn::attention(q, k, v, with_mask(random_mask(rng, kind, n, m)));
    const auto want = testsupport::oracle_attention(q, k, v, r.hidden);
    const Bounds tol = attention_bounds(q, k, v, double(r.scale));
    REQUIRE(testsupport::compare_matrix(r.scores.data, want.scores, n, m, tol.scores, "scores") == "");
    REQUIRE(testsupport::compare_matrix(r.weights.data, want.weights, n, m, tol.weights, "weights") == "");
    REQUIRE(testsupport::compare_matrix(r.output.data, want.output, n, dv, tol.output, "output") == "");
    for (std::size_t i = 0; i < n; ++i) REQUIRE(bool(r.fully_masked[i]) == want.fully_masked[i]);
  }
}

TEST_CASE("properties: rows of A sum to 1 and outputs stay inside the values' hull") {
  ATTN_SEEDED_RANDOM(rng, 12);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t n = 1 + rng.index(20), m = 1 + rng.index(20), d = 1 + rng.index(16);
    const std::size_t dv = 1 + rng.index(6);
    const int kind = int(rng.index(3));  // no custom mask: it could hide whole rows
    CAPTURE(trial); CAPTURE(n); CAPTURE(m); CAPTURE(d); CAPTURE(kind);
    const Matrix q = rng.matrix(n, d, -3, 3), k = rng.matrix(m, d, -3, 3), v = rng.matrix(m, dv);
    const auto r = attn::attention(q, k, v, with_mask(random_mask(rng, kind, n, m)));
    for (std::size_t i = 0; i < n; ++i) {
      if (r.fully_masked[i]) continue;  // key padding can hide every key; tested below
      double sum = 0.0;
      for (std::size_t j = 0; j < m; ++j) {
        REQUIRE(r.weights(i, j) >= 0.0f);
        sum += r.weights(i, j);
      }
      REQUIRE(sum == doctest::Approx(1.0).epsilon(1e-6));
      // Each output coordinate lies between the smallest and largest visible value.
      for (std::size_t t = 0; t < dv; ++t) {
        float lo = kInf, hi = -kInf;
        for (std::size_t j = 0; j < m; ++j) {
          if (r.hidden[i * m + j]) continue;
          lo = std::min(lo, v(j, t));
          hi = std::max(hi, v(j, t));
        }
        const float slack = 1e-6f;
        REQUIRE(r.output(i, t) >= lo - slack);
        REQUIRE(r.output(i, t) <= hi + slack);
      }
    }
  }
}

TEST_CASE("properties: permuting the tokens permutes the output") {
  ATTN_SEEDED_RANDOM(rng, 13);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t n = 2 + rng.index(12), d = 1 + rng.index(9), dv = 1 + rng.index(5);
    CAPTURE(trial);
    const Matrix x = rng.matrix(n, d), v = rng.matrix(n, dv);
    std::vector<std::size_t> perm(n);
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    for (std::size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.index(i + 1)]);
    Matrix xp(n, d), vp(n, dv);
    for (std::size_t i = 0; i < n; ++i) {
      std::copy(x.row(perm[i]), x.row(perm[i]) + d, xp.row(i));
      std::copy(v.row(perm[i]), v.row(perm[i]) + dv, vp.row(i));
    }
    const auto r = attn::attention(x, x, v);
    const auto rp = attn::attention(xp, xp, vp);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t t = 0; t < dv; ++t) {
        REQUIRE(rp.output(i, t) == doctest::Approx(r.output(perm[i], t)).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("properties: adding a constant to a score row changes no weight") {
  // q_i · k_j + c for every j: append a coordinate c to q_i and 1 to every key.
  ATTN_SEEDED_RANDOM(rng, 14);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t n = 1 + rng.index(9), m = 1 + rng.index(9), d = 1 + rng.index(9);
    const float c = rng.uniform(-50, 50);
    CAPTURE(trial); CAPTURE(c);
    const Matrix q = rng.matrix(n, d), k = rng.matrix(m, d), v = rng.matrix(m, 3);
    Matrix q2(n, d + 1), k2(m, d + 1);
    for (std::size_t i = 0; i < n; ++i) {
      std::copy(q.row(i), q.row(i) + d, q2.row(i));
      q2(i, d) = c;
    }
    for (std::size_t j = 0; j < m; ++j) {
      std::copy(k.row(j), k.row(j) + d, k2.row(j));
      k2(j, d) = 1.0f;
    }
    // Same scale on both sides, so only the shift differs.
    AttentionOptions o;
    o.pitfalls.scale = 0.5f;
    const auto a = attn::attention(q, k, v, o);
    const auto b = attn::attention(q2, k2, v, o);
    for (std::size_t idx = 0; idx < n * m; ++idx) {
      REQUIRE(b.weights.data[idx] == doctest::Approx(a.weights.data[idx]).epsilon(1e-4));
    }
  }
}

TEST_CASE("properties: causal weights above the diagonal are exactly 0") {
  ATTN_SEEDED_RANDOM(rng, 15);
  for (int trial = 0; trial < 30; ++trial) {
    const std::size_t n = 1 + rng.index(40), m = 1 + rng.index(40), d = 1 + rng.index(20);
    const auto r = attn::attention(rng.matrix(n, d, -5, 5), rng.matrix(m, d, -5, 5),
                                   rng.matrix(m, 2), with_mask(Mask::causal()));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < m; ++j) {
        if (j > i) {
          REQUIRE(r.weights(i, j) == 0.0f);
          REQUIRE(r.exp(i, j) == 0.0f);
          REQUIRE(r.scaled(i, j) == -kInf);
        } else {
          REQUIRE(r.scaled(i, j) == r.scaled_before_mask(i, j));
        }
      }
    }
  }
}

TEST_CASE("properties: huge scores stay finite and give the right weights") {
  // Scores of 1e4 and -1e4 (and up to 1e38): without the row max, exp would overflow to Inf.
  for (const float big : {1e2f, 1e4f, 1e15f, 1.3e19f}) {
    CAPTURE(big);
    const Matrix q{{big, 0}, {0, big}}, k{{big, 0}, {-big, 0}, {0, big}};
    const Matrix v{{1, 0}, {0, 1}, {2, 2}};
    const auto r = attn::attention(q, k, v);
    for (float w : r.weights.data) REQUIRE(std::isfinite(w));
    for (float z : r.output.data) REQUIRE(std::isfinite(z));
    CHECK(r.weights(0, 0) == 1.0f);  // q1 matches k1 far better than anything else
    CHECK(r.weights(0, 1) == 0.0f);
    CHECK(r.weights(1, 2) == 1.0f);
    CHECK(r.output(1, 0) == 2.0f);
  }
  // Equal huge scores split evenly.
  const auto r = attn::attention(Matrix{{1e18f}}, Matrix{{1e18f}, {1e18f}}, Matrix{{0}, {1}});
  CHECK(r.weights(0, 0) == 0.5f);
  CHECK(r.output(0, 0) == 0.5f);
}

TEST_CASE("fully masked rows: weights 0, output 0, flagged, never NaN") {
  ATTN_SEEDED_RANDOM(rng, 16);
  const Matrix q = rng.matrix(3, 4), k = rng.matrix(5, 4), v = rng.matrix(5, 2);
  std::vector<std::uint8_t> grid(15, 0);
  for (std::size_t j = 0; j < 5; ++j) grid[1 * 5 + j] = 1;  // query 2 sees nothing
  for (bool after : {false, true}) {
    CAPTURE(after);
    AttentionOptions o = with_mask(Mask::custom(grid));
    o.pitfalls.mask_after_softmax = after;
    const auto r = attn::attention(q, k, v, o);
    CHECK(r.fully_masked == std::vector<std::uint8_t>{0, 1, 0});
    for (std::size_t j = 0; j < 5; ++j) CHECK(r.weights(1, j) == 0.0f);
    CHECK(r.output(1, 0) == 0.0f);
    CHECK(r.output(1, 1) == 0.0f);
    for (float x : r.weights.data) CHECK_FALSE(std::isnan(x));
    for (float x : r.exp.data) CHECK_FALSE(std::isnan(x));
    if (!after) {
      CHECK(r.row_max[1] == -kInf);
      CHECK(r.row_sum[1] == 0.0f);
    }
  }
  // Every key padded: every row is fully masked.
  const auto r = attn::attention(q, k, v, with_mask(Mask::key_padding({1, 1, 1, 1, 1})));
  CHECK(r.fully_masked == std::vector<std::uint8_t>{1, 1, 1});
  for (float x : r.output.data) CHECK(x == 0.0f);
}

TEST_CASE("cross-attention: n queries against m keys, n != m") {
  const Matrix q{{1, 0, 0}}, k{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  const Matrix v{{1}, {2}, {3}, {4}};
  const auto r = attn::attention(q, k, v);
  REQUIRE(r.weights.rows == 1);
  REQUIRE(r.weights.cols == 4);
  REQUIRE(r.output.rows == 1);
  REQUIRE(r.output.cols == 1);
  CHECK(r.weights(0, 0) == doctest::Approx(r.weights(0, 3)));
  CHECK(r.weights(0, 1) == doctest::Approx(r.weights(0, 2)));
}

TEST_CASE("scaling names: each Scaling reads back from its name, and any other name is refused") {
  for (attn::Scaling s : {attn::Scaling::sqrt_dk, attn::Scaling::dk, attn::Scaling::none}) {
    CAPTURE(attn::to_string(s));
    CHECK(attn::scaling_from_string(attn::to_string(s)) == s);
  }
  CHECK_THROWS_WITH_AS(attn::scaling_from_string("sqrt_dk"),
                       "scale must be 'sqrt', 'dk', 'none' or a number greater than 0 (got \"sqrt_dk\")", attn::Error);
  CHECK_THROWS_WITH_AS(attn::scaling_from_string(""),
                       "scale must be 'sqrt', 'dk', 'none' or a number greater than 0 (got \"\")", attn::Error);
}

TEST_CASE("pitfalls: the wrong scales and masking after the softmax do what the lesson warns") {
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1, 0}, {0, 1}, {1, 1}};
  AttentionOptions o;
  o.pitfalls.scale = 1.0f;
  CHECK(attn::attention(q, k, v, o).scaled_before_mask(0, 0) == 1.0f);
  o.pitfalls.scale = 0.5f;  // 1/d_k
  CHECK(attn::attention(q, k, v, o).scaled_before_mask(0, 0) == 0.5f);

  AttentionOptions after = with_mask(Mask::causal());
  after.pitfalls.mask_after_softmax = true;
  const auto wrong = attn::attention(q, k, v, after);
  const auto right = attn::attention(q, k, v, with_mask(Mask::causal()));
  // Row 1 keeps only its first weight, 0.446 of the unmasked softmax: it no longer sums to 1.
  CHECK(wrong.weights(0, 0) == doctest::Approx(0.445808).epsilon(1e-5));
  CHECK(wrong.weights(0, 1) == 0.0f);
  CHECK(right.weights(0, 0) == 1.0f);
  CHECK(wrong.scaled(0, 1) == wrong.scaled_before_mask(0, 1));  // nothing was masked before the softmax
  // The last row sees every key, so the pitfall does not change it.
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(wrong.weights(2, j) == doctest::Approx(right.weights(2, j)));
  }
}
