// Bad input: each error names the matrix, the sizes and the rule, and nothing aborts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "attention.hpp"
#include "error.hpp"
#include "kernels/peak.hpp"
#include "kernels/streaming_attention.hpp"
#include "limits.hpp"
#include "multihead.hpp"
#include "random.hpp"
#include "scaling.hpp"
#include "timing.hpp"
#include "validate.hpp"

using attn::Mask;
using attn::Matrix;

namespace {

std::string error_of(const Matrix& q, const Matrix& k, const Matrix& v,
                     const attn::AttentionOptions& o = {}) {
  try {
    attn::attention(q, k, v, o);
  } catch (const attn::Error& e) {
    return e.what();
  }
  return "(no error)";
}

const Matrix kQ{{1, 1}, {0, 1}, {-1, 0}}, kK{{1, 0}, {0, 1}, {-1, 0}}, kV{{1, 0}, {0, 1}, {1, 1}};

}  // namespace

TEST_CASE("shape errors name both matrices and the rule") {
  CHECK(error_of(kQ, Matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, kV) ==
        "K has 3 columns but Q has 2: queries and keys must have the same length d_k");
  CHECK(error_of(kQ, kK, Matrix{{1}, {2}, {3}, {4}}) ==
        "V has 4 rows but K has 3: every key needs exactly one value");
  CHECK(error_of(Matrix(0, 2), kK, kV) ==
        "Q is empty (0×2): it needs at least one row and one column");
  CHECK(error_of(kQ, kK, Matrix(3, 0)) ==
        "V is empty (3×0): it needs at least one row and one column");
}

TEST_CASE("messages show a number or a string the caller gave as the JS API does") {
  CHECK(attn::number_text(2.0f) == "2");
  CHECK(attn::number_text(0.005f) == "0.005");
  CHECK(attn::number_text(-1.0f) == "-1");
  CHECK(attn::number_text(1e-7f) == "1e-7");
  CHECK(attn::number_text(std::numeric_limits<float>::quiet_NaN()) == "NaN");
  CHECK(attn::number_text(-std::numeric_limits<float>::infinity()) == "-Infinity");
  CHECK(attn::quoted("half") == "\"half\"");
  CHECK(attn::quoted("a very long scale name") == "\"a very long scale na…\"");
  CHECK(attn::quoted("ééééééééééé") == "\"éééééééééé…\"");  // cut between characters, not inside one
  CHECK_THROWS_WITH_AS(attn::validate_range("k", (std::uint64_t{1} << 32) + 1, 1, 100000),
                       "k must be a whole number from 1 to 100000 (got 4294967297)", attn::Error);
}

TEST_CASE("NaN and infinities are reported where they are, 1-based") {
  Matrix q = kQ;
  q(1, 0) = std::numeric_limits<float>::quiet_NaN();
  CHECK(error_of(q, kK, kV) == "NaN at Q row 2 column 1");
  Matrix v = kV;
  v(2, 1) = -std::numeric_limits<float>::infinity();
  CHECK(error_of(kQ, kK, v) == "-Infinity at V row 3 column 2: inputs must be finite numbers");
}

TEST_CASE("sizes over the documented limits are refused before any allocation") {
  CHECK(error_of(Matrix(1, attn::limits::kMaxCols + 1), Matrix(1, attn::limits::kMaxCols + 1),
                 kV) == "Q has 4097 columns, over the limit of 4096");
  // 4096 × 4096 scores would need 64 MiB per intermediate matrix.
  CHECK(error_of(Matrix(4096, 1), Matrix(4096, 1), Matrix(4096, 1)) ==
        "Q has 4096 rows and K has 4096: the 4096×4096 attention matrix is over the limit of "
        "4194304 entries (2048×2048)");
}

TEST_CASE("mask errors say what the mask needed") {
  attn::AttentionOptions o;
  o.mask = Mask::key_padding({0, 1});
  CHECK(error_of(kQ, kK, kV, o) ==
        "key padding mask has 2 entries but K has 3 rows: the mask needs one flag per key");
  o.mask = Mask::custom({0, 1, 0});
  CHECK(error_of(kQ, kK, kV, o) ==
        "custom mask has 3 entries but Q has 3 rows and K has 3: the mask needs n×m = 9 flags, "
        "one per query and key");
}

TEST_CASE("a pitfall scale must still be a positive finite number") {
  attn::AttentionOptions o;
  o.pitfalls.scale = 0.0f;
  CHECK(error_of(kQ, kK, kV, o).rfind("scale must be a finite number greater than 0", 0) == 0);
  o.pitfalls.scale = std::numeric_limits<float>::quiet_NaN();
  CHECK(error_of(kQ, kK, kV, o).rfind("scale must be a finite number greater than 0", 0) == 0);
}

TEST_CASE("float32 overflow of QKᵀ or AV is an error, not Inf or NaN") {
  const float big = 1e20f;  // big² = 1e40 > 3.4e38
  CHECK(error_of(Matrix{{big}}, Matrix{{big}}, Matrix{{1}}) ==
        "Scores row 1 column 1 overflows float32 (largest finite value ±3.4e38): Q and K are "
        "too large; use smaller numbers");
  const float vbig = 3e38f;
  CHECK(error_of(Matrix{{0}}, Matrix{{0}, {0}}, Matrix{{vbig}, {vbig}}) == "(no error)");
  CHECK(error_of(Matrix{{0}}, Matrix{{0}, {0}}, Matrix{{vbig, 1}, {vbig, 1}}) == "(no error)");
}

