// GPT-2's kernels against their scalar references (computed in double): LayerNorm, the tanh
// GELU, and the weight-streaming product of the forward pass. Lengths around the vector width
// and random ones with tails, operands one float past an aligned address with NaN around them
// (a kernel that reads outside its row cannot pass), and the values where each one breaks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/gelu.hpp"
#include "kernels/layernorm.hpp"
#include "kernels/matmul.hpp"
#include "reference/gelu_ref.hpp"
#include "reference/layernorm_ref.hpp"
#include "reference/matmul_ref.hpp"
#include "support/seed.hpp"

using testsupport::Random;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kEps = FLT_EPSILON;

// The first i where |got − want| > bound(i) (NaN matches only NaN), described; empty if none.
std::string mismatch(const float* got, const float* want, std::size_t n, const std::function<double(std::size_t)>& bound) {
  for (std::size_t i = 0; i < n; ++i) {
    const bool both_nan = std::isnan(got[i]) && std::isnan(want[i]);
    const bool same_inf = std::isinf(want[i]) && got[i] == want[i];
    if (both_nan || same_inf) continue;
    const double err = std::fabs(double(got[i]) - double(want[i]));
    if (!(err <= bound(i))) {
      std::ostringstream out;
      out.precision(9);
      out << "[" << i << "] = " << got[i] << ", expected " << want[i] << " (difference " << err << ", allowed "
          << bound(i) << ")";
      return out.str();
    }
  }
  return {};
}

// Lengths: around this build's vector width N, GPT-2's widths, and random ones.
std::vector<std::size_t> lengths(Random& rng) {
  const std::size_t N = attn::kernels::kLanes;
  std::vector<std::size_t> sizes = {1, 2, 3, 5, 7, 15, 16, 17, 31, 48, 768, 1024, 3072};
  for (std::size_t s : {N - 1, N, N + 1, 2 * N + 1, 3 * N + 2, 8 * N + 2}) {
    if (s != 0) sizes.push_back(s);
  }
  for (int r = 0; r < 6; ++r) sizes.push_back(1 + rng.index(300));
  return sizes;
}

// n floats one past an aligned address, NaN on both sides.
struct Row {
  std::vector<float> buffer;
  float* data;
  explicit Row(std::size_t n) : buffer(n + 2 * 16 + 1, kNaN), data(buffer.data() + 17) {}
  bool guards_intact(std::size_t n) const {
    for (std::size_t i = 0; i < buffer.size(); ++i) {
      const bool inside = i >= 17 && i < 17 + n;
      if (!inside && !std::isnan(buffer[i])) return false;
    }
    return true;
  }
};

}  // namespace

TEST_CASE("the GPT-2 kernels' comparator fails on data that differ, and takes NaN only for NaN") {
  const float a[3] = {1.0f, 2.0f, kNaN}, b[3] = {1.0f, 2.001f, kNaN}, c[3] = {1.0f, 2.0f, 3.0f};
  const auto tight = [](std::size_t) { return 1e-6; };
  CHECK(mismatch(a, a, 3, tight).empty());
  CHECK_FALSE(mismatch(a, b, 3, tight).empty());
  CHECK_FALSE(mismatch(a, c, 3, tight).empty());
  CHECK_FALSE(mismatch(c, a, 3, tight).empty());
  CHECK(mismatch(a, b, 3, [](std::size_t) { return 0.01; }).empty());
}

