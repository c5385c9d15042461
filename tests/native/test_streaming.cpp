// The streaming (output-only) path against the explaining path and the float64 oracle.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <limits>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "kernels/streaming_attention.hpp"
#include "support/compare.hpp"
#include "support/oracle.hpp"
#include "support/seed.hpp"

using attn::Matrix;

namespace {

std::vector<float> streamed(const Matrix& q, const Matrix& k, const Matrix& v, bool causal,
                            attn::StreamingWorkspace& ws) {
  std::vector<float> out(q.rows * v.cols, std::numeric_limits<float>::quiet_NaN());
  attn::attention_output(q.data.data(), k.data.data(), v.data.data(), {q.rows, k.rows, q.cols, v.cols},
                         causal, out.data(), ws);
  return out;
}

// Streaming and explaining sum in different orders, both in float32. How far two float32
// evaluations of output row i may differ, from the sizes and the data
// (first order, worst case, u = eps/2 per rounding, each path's error counted once):
// - score q_i·k_j: a dot product of length d is off by at most d·u·Σ_t |q_it·k_jt|, which
//   is at most d·u·Σ_t |q_it|·max_j |k_jt|; the exponent is that times the scale 1/√d;
// - exp of the scaled, max-subtracted score: (|a| + 4)·eps relative (test_kernels.cpp's bound),
//   |a| at most scale·(max − min score) <= 2·scale·Σ_t |q_it|·max_j |k_jt|;
// - a relative error δ in every exp moves a weighted mean of v by at most 2·δ·max|v|;
// - the row sum and the m-term sum of weights·v: m·u each, and the final scaling u.
double output_row_bound(const Matrix& q, const Matrix& k, const Matrix& v, std::size_t i) {
  constexpr double u = FLT_EPSILON / 2;
  const std::size_t d = q.cols, m = k.rows;
  double qk = 0.0;  // Σ_t |q_it|·max_j |k_jt|: bounds Σ_t |q_it·k_jt| and |q_i·k_j| for every j
  for (std::size_t t = 0; t < d; ++t) {
    double column = 0.0;
    for (std::size_t j = 0; j < m; ++j) column = std::max(column, std::fabs(double(k(j, t))));
    qk += std::fabs(double(q(i, t))) * column;
  }
  double v_max = 0.0;
  for (float x : v.data) v_max = std::max(v_max, std::fabs(double(x)));
  const double scale = 1.0 / std::sqrt(double(d));
  const double exponent = scale * double(d) * u * qk;
  const double exp_relative = (2.0 * scale * qk + 4.0) * FLT_EPSILON;
  const double per_path = v_max * (2.0 * (exponent + exp_relative) + 2.0 * double(m) * u + u);
  return 2.0 * per_path + 1e-30;
}

}  // namespace

