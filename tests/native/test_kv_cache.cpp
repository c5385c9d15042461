// Decoding with a KV cache and grouped K/V heads (kv_cache.hpp), against float64 references
// written out here: a decode step is the last row of causal attention over the whole text, GQA
// with h_kv = h is multi-head attention, and the cache's size is its formula.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "kv_cache.hpp"
#include "support/compare.hpp"
#include "support/seed.hpp"

using attn::Matrix;

namespace {

// Causal attention in double over row-major q (n×d_k, stride lq), k (n×d_k, stride lk),
// v (n×d_v, stride lv): Z, n×d_v.
std::vector<double> causal_ref(const float* q, std::size_t lq, const float* k, std::size_t lk, const float* v,
                               std::size_t lv, std::size_t n, std::size_t d_k, std::size_t d_v) {
  std::vector<double> z(n * d_v, 0.0), s(n);
  for (std::size_t i = 0; i < n; ++i) {
    double max = -INFINITY, sum = 0.0;
    for (std::size_t j = 0; j <= i; ++j) {
      double dot = 0.0;
      for (std::size_t t = 0; t < d_k; ++t) dot += double(q[i * lq + t]) * double(k[j * lk + t]);
      s[j] = dot / std::sqrt(double(d_k));
      max = std::max(max, s[j]);
    }
    for (std::size_t j = 0; j <= i; ++j) sum += std::exp(s[j] - max);
    for (std::size_t j = 0; j <= i; ++j) {
      const double w = std::exp(s[j] - max) / sum;
      for (std::size_t c = 0; c < d_v; ++c) z[i * d_v + c] += w * double(v[j * lv + c]);
    }
  }
  return z;
}

std::vector<float> row_of(const Matrix& m, std::size_t i) { return {m.row(i), m.row(i) + m.cols}; }

Matrix first_rows(const Matrix& m, std::size_t rows) {
  return Matrix(rows, m.cols, std::vector<float>(m.data.begin(), m.data.begin() + std::ptrdiff_t(rows * m.cols)));
}

}  // namespace

TEST_CASE("a decode step is the last row of causal attention over the whole text, and the cache grows by one row") {
  ATTN_SEEDED_RANDOM(rng, 4001);
  for (int trial = 0; trial < 30; ++trial) {
    const std::size_t n = 1 + rng.index(12), d_k = 1 + rng.index(9), d_v = 1 + rng.index(9);
    CAPTURE(trial); CAPTURE(n); CAPTURE(d_k); CAPTURE(d_v);
    const Matrix q = rng.matrix(n, d_k, -2.0f, 2.0f), k = rng.matrix(n, d_k, -2.0f, 2.0f), v = rng.matrix(n, d_v);
    const std::size_t m = n - 1;  // the cache holds the first n − 1 tokens; the last one is new
    const Matrix k_cache = first_rows(k, m), v_cache = first_rows(v, m);
    const auto step = attn::decode_step(k_cache, v_cache, row_of(q, m), row_of(k, m), row_of(v, m));
    REQUIRE(step.k.rows == n);
    REQUIRE(step.v.rows == n);
    CHECK(step.k.data == k.data);
    CHECK(step.v.data == v.data);
    REQUIRE(step.scores.size() == n);
    REQUIRE(step.weights.size() == n);
    const std::vector<double> z = causal_ref(q.data.data(), d_k, k.data.data(), d_k, v.data.data(), d_v, n, d_k, d_v);
    const std::vector<double> last(z.end() - std::ptrdiff_t(d_v), z.end());
    CHECK(testsupport::compare_matrix(step.output, last, 1, d_v, {1e-6, 1e-6}, "decoded row") == "");
    // The core's own full causal pass gives the same row.
    attn::AttentionOptions causal;
    causal.mask = attn::Mask::causal();
    const auto full = attn::attention(q, k, v, causal);
    const std::vector<double> full_last(full.output.data.end() - std::ptrdiff_t(d_v), full.output.data.end());
    CHECK(testsupport::compare_matrix(step.output, full_last, 1, d_v, {1e-6, 1e-6}, "against the core's full pass") == "");
    double sum = 0.0;
    for (float w : step.weights) sum += w;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    for (std::size_t j = 0; j < n; ++j) {
      double dot = 0.0;
      for (std::size_t t = 0; t < d_k; ++t) dot += double(q(m, t)) * double(k(j, t));
      CHECK(std::fabs(step.scores[j] - dot) <= 1e-5 * (1.0 + std::fabs(dot)));
    }
  }
}