TEST_CASE("layernorm matches its double reference: lengths with tails, offsets, tiny and huge spreads, constant rows") {
  ATTN_SEEDED_RANDOM(rng, 2601);
  struct Kind {
    float offset, spread;
  };
  const Kind kinds[] = {{0.0f, 1.0f}, {1e4f, 1.0f}, {-300.0f, 0.01f}, {0.0f, 1e-4f}, {5.0f, 1e4f}, {3.0f, 0.0f}};
  for (std::size_t n : lengths(rng)) {
    for (const Kind& kind : kinds) {
      CAPTURE(n);
      CAPTURE(kind.offset);
      CAPTURE(kind.spread);
      Row x(n), gamma(n), beta(n), got(n), want(n);
      for (std::size_t i = 0; i < n; ++i) {
        x.data[i] = kind.offset + kind.spread * rng.uniform();
        gamma.data[i] = rng.uniform(-2.0f, 2.0f);
        beta.data[i] = rng.uniform(-1.0f, 1.0f);
      }
      attn::kernels::layernorm(x.data, gamma.data, beta.data, got.data, n);
      attn::reference::layernorm_ref(x.data, gamma.data, beta.data, want.data, n);
      // The normalized value â = (y − β)/γ is good to a few ulp of itself and of 1 (the mean and
      // 1/σ each carry a few roundings, and more with the length's sums): scaled by |γ|, plus
      // the final multiply-add's rounding of y.
      const double k = 16.0 + 2.0 * std::sqrt(double(n));
      const auto bound = [&](std::size_t i) {
        const double normalized = std::fabs((double(want.data[i]) - double(beta.data[i])) / double(gamma.data[i]));
        return k * kEps * (std::fabs(double(gamma.data[i])) * (normalized + 1.0) + std::fabs(double(beta.data[i])));
      };
      CHECK_MESSAGE(mismatch(got.data, want.data, n, bound).empty(), mismatch(got.data, want.data, n, bound));
      CHECK(got.guards_intact(n));
    }
  }
}

TEST_CASE("layernorm in place, and a constant row gives beta") {
  const std::size_t n = 37;
  std::vector<float> x(n, 1234.5f), gamma(n, 3.0f), beta(n);
  for (std::size_t i = 0; i < n; ++i) beta[i] = float(i) * 0.25f;
  attn::kernels::layernorm(x.data(), gamma.data(), beta.data(), x.data(), n);
  for (std::size_t i = 0; i < n; ++i) CHECK(x[i] == beta[i]);

  Random rng(3);
  std::vector<float> y(n), want(n);
  for (float& v : y) v = rng.uniform(-3.0f, 3.0f);
  attn::reference::layernorm_ref(y.data(), gamma.data(), beta.data(), want.data(), n);
  attn::kernels::layernorm(y.data(), gamma.data(), beta.data(), y.data(), n);
  CHECK(mismatch(y.data(), want.data(), n, [](std::size_t) { return 1e-5; }).empty());
}

TEST_CASE("gelu_tanh matches its double reference over lengths with tails and wide ranges") {
  ATTN_SEEDED_RANDOM(rng, 2602);
  for (std::size_t n : lengths(rng)) {
    for (float range : {1.0f, 4.0f, 12.0f, 1e3f}) {
      CAPTURE(n);
      CAPTURE(range);
      Row x(n), got(n), want(n);
      for (std::size_t i = 0; i < n; ++i) x.data[i] = rng.uniform(-range, range);
      attn::kernels::gelu_tanh(x.data, got.data, n);
      attn::reference::gelu_tanh_ref(x.data, want.data, n);
      // σ(2u)'s relative error grows with |2u| where σ is small (an error of u moves e^{2u});
      // the reference's own 1 + tanh(u) underflows to 0 below x ≈ −9, where the true value is
      // under 1e-28: hence the absolute 1e-12.
      const auto bound = [&](std::size_t i) {
        const double v = double(x.data[i]);
        const double u = 0.7978845608 * (v + 0.044715 * v * v * v);
        return 1e-12 + 8.0 * kEps * std::fabs(double(want.data[i])) * (1.0 + 2.0 * std::fabs(u));
      };
      CHECK_MESSAGE(mismatch(got.data, want.data, n, bound).empty(), mismatch(got.data, want.data, n, bound));
      CHECK(got.guards_intact(n));
    }
  }
}