TEST_CASE("multi-head errors: divisibility, weight shapes, biases") {
  attn::MultiHeadParams p;
  p.wq = p.wk = p.wv = p.wo = Matrix(10, 10, 0.1f);
  p.heads = 3;
  const Matrix x(2, 10, 1.0f);
  CHECK_THROWS_WITH_AS(attn::multi_head_attention(x, p),
                       "d_model 10 is not divisible by 3 heads: each head needs d_k = d_model / h "
                       "columns",
                       attn::Error);
  p.heads = 2;
  p.wk = Matrix(10, 9, 0.1f);
  CHECK_THROWS_WITH_AS(attn::multi_head_attention(x, p),
                       "W_K is 10×9 but must be d_model×d_model = 10×10, since X has d_model = 10 "
                       "columns",
                       attn::Error);
  p.wk = p.wq;
  p.bv = {1, 2, 3};
  CHECK_THROWS_WITH_AS(attn::multi_head_attention(x, p),
                       "b_V has 3 entries but d_model is 10: a bias needs one entry per output "
                       "column",
                       attn::Error);
  p.bv.clear();
  p.heads = 0;
  CHECK_THROWS_WITH_AS(attn::multi_head_attention(x, p), "heads must be a whole number from 1 to 256 (got 0)",
                       attn::Error);
  p.heads = (std::uint64_t{1} << 32) + 1;  // as a caller gives it: 1 only if something narrowed it
  CHECK_THROWS_WITH_AS(attn::multi_head_attention(x, p),
                       "heads must be a whole number from 1 to 256 (got 4294967297)", attn::Error);
  p.heads = 1;
  CHECK_NOTHROW(attn::multi_head_attention(x, p));
  CHECK_THROWS_WITH_AS(attn::multi_head_attention(x, p, Mask::key_padding({1})),
                       "key padding mask has 1 entry but K has 2 rows: the mask needs one flag "
                       "per key",
                       attn::Error);
}

TEST_CASE("a custom mask's n·m cannot wrap around to match a short mask") {
  // n = 2^(bits − 1) + 1, m = 2: n·m wraps to 2, which a mask of two flags would match.
  const std::size_t n = SIZE_MAX / 2 + 2;
  const std::string message = "custom mask: Q has " + std::to_string(n) +
                              " rows and K has 2, too many for one flag per query and key";
  CHECK_THROWS_WITH_AS(attn::validate_mask(Mask::custom({1, 0}), n, 2), message.c_str(), attn::Error);
  CHECK_THROWS_AS(attn::validate_mask(Mask::custom({1, 0}), 3, 1), attn::Error);
  CHECK_NOTHROW(attn::validate_mask(Mask::custom({1, 0, 0}), 3, 1));
}

TEST_CASE("a matrix whose rows·cols wraps around is refused, not taken as small") {
  // 2^(bits-1) · 2 wraps to 0 in size_t: without the check an empty vector would pass.
  const std::size_t half = (SIZE_MAX >> 1) + 1;
  CHECK_THROWS_AS(Matrix(half, 2, std::vector<float>{}), attn::Error);
  CHECK_THROWS_AS(Matrix(half, 2), attn::Error);
  CHECK_THROWS_AS(Matrix(SIZE_MAX, SIZE_MAX, std::vector<float>(1)), attn::Error);
  CHECK_NOTHROW(Matrix(2, 0, std::vector<float>{}));
}

TEST_CASE("counts reach the core's range checks as the caller gave them, never narrowed first") {
  // 2³² + 1: a 32-bit size_t (wasm32) would have made it 1, inside every range below.
  constexpr std::uint64_t kWraps = (std::uint64_t{1} << 32) + 1;
  const auto message = [](const char* name, int lo, std::uint64_t hi) {
    return std::string(name) + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
           " (got " + std::to_string(kWraps) + ")";
  };
  attn::ScalingOptions scaling;
  scaling.bins = kWraps;
  CHECK_THROWS_WITH_AS(attn::scaling_experiment(scaling), message("bins", 1, attn::limits::kMaxScalingBins).c_str(),
                       attn::Error);
  attn::RowStudyOptions study;
  study.rows = kWraps;
  CHECK_THROWS_WITH_AS(attn::scaling_row_study(study), message("rows", 1, attn::limits::kMaxScalingRows).c_str(),
                       attn::Error);
  attn::TimingOptions timing;
  timing.repeats = kWraps;
  CHECK_THROWS_WITH_AS(attn::time_attention(timing), message("repeats", 1, attn::limits::kMaxTimingRepeats).c_str(),
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::normal_matrix(2, kWraps, 0), message("cols", 1, attn::limits::kMaxNormalSide).c_str(),
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::kernels::peak_mul_add(kWraps),
                       message("iterations", 1, attn::limits::kMaxPeakIterations).c_str(), attn::Error);
  CHECK_THROWS_WITH_AS(attn::kernels::peak_mul_add(0), "iterations must be a whole number from 1 to 4294967295 (got 0)",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::output_shape(2, kWraps, 1, 1), message("m", 1, attn::limits::kMaxRows).c_str(),
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::output_shape(2, 2, 0, 1), "d must be a whole number from 1 to 4096 (got 0)", attn::Error);
  CHECK_THROWS_WITH_AS(attn::validate_score_shape(kWraps, 1),
                       "Q has 4294967297 rows and K has 1: the 4294967297×1 attention matrix is over the limit of "
                       "4194304 entries (2048×2048)",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::validate_score_shape(0, 3),
                       "Q has 0 rows and K has 3: the 0×3 attention matrix is empty: it needs at least one query "
                       "and one key",
                       attn::Error);
  const attn::OutputShape shape = attn::output_shape(3, 5, 2, 4);
  CHECK((shape.n == 3 && shape.m == 5 && shape.d == 2 && shape.dv == 4));
}
