// Multi-head attention: heads are column slices of the projections, and one head with an
// identity output projection is plain attention.
#include <doctest/doctest.h>

#include <vector>

#include "attention.hpp"
#include "multihead.hpp"
#include "support/compare.hpp"
#include "support/seed.hpp"

using attn::Matrix;
using testsupport::Random;

namespace {

Matrix identity(std::size_t d) {
  Matrix m(d, d);
  for (std::size_t i = 0; i < d; ++i) m(i, i) = 1.0f;
  return m;
}

attn::MultiHeadParams random_params(Random& rng, std::size_t d, std::size_t h, bool bias) {
  attn::MultiHeadParams p;
  p.wq = rng.matrix(d, d);
  p.wk = rng.matrix(d, d);
  p.wv = rng.matrix(d, d);
  p.wo = rng.matrix(d, d);
  if (bias) {
    for (auto* b : {&p.bq, &p.bk, &p.bv, &p.bo}) *b = rng.matrix(1, d).data;
  }
  p.heads = h;
  return p;
}

std::vector<double> as_double(const std::vector<float>& x) { return {x.begin(), x.end()}; }

}  // namespace

TEST_CASE("multi-head with h = 1 and identity W_O equals single-head attention on the projections") {
  ATTN_SEEDED_RANDOM(rng, 21);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = 1 + rng.index(10), d = 1 + rng.index(12);
    const bool bias = rng.coin(0.5);
    CAPTURE(trial); CAPTURE(n); CAPTURE(d); CAPTURE(bias);
    attn::MultiHeadParams p = random_params(rng, d, 1, bias);
    p.wo = identity(d);
    p.bo.clear();
    const Matrix x = rng.matrix(n, d);
    const auto mh = attn::multi_head_attention(x, p, attn::Mask::causal());
    attn::AttentionOptions o;
    o.mask = attn::Mask::causal();
    const auto single = attn::attention(mh.q, mh.k, mh.v, o);
    REQUIRE(mh.heads.size() == 1);
    CHECK(testsupport::compare_matrix(mh.output.data, as_double(single.output.data), n, d,
                                      {1e-6, 1e-6}, "output") == "");
    CHECK(mh.heads[0].weights.data == single.weights.data);
  }
}

TEST_CASE("each head attends over its own column slice of Q, K and V") {
  ATTN_SEEDED_RANDOM(rng, 22);
  const std::size_t n = 5, d = 12, h = 3, d_k = 4;
  const attn::MultiHeadParams p = random_params(rng, d, h, true);
  const Matrix x = rng.matrix(n, d);
  const auto mh = attn::multi_head_attention(x, p);
  REQUIRE(mh.heads.size() == h);
  for (std::size_t head = 0; head < h; ++head) {
    CAPTURE(head);
    Matrix qh(n, d_k), kh(n, d_k), vh(n, d_k);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d_k; ++j) {
        qh(i, j) = mh.q(i, head * d_k + j);
        kh(i, j) = mh.k(i, head * d_k + j);
        vh(i, j) = mh.v(i, head * d_k + j);
      }
    }
    const auto single = attn::attention(qh, kh, vh);
    CHECK(mh.heads[head].weights.data == single.weights.data);
    CHECK(mh.heads[head].scale == doctest::Approx(0.5));  // 1/√d_k with d_k = 4
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d_k; ++j) CHECK(mh.concat(i, head * d_k + j) == single.output(i, j));
    }
  }
  // Projections include their bias: Q = X·W_Q + b_Q.
  double q00 = p.bq[0];
  for (std::size_t t = 0; t < d; ++t) q00 += double(x(0, t)) * double(p.wq(t, 0));
  CHECK(mh.q(0, 0) == doctest::Approx(q00).epsilon(1e-5));
}