TEST_CASE("gelu_tanh at its extremes: zero, huge, infinite and NaN inputs, in every lane and in the tail") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> specials = {0.0f,   -0.0f,   1e-30f, -1e-30f, 1e-3f,   -1e-3f, 3.0f,    -3.0f,
                                       9.0f,   -9.0f,   10.5f,  -10.5f,  100.0f,  -100.0f, 1e20f,  -1e20f,
                                       FLT_MAX, -FLT_MAX, inf,  -inf,    kNaN,    30.0f,  -5.5f};
  for (std::size_t shift = 0; shift < 5; ++shift) {
    CAPTURE(shift);
    std::vector<float> x(specials.begin() + long(shift), specials.end()), got(x.size()), want(x.size());
    attn::kernels::gelu_tanh(x.data(), got.data(), x.size());
    attn::reference::gelu_tanh_ref(x.data(), want.data(), x.size());
    CHECK(mismatch(got.data(), want.data(), x.size(), [&](std::size_t i) {
            return 1e-12 + 1e-5 * std::fabs(double(want[i]));
          }).empty());
  }
  // What the formula gives: gelu(0) = 0, gelu(x) = x for large x, −0 (not NaN) for −FLT_MAX,
  // NaN for −inf (−inf·0) and for NaN.
  const float in[6] = {0.0f, 100.0f, -FLT_MAX, inf, -inf, kNaN};
  float out[6];
  attn::kernels::gelu_tanh(in, out, 6);
  CHECK(out[0] == 0.0f);
  CHECK(out[1] == 100.0f);
  CHECK(out[2] == 0.0f);
  CHECK(out[3] == inf);
  CHECK(std::isnan(out[4]));
  CHECK(std::isnan(out[5]));
  // In place.
  float v[3] = {1.0f, -1.0f, 2.0f}, w[3];
  attn::reference::gelu_tanh_ref(v, w, 3);
  attn::kernels::gelu_tanh(v, v, 3);
  CHECK(mismatch(v, w, 3, [](std::size_t) { return 1e-6; }).empty());
}

TEST_CASE("matvec_add adds one row times B against the float64 reference, over its eight segments and tail rows") {
  ATTN_SEEDED_RANDOM(rng, 2604);
  for (std::size_t k : {1, 3, 4, 5, 8, 63, 768}) {
    for (std::size_t p : {1, 3, 4, 5, 17, 64, 769, 3072}) {
      CAPTURE(k);
      CAPTURE(p);
      const std::size_t ldb = p + 5;
      std::vector<float> a(k), b(k * ldb, kNaN), c(p + 4, kNaN);
      for (float& v : a) v = rng.uniform();
      for (std::size_t t = 0; t < k; ++t) {
        for (std::size_t j = 0; j < p; ++j) b[t * ldb + j] = rng.uniform();
      }
      for (std::size_t j = 0; j < p; ++j) c[j] = rng.uniform();
      std::vector<float> want = c;
      attn::reference::matmul_ab_ref(a.data(), k, b.data(), ldb, want.data(), p, 1, k, p, attn::reference::Store::add);
      attn::kernels::matvec_add(a.data(), b.data(), ldb, c.data(), k, p);
      bool tail_untouched = true;
      for (std::size_t j = p; j < c.size(); ++j) tail_untouched = tail_untouched && std::isnan(c[j]);
      CHECK(tail_untouched);
      const double bound = 2.0 * double(k + 1) * kEps;  // as the blocked product's
      const std::string where = mismatch(c.data(), want.data(), p, [&](std::size_t) { return bound; });
      CHECK_MESSAGE(where.empty(), where);
    }
  }
}