TEST_CASE("a decode step from an empty cache attends to itself alone") {
  const auto step = attn::decode_step(Matrix().view(), Matrix().view(), {1.0f, 2.0f}, {3.0f, -1.0f}, {0.5f, 7.0f, -2.0f});
  CHECK(step.weights == std::vector<float>{1.0f});
  CHECK(step.output == std::vector<float>{0.5f, 7.0f, -2.0f});
  CHECK(step.scores == std::vector<float>{1.0f});
  CHECK(step.k.rows == 1);
  CHECK(step.v.cols == 3);
}

TEST_CASE("a decode step refuses mismatched lengths and non-finite entries in words") {
  const Matrix k{{1, 2}, {3, 4}}, v{{1}, {2}};
  const auto message = [&](auto f) {
    try {
      f();
    } catch (const attn::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { attn::decode_step(k, v, {1, 2, 3}, {1, 2, 3}, {1}); }).find("same d_k") != std::string::npos);
  CHECK(message([&] { attn::decode_step(k, v, {1, 2}, {1}, {1}); }).find("k_new has 1 entry but must have 2") != std::string::npos);
  CHECK(message([&] { attn::decode_step(k, v, {1, 2}, {1, 2}, {1, 2}); }).find("v_new has 2 entries but must have 1") != std::string::npos);
  CHECK(message([&] { attn::decode_step(k, Matrix{{1}}, {1, 2}, {1, 2}, {1}); }).find("one row in each") != std::string::npos);
  CHECK(message([&] { attn::decode_step(k, v, {1, NAN}, {1, 2}, {1}); }).find("q") != std::string::npos);
  CHECK(message([&] { attn::decode_step(k, v, {}, {1, 2}, {1}); }).find("q is empty") != std::string::npos);
}

TEST_CASE("grouped heads: each query head reads K/V head ⌊i / (h / h_kv)⌋, against float64 causal attention") {
  ATTN_SEEDED_RANDOM(rng, 4002);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t h = std::size_t(1) << rng.index(4), d_k = 1 + rng.index(4), n = 1 + rng.index(8);
    const std::size_t g = std::size_t(1) << rng.index(std::size_t(std::log2(double(h))) + 1);  // a power of 2 dividing h
    const std::size_t d = h * d_k;
    const bool causal = rng.coin(0.5);
    CAPTURE(trial); CAPTURE(h); CAPTURE(g); CAPTURE(d_k); CAPTURE(n); CAPTURE(causal);
    const Matrix q = rng.matrix(n, d), k = rng.matrix(n, g * d_k), v = rng.matrix(n, g * d_k);
    const auto r = attn::grouped_attention(q, k, v, h, g, causal);
    REQUIRE(r.heads.size() == h);
    CHECK(r.parameters == 2 * d * d + 2 * d * (d * g / h));
    CHECK(r.cache_bytes_per_token == 2 * g * d_k * 4);
    for (std::size_t i = 0; i < h; ++i) {
      const std::size_t kv = i / (h / g);
      CAPTURE(i);
      CHECK(r.heads[i].kv_head == kv);
      // Without the mask the reference is the causal one on a text whose rows all see each other:
      // compare through the core's attention() there, and through causal_ref with the mask.
      std::vector<float> zi(n * d_k);
      for (std::size_t t = 0; t < n; ++t) {
        for (std::size_t c = 0; c < d_k; ++c) zi[t * d_k + c] = r.output(t, i * d_k + c);
      }
      if (causal) {
        const auto want = causal_ref(q.data.data() + i * d_k, d, k.data.data() + kv * d_k, g * d_k, v.data.data() + kv * d_k,
                                     g * d_k, n, d_k, d_k);
        CHECK(testsupport::compare_matrix(zi, want, n, d_k, {1e-6, 1e-6}, "head output") == "");
      } else {
        const attn::MatrixView qi{q.data.data() + i * d_k, n, d_k, d}, ki{k.data.data() + kv * d_k, n, d_k, g * d_k},
            vi{v.data.data() + kv * d_k, n, d_k, g * d_k};
        const auto want = attn::attention(qi, ki, vi);
        CHECK(zi == want.output.data);
      }
    }
  }
}

