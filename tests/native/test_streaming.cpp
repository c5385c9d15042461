// The streaming (output-only) path against the explaining path and the float64 oracle.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "streaming.hpp"
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

// Streaming and explaining sum in different orders; both are float32.
const testsupport::Tolerance kTolerance{2e-5, 2e-5};

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
        const std::vector<double> want(explained.output.data.begin(), explained.output.data.end());
        REQUIRE(testsupport::compare_matrix(streamed(q, k, v, causal, ws), want, n, dv, kTolerance, "output") == "");
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
    CHECK(testsupport::compare_matrix(streamed(q, k, v, causal, ws), oracle.output, 40, 5, kTolerance, "output") == "");
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