TEST_CASE("matmul_abt_rows<8> (the unembedding's) and matmul_abt_row_pairs<4> (the logit lens's) sum each entry as matmul_abt does, over their steps and tails") {
  ATTN_SEEDED_RANDOM(rng, 2605);
  for (std::size_t n : {1, 2, 3, 5, 11}) {
    for (std::size_t m : {1, 7, 8, 9, 17, 100}) {
      for (std::size_t d : {1, 3, 4, 5, 64, 77}) {
        CAPTURE(n);
        CAPTURE(m);
        CAPTURE(d);
        const std::size_t ldb = d + 3, ldc = m + 2;
        std::vector<float> a(n * d), b(m * ldb, kNaN), same(n * ldc, kNaN), want(n * ldc, kNaN);
        for (float& v : a) v = rng.uniform();
        for (std::size_t j = 0; j < m; ++j) {
          for (std::size_t t = 0; t < d; ++t) b[j * ldb + t] = rng.uniform();
        }
        attn::kernels::matmul_abt(a.data(), d, b.data(), ldb, same.data(), ldc, n, m, d);
        attn::reference::matmul_abt_ref(a.data(), d, b.data(), ldb, want.data(), ldc, n, m, d);
        std::vector<float> eights(n * ldc, kNaN), pairs(n * ldc, kNaN);
        attn::kernels::matmul_abt_rows<8>(a.data(), d, b.data(), ldb, eights.data(), ldc, n, m, d);
        attn::kernels::matmul_abt_row_pairs<4>(a.data(), d, b.data(), ldb, pairs.data(), ldc, n, m, d);
        for (const std::vector<float>* c : {&eights, &pairs}) {
          for (std::size_t i = 0; i < n; ++i) {
            const auto row = c->begin() + std::ptrdiff_t(i * ldc);
            CHECK(std::equal(same.begin() + std::ptrdiff_t(i * ldc), same.begin() + std::ptrdiff_t(i * ldc + m), row));
            CHECK((std::isnan(row[std::ptrdiff_t(m)]) && std::isnan(row[std::ptrdiff_t(m + 1)])));
            const std::string where = mismatch(c->data() + i * ldc, want.data() + i * ldc, m, [&](std::size_t) { return 2.0 * double(d) * kEps; });
            CHECK_MESSAGE(where.empty(), where);
          }
        }
      }
    }
  }
}

TEST_CASE("matvec_abt_streams (the unembedding's) sums each entry as matmul_abt does, across its segments and tail rows") {
  ATTN_SEEDED_RANDOM(rng, 2606);
  for (std::size_t m : {1, 7, 8, 9, 17, 100, 263}) {
    for (std::size_t d : {1, 3, 4, 5, 64, 77}) {
      CAPTURE(m);
      CAPTURE(d);
      const std::size_t ldb = d + 3;
      std::vector<float> a(d), b(m * ldb, kNaN), c(m + 2, kNaN), same(m, kNaN), want(m, kNaN);
      for (float& v : a) v = rng.uniform();
      for (std::size_t j = 0; j < m; ++j) {
        for (std::size_t t = 0; t < d; ++t) b[j * ldb + t] = rng.uniform();
      }
      attn::kernels::matvec_abt_streams<8>(a.data(), b.data(), ldb, c.data(), m, d);
      attn::kernels::matmul_abt(a.data(), d, b.data(), ldb, same.data(), m, 1, m, d);
      attn::reference::matmul_abt_ref(a.data(), d, b.data(), ldb, want.data(), m, 1, m, d);
      CHECK(std::equal(same.begin(), same.end(), c.begin()));
      CHECK((std::isnan(c[m]) && std::isnan(c[m + 1])));
      const std::string where = mismatch(c.data(), want.data(), m, [&](std::size_t) { return 2.0 * double(d) * kEps; });
      CHECK_MESSAGE(where.empty(), where);
    }
  }
}