TEST_CASE("GQA with h_kv = h is multi-head attention, and MQA shares one K/V head") {
  ATTN_SEEDED_RANDOM(rng, 4003);
  const std::size_t n = 5, h = 4, d_k = 3, d = h * d_k;
  const Matrix q = rng.matrix(n, d), k = rng.matrix(n, d), v = rng.matrix(n, d);
  const auto mha = attn::grouped_attention(q, k, v, h, h, true);
  for (std::size_t i = 0; i < h; ++i) {
    const attn::MatrixView qi{q.data.data() + i * d_k, n, d_k, d}, ki{k.data.data() + i * d_k, n, d_k, d},
        vi{v.data.data() + i * d_k, n, d_k, d};
    attn::AttentionOptions causal;
    causal.mask = attn::Mask::causal();
    CHECK(mha.heads[i].attention.weights.data == attn::attention(qi, ki, vi, causal).weights.data);
  }
  CHECK(mha.parameters == 4 * d * d);
  const Matrix k1 = rng.matrix(n, d_k), v1 = rng.matrix(n, d_k);
  const auto mqa = attn::grouped_attention(q, k1, v1, h, 1, false);
  for (const auto& head : mqa.heads) CHECK(head.kv_head == 0);
  CHECK(mqa.parameters == 2 * d * d + 2 * d * d_k);
}

TEST_CASE("grouped heads refuse an h_kv that does not divide h, and K/V of the wrong width, in words") {
  const Matrix q(2, 4, 0.5f), k(2, 2, 0.5f), v(2, 2, 0.5f);
  const auto message = [](auto f) {
    try {
      f();
    } catch (const attn::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { attn::grouped_attention(q, k, v, 4, 3, false); }) ==
        "3 K/V heads do not divide 4 query heads: each K/V head serves h / h_kv query heads, a whole number");
  CHECK(message([&] { attn::grouped_attention(q, k, v, 4, 5, false); }) == "K/V heads must be a whole number from 1 to 4 (got 5)");
  CHECK(message([&] { attn::grouped_attention(q, k, v, 4, 1, false); }).find("K is 2×2 but must be n×(d·h_kv/h) = 2×1") == 0);
  CHECK(message([&] { attn::grouped_attention(q, k, v, 3, 1, false); }).find("not divisible by 3 heads") != std::string::npos);
}

TEST_CASE("the KV cache's bytes: 2 × layers × h_kv × d_head × tokens × bytes, exact or refused") {
  // GPT-2 small at 1,024 tokens in fp16: 2·12·12·64·1024·2 bytes.
  CHECK(attn::kv_cache_bytes(12, 12, 64, 1024, 2) == 37748736u);
  // Llama-3-8B (32 layers, 8 K/V heads of 128) at 128k tokens in fp16: 16 GiB.
  CHECK(attn::kv_cache_bytes(32, 8, 128, 131072, 2) == 17179869184u);
  CHECK(attn::kv_cache_bytes(32, 32, 128, 0, 2) == 0u);
  CHECK_THROWS_WITH_AS(attn::kv_cache_bytes(0, 8, 128, 1, 2), "layers must be a whole number from 1 to 10000 (got 0)", attn::Error);
  CHECK_THROWS_AS(attn::kv_cache_bytes(10000, 10000, 100000, 9007199254740991u, 8), attn::Error);
}
