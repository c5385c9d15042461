// Positions (positions.hpp): attention alone is permutation-equivariant, and each scheme breaks
// that; RoPE's scores depend only on i − j; ALiBi's bias is its formula; the sinusoidal table is
// the original Transformer's. References in float64 where a value is computed.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "positions.hpp"
#include "support/seed.hpp"

using attn::Matrix;
using attn::PositionScheme;

namespace {

// The largest |Z_shuffled(i) − Z(order[i])|: 0 when Z's rows moved with the tokens.
double moved_rows_gap(const Matrix& shuffled, const Matrix& plain, const std::vector<std::size_t>& order) {
  double gap = 0.0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (std::size_t c = 0; c < plain.cols; ++c) gap = std::max(gap, std::fabs(double(shuffled(i, c)) - double(plain(order[i], c))));
  }
  return gap;
}

attn::PositionalOptions with(PositionScheme scheme, std::vector<std::size_t> order = {}, bool causal = false) {
  attn::PositionalOptions o;
  o.scheme = scheme;
  o.order = std::move(order);
  o.causal = causal;
  return o;
}

}  // namespace

TEST_CASE("without positions, shuffling the tokens shuffles Z's rows the same way; each scheme breaks that") {
  ATTN_SEEDED_RANDOM(rng, 4201);
  for (int trial = 0; trial < 10; ++trial) {
    const std::size_t n = 3 + rng.index(6), d = 2 + rng.index(6), dv = 1 + rng.index(4);
    const Matrix q = rng.matrix(n, d, -2.0f, 2.0f), k = rng.matrix(n, d, -2.0f, 2.0f), v = rng.matrix(n, dv);
    // Each token one place on, the last to the front, and perhaps two more trading places. Not
    // the reversal: ALiBi's bias −m·|i − j| keeps every distance under it, so a reversal (n = 3
    // with its ends swapped is one) leaves Z's rows merely permuted.
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = (i + n - 1) % n;
    if (rng.coin(0.5)) std::swap(order[1], order[n / 2]);
    CAPTURE(trial); CAPTURE(n); CAPTURE(d);
    const auto plain = attn::positional_attention(q, k, v, with(PositionScheme::none));
    const auto shuffled = attn::positional_attention(q, k, v, with(PositionScheme::none, order));
    CHECK(moved_rows_gap(shuffled.output, plain.output, order) < 1e-6);
    for (PositionScheme scheme : {PositionScheme::sinusoidal, PositionScheme::learned, PositionScheme::rope, PositionScheme::alibi}) {
      CAPTURE(int(scheme));
      const auto a = attn::positional_attention(q, k, v, with(scheme));
      const auto b = attn::positional_attention(q, k, v, with(scheme, order));
      CHECK(moved_rows_gap(b.output, a.output, order) > 1e-4);
    }
  }
}

TEST_CASE("RoPE: the score of q at position i and k at position j depends only on i − j") {
  ATTN_SEEDED_RANDOM(rng, 4202);
  const std::size_t n = 9, d = 6;
  // Every token the same q and k: only the positions differ.
  const Matrix one_q = rng.matrix(1, d), one_k = rng.matrix(1, d);
  Matrix q(n, d), k(n, d), v = rng.matrix(n, 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < d; ++c) {
      q(i, c) = one_q(0, c);
      k(i, c) = one_k(0, c);
    }
  }
  const auto r = attn::positional_attention(q, k, v, with(PositionScheme::rope));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    for (std::size_t j = 0; j + 1 < n; ++j) CHECK(std::fabs(double(r.scores(i, j)) - double(r.scores(i + 1, j + 1))) < 1e-5);
  }
  // And it is a rotation: each pair keeps its length.
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t p = 0; p < d / 2; ++p) {
      CHECK(std::hypot(r.q(i, 2 * p), r.q(i, 2 * p + 1)) == doctest::Approx(std::hypot(one_q(0, 2 * p), one_q(0, 2 * p + 1))).epsilon(1e-6));
    }
  }
}

TEST_CASE("ALiBi adds −m·|i − j| to the scaled scores, and the sinusoidal table is sin and cos of p / 10000^(2i/d)") {
  ATTN_SEEDED_RANDOM(rng, 4203);
  const std::size_t n = 6, d = 4;
  const Matrix q = rng.matrix(n, d), k = rng.matrix(n, d), v = rng.matrix(n, 3);
  const auto plain = attn::positional_attention(q, k, v, with(PositionScheme::none));
  const auto alibi = attn::positional_attention(q, k, v, with(PositionScheme::alibi, {}, true));
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      CHECK(alibi.bias(i, j) == doctest::Approx(-std::fabs(double(i) - double(j)) / 256.0));
      if (j <= i) CHECK(alibi.scores(i, j) == doctest::Approx(plain.scores(i, j) + alibi.bias(i, j)).epsilon(1e-6));
      else CHECK((std::isinf(alibi.scores(i, j)) && alibi.weights(i, j) == 0.0f));
      sum += alibi.weights(i, j);
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  }
  const std::vector<float> p0 = attn::sinusoidal_position(0, 4), p1 = attn::sinusoidal_position(1, 4);
  CHECK(p0 == std::vector<float>{0.0f, 1.0f, 0.0f, 1.0f});
  CHECK(p1[0] == doctest::Approx(std::sin(1.0)));
  CHECK(p1[1] == doctest::Approx(std::cos(1.0)));
  CHECK(p1[2] == doctest::Approx(std::sin(0.01)));
  CHECK(p1[3] == doctest::Approx(std::cos(0.01)));
}

TEST_CASE("positions refuse an order that is not a permutation, and an unknown scheme, in words") {
  const Matrix q(3, 2, 0.5f);
  CHECK_THROWS_WITH_AS(attn::positional_attention(q, q, q, with(PositionScheme::none, {0, 1})),
                       "order has 2 entries but there are 3 tokens: it must list every token once", attn::Error);
  CHECK_THROWS_WITH_AS(attn::positional_attention(q, q, q, with(PositionScheme::none, {0, 1, 1})),
                       "order is not a permutation of 0 to 2: entry 3 (1) is a token already placed", attn::Error);
  CHECK_THROWS_WITH_AS(attn::positional_attention(q, q, q, with(PositionScheme::none, {0, 3, 1})),
                       "order is not a permutation of 0 to 2: entry 2 (3) is past the last token", attn::Error);
  for (double slope : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    attn::PositionalOptions options = with(PositionScheme::alibi, {});
    options.alibi_slope = slope;
    CHECK_THROWS_WITH_AS(attn::positional_attention(q, q, q, options), "the ALiBi slope m must be a finite number greater than 0", attn::Error);
  }
  CHECK_THROWS_WITH_AS(attn::position_scheme_from_string("xpos"),
                       "scheme must be 'none', 'sinusoidal', 'learned', 'rope' or 'alibi' (got \"xpos\")", attn::Error);
}