TEST_CASE("streaming equals the explaining path, dense and causal, over the shape sweep") {
  ATTN_SEEDED_RANDOM(rng, 41);
  attn::StreamingWorkspace ws;
  const std::size_t rows[] = {1, 2, 3, 5, 9, 17, 33, 64, 65, 257};
  const std::size_t depths[] = {1, 3, 8, 63, 64, 65};
  for (std::size_t n : rows) {
    for (std::size_t m : rows) {
      for (std::size_t d : depths) {
        const std::size_t dv = depths[rng.index(6)];
        const bool causal = rng.coin(0.5);
        CAPTURE(n); CAPTURE(m); CAPTURE(d); CAPTURE(dv); CAPTURE(causal);
        const Matrix q = rng.matrix(n, d, -2, 2), k = rng.matrix(m, d, -2, 2), v = rng.matrix(m, dv);
        attn::AttentionOptions o;
        if (causal) o.mask = attn::Mask::causal();
        const auto explained = attn::attention(q, k, v, o);
        const std::vector<float> got = streamed(q, k, v, causal, ws);
        for (std::size_t i = 0; i < n; ++i) {
          const double bound = output_row_bound(q, k, v, i);
          for (std::size_t t = 0; t < dv; ++t) {
            const double want = double(explained.output(i, t));
            if (!(std::fabs(double(got[i * dv + t]) - want) <= bound)) {
              CAPTURE(i); CAPTURE(t);
              FAIL("output " << got[i * dv + t] << ", explaining path " << want << ", bound " << bound);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("streaming matches the float64 oracle, and a late huge score rescales earlier blocks") {
  ATTN_SEEDED_RANDOM(rng, 42);
  attn::StreamingWorkspace ws;
  const Matrix q = rng.matrix(40, 16), v = rng.matrix(300, 5);
  Matrix k = rng.matrix(300, 16);
  // Key 250 (in the fourth block of 64) matches query 1 with a score near 1e4: the running max
  // jumps late, and everything summed before must be rescaled by e^(old max − new max).
  for (std::size_t t = 0; t < 16; ++t) k(250, t) = 100.0f * q(0, t) / std::fabs(q(0, t) + 1e-3f);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    std::vector<std::uint8_t> hidden;
    if (causal) {
      hidden.assign(40 * 300, 0);
      for (std::size_t i = 0; i < 40; ++i) for (std::size_t j = i + 1; j < 300; ++j) hidden[i * 300 + j] = 1;
    }
    const auto oracle = testsupport::oracle_attention(q, k, v, hidden);
    const std::vector<float> got = streamed(q, k, v, causal, ws);
    for (std::size_t i = 0; i < 40; ++i) {
      std::vector<double> want(oracle.output.begin() + std::ptrdiff_t(i * 5), oracle.output.begin() + std::ptrdiff_t(i * 5 + 5));
      CHECK(testsupport::compare_arrays(got.data() + i * 5, want.data(), 5, {output_row_bound(q, k, v, i), 0.0}, "output") == "");
    }
  }
  const auto dense = streamed(q, k, v, false, ws);
  for (std::size_t t = 0; t < 5; ++t) CHECK(dense[t] == doctest::Approx(v(250, t)).epsilon(1e-4));
}

TEST_CASE("streaming reuses its workspace and reports bad input like the explaining path") {
  attn::StreamingWorkspace ws;
  const Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1, 0}, {0, 1}, {1, 1}};
  const auto first = streamed(q, k, v, true, ws);
  const auto capacity = ws.scores.capacity() + ws.acc.capacity();
  CHECK(streamed(q, k, v, true, ws) == first);
  CHECK(ws.scores.capacity() + ws.acc.capacity() == capacity);
  CHECK(first[0] == 1.0f);  // the worked example, causal: token 1 sees only itself
  CHECK(first[2] == doctest::Approx(0.330238).epsilon(1e-5));

  Matrix bad = q;
  bad(1, 0) = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH_AS(streamed(bad, k, v, false, ws), "NaN at Q row 2 column 1", attn::Error);
  CHECK_THROWS_WITH_AS(streamed(Matrix{{1e20f}}, Matrix{{1e20f}}, Matrix{{1}}, false, ws),
                       "Scores row 1 column 1 overflows float32 (largest finite value ±3.4e38): "
                       "Q and K are too large; use smaller numbers",
                       attn::Error);
  std::vector<float> out(1);
  const std::vector<float> one(1, 1.0f);
  // Refused from the sizes alone, before any value is read.
  CHECK_THROWS_WITH_AS(attn::attention_output(one.data(), one.data(), one.data(), {65536, 65536, 4096, 4096}, false, out.data(), ws),
                       "Q, K, V and the output hold 1073741824 numbers together, over the limit of 67108864",
                       attn::Error);
}

namespace {

// The explaining path's output, or its error message.
struct Outcome {
  std::vector<float> output;
  std::string error;
};

Outcome explained(const Matrix& q, const Matrix& k, const Matrix& v, bool causal) {
  attn::AttentionOptions o;
  if (causal) o.mask = attn::Mask::causal();
  try {
    return {attn::attention(q, k, v, o).output.data, ""};
  } catch (const attn::Error& e) {
    return {{}, e.what()};
  }
}

Outcome streamed_outcome(const Matrix& q, const Matrix& k, const Matrix& v, bool causal,
                         attn::StreamingWorkspace& ws) {
  try {
    return {streamed(q, k, v, causal, ws), ""};
  } catch (const attn::Error& e) {
    return {{}, e.what()};
  }
}

}  // namespace

TEST_CASE("streaming and the explaining path agree on the fuzzer's cases") {
  attn::StreamingWorkspace ws;
  // A convex mix of representable values is representable: [2e38, 2e38] averages to 2e38,
  // though the streaming sum of exp·V before the division is 4e38.
  const Matrix q0{{0}}, k0{{0}, {0}}, v0{{2e38f}, {2e38f}};
  CHECK(explained(q0, k0, v0, false).output == std::vector<float>{2e38f});
  CHECK(streamed_outcome(q0, k0, v0, false, ws).output == std::vector<float>{2e38f});
  // A score of −9e76 is no masked key: both refuse it, with the same words.
  const Matrix q1{{3e38f}}, k1{{1}, {-3e38f}}, v1{{1}, {2}};
  const std::string overflow =
      "Scores row 1 column 2 overflows float32 (largest finite value ±3.4e38): Q and K are too "
      "large; use smaller numbers";
  CHECK(explained(q1, k1, v1, false).error == overflow);
  CHECK(streamed_outcome(q1, k1, v1, false, ws).error == overflow);
  // A hidden score counts too, in both: the causal call computes no block past the diagonal.
  const Matrix q2{{1}, {1}}, k2{{1}, {3e38f}}, v2{{1}, {2}};
  const Matrix big{{3e38f}, {3e38f}};
  CHECK(explained(big, k2, v2, true).error == streamed_outcome(big, k2, v2, true, ws).error);
  CHECK(explained(big, k2, v2, true).error.find("Scores row 1 column 2") == 0);
  const Matrix k3(100, 1, 1.0f), v3(100, 1, 1.0f);
  Matrix k3b = k3;
  k3b(99, 0) = 3e38f;
  CHECK(streamed_outcome(big, k3b, v3, true, ws).error == explained(big, k3b, v3, true).error);
  CHECK(streamed_outcome(q2, k2, v2, true, ws).output == explained(q2, k2, v2, true).output);
  // An output over float32's range: the same error from both.
  const Matrix v4{{3e38f}, {3.4e38f}};
  const Matrix q4{{0}}, k4{{1}, {1}};
  CHECK(explained(q4, k4, v4, false).output == streamed_outcome(q4, k4, v4, false, ws).output);
}

TEST_CASE("streaming and explaining agree near float32's edge, randomized") {
  ATTN_SEEDED_RANDOM(rng, 109);
  attn::StreamingWorkspace ws;
  // Entries whose products are exact in float32 (few significant bits) and d <= 3, so both
  // paths compute the same scores; sizes from 1 to 3e38, where sums and exp·V overflow.
  const float pool[] = {0.0f, 1.0f, -1.0f, 2.0f, -3.0f, 0.5f, 0x1p40f, -0x1p40f, 0x1p63f, -0x1p63f,
                        0x1p64f, 0x1.8p126f, -0x1.8p126f, 0x1.fffffep127f, -0x1.fffffep127f};
  const float values[] = {0.0f, 1.0f, -2.0f, 1e30f, 2e38f, -2e38f, 3e38f, 3.4e38f, -3.4e38f, 1e-40f};
  int agreed_results = 0, agreed_errors = 0;
  for (int trial = 0; trial < 6000; ++trial) {
    const std::size_t n = 1 + rng.index(4), m = 1 + rng.index(4), d = 1 + rng.index(3), dv = 1 + rng.index(3);
    const bool causal = rng.coin(0.5);
    Matrix q(n, d), k(m, d), v(m, dv);
    for (float& x : q.data) x = pool[rng.index(std::size(pool))];
    for (float& x : k.data) x = pool[rng.index(std::size(pool))];
    for (float& x : v.data) x = values[rng.index(std::size(values))];
    CAPTURE(trial); CAPTURE(n); CAPTURE(m); CAPTURE(d); CAPTURE(dv); CAPTURE(causal);
    const Outcome a = explained(q, k, v, causal), b = streamed_outcome(q, k, v, causal, ws);
    REQUIRE(a.error == b.error);
    if (!a.error.empty()) {
      ++agreed_errors;
      continue;
    }
    float size = 0.0f;
    for (float x : v.data) size = std::max(size, std::fabs(x));
    for (std::size_t i = 0; i < a.output.size(); ++i) {
      CAPTURE(i);
      REQUIRE(std::isfinite(a.output[i]));
      REQUIRE(std::fabs(double(a.output[i]) - double(b.output[i])) <= 1e-5 * double(size) + 1e-38);
    }
    ++agreed_results;
  }
  MESSAGE("near the edge: " << agreed_results << " results and " << agreed_errors << " errors agree");
  CHECK(agreed_results > 1000);
  CHECK(agreed_errors > 1000);
}

TEST_CASE("scores inf − inf in float32 are 0 in both paths, with no assertion") {
  // Every product is ±6e38: float32 sums give NaN, and debug builds asserted in the softmax.
  const Matrix q{{2, 2}}, k{{3e38f, -3e38f}, {3e38f, -3e38f}, {3e38f, -3e38f}, {3e38f, -3e38f}};
  const Matrix v{{1}, {2}, {3}, {4}};
  attn::StreamingWorkspace ws;
  CHECK(streamed(q, k, v, false, ws) == std::vector<float>{2.5f});
  const auto r = attn::attention(q, k, v);
  CHECK(r.scores.data == std::vector<float>(4, 0.0f));
  CHECK(r.output.data == std::vector<float>{2.5f});
}

TEST_CASE("streaming shapes whose size computation wraps are refused") {
  const std::string huge = std::to_string(SIZE_MAX);  // 2^64 − 1 natively, 2^32 − 1 in wasm
  // SIZE_MAX + 4095 wrapped to 4094, and the shape passed.
  const std::string rows = "m must be a whole number from 1 to 65536 (got " + huge + ")";
  CHECK_THROWS_WITH_AS(attn::validate_output_shape({6, SIZE_MAX, 4095, 1}), rows.c_str(), attn::Error);
  const std::string d = "d must be a whole number from 1 to 4096 (got " + huge + ")";
  CHECK_THROWS_WITH_AS(attn::validate_output_shape({1, 1, SIZE_MAX, 2}), d.c_str(), attn::Error);
  const std::string dv = "dv must be a whole number from 1 to 4096 (got " + huge + ")";
  CHECK_THROWS_WITH_AS(attn::validate_output_shape({1, 1, 1, SIZE_MAX}), dv.c_str(), attn::Error);
  CHECK_THROWS_WITH_AS(attn::validate_output_shape({0, 1, 1, 1}), "n must be a whole number from 1 to 65536 (got 0)",
                       attn::Error);
  CHECK_THROWS_AS(attn::validate_output_shape({SIZE_MAX / 2 + 1, 2, 2, 2}), attn::Error);
  CHECK_NOTHROW(attn::validate_output_shape({65536, 65536, 256, 256}));
}