TEST_CASE("matmul_two_rows_abt (the attribution's) puts both rows of A against each row of B, over pairs of vectors and tails") {
  ATTN_SEEDED_RANDOM(rng, 2608);
  std::vector<std::size_t> depths = lengths(rng);
  for (std::size_t m : {1, 2, 7, 100}) {
    for (std::size_t d : depths) {
      CAPTURE(m);
      CAPTURE(d);
      const std::size_t ldb = d + 3;
      std::vector<float> a(2 * d), b(m * ldb, kNaN), c(2 * m + 2, kNaN), want(2 * m, kNaN);
      for (float& v : a) v = rng.uniform();
      for (std::size_t j = 0; j < m; ++j) {
        for (std::size_t t = 0; t < d; ++t) b[j * ldb + t] = rng.uniform();
      }
      attn::kernels::matmul_two_rows_abt(a.data(), b.data(), ldb, c.data(), m, d);
      attn::reference::matmul_abt_ref(b.data(), ldb, a.data(), d, want.data(), 2, m, 2, d);
      CHECK((std::isnan(c[2 * m]) && std::isnan(c[2 * m + 1])));
      const std::string where = mismatch(c.data(), want.data(), 2 * m, [&](std::size_t) { return 2.0 * double(d) * kEps; });
      CHECK_MESSAGE(where.empty(), where);
    }
  }
}

TEST_CASE("matmul_packed_ab_add_blocked adds A·B for A packed, across block edges and row tails") {
  ATTN_SEEDED_RANDOM(rng, 2603);
  using attn::kernels::kWeightBlockDepth;
  using attn::kernels::weight_block_shape;
  // Blocks of whole rows, kWeightBlockDepth of them up to 3,072 columns, fewer beyond (3,100: 63
  // rows), and column blocks where not even kMinWeightBlockDepth rows fit.
  const std::size_t widest = weight_block_shape(1'000'000).cols;
  CHECK(weight_block_shape(3072).cols == 3072);
  CHECK(weight_block_shape(3072).depth == kWeightBlockDepth);
  CHECK(weight_block_shape(3100).depth == kWeightBlockDepth - 1);
  CHECK(widest < 1'000'000);
  CHECK(weight_block_shape(widest).depth >= attn::kernels::kMinWeightBlockDepth);
  const std::size_t rows[] = {1, 2, 3, 4, 5, 7, 10, 13};
  const std::size_t depths[] = {1, 5, kWeightBlockDepth - 1, kWeightBlockDepth, kWeightBlockDepth + 1, 300};
  const std::size_t cols[] = {1, 7, 16, 48, 255, 256, 265, 600, 3100, widest + 9};
  for (std::size_t n : rows) {
    for (std::size_t k : depths) {
      for (std::size_t p : cols) {
        if (n * k * p > 1'500'000) continue;
        CAPTURE(n);
        CAPTURE(k);
        CAPTURE(p);
        const std::size_t ldb = p + 3, ldc = p + 2;
        std::vector<float> a(n * k), b(k * ldb, kNaN), c(n * ldc, kNaN);
        for (float& v : a) v = rng.uniform();
        for (std::size_t t = 0; t < k; ++t) {
          for (std::size_t j = 0; j < p; ++j) b[t * ldb + j] = rng.uniform();
        }
        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t j = 0; j < p; ++j) c[i * ldc + j] = rng.uniform();
        }
        std::vector<float> want = c;
        attn::reference::matmul_ab_ref(a.data(), k, b.data(), ldb, want.data(), ldc, n, k, p,
                                       attn::reference::Store::add);
        std::vector<float> packed(attn::kernels::packed_rows_size(n, k));
        attn::kernels::pack_rows(a.data(), k, n, k, packed.data());
        std::vector<float> block(attn::kernels::kWeightBlockFloats);
        attn::kernels::matmul_packed_ab_add_blocked(packed.data(), b.data(), ldb, c.data(), ldc, n, k, p,
                                                    block.data());
        bool gaps_untouched = true;
        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t j = p; j < ldc; ++j) gaps_untouched = gaps_untouched && std::isnan(c[i * ldc + j]);
        }
        CHECK(gaps_untouched);
        // A float dot product of k terms of magnitude ≤ 1, plus C's value: 2·(k + 1)·eps.
        const double bound = 2.0 * double(k + 1) * kEps;
        std::string where;
        for (std::size_t i = 0; i < n && where.empty(); ++i) {
          where = mismatch(c.data() + i * ldc, want.data() + i * ldc, p, [&](std::size_t) { return bound; });
        }
        CHECK_MESSAGE(where.empty(), where);
      }
    }
  }
}
