// Composable masks (attn::Mask): causal, key padding and a custom grid, alone and together,
// and the reason the core gives for each hidden cell.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "mask.hpp"
#include "multihead.hpp"
#include "support/oracle.hpp"

using attn::Mask;
using attn::Matrix;

namespace {

constexpr std::uint8_t C = attn::kHiddenCausal, P = attn::kHiddenPadding, U = attn::kHiddenCustom;

Matrix rows(std::size_t n, std::size_t d, float start) {
  Matrix out(n, d);
  for (std::size_t t = 0; t < n * d; ++t) out.data[t] = start + 0.25f * float(t % 7) - 0.5f * float(t % 3);
  return out;
}

attn::AttentionResult run(const Mask& mask, std::size_t n = 3, std::size_t m = 3) {
  attn::AttentionOptions o;
  o.mask = mask;
  return attn::attention(rows(n, 2, 0.5f), rows(m, 2, -0.25f), rows(m, 2, 1.0f), o);
}

}  // namespace

TEST_CASE("each kind alone gives its own reason, and nothing else is hidden") {
  CHECK(attn::expand_mask(Mask::none(), 2, 3) == std::vector<std::uint8_t>(6, 0));
  CHECK(attn::expand_mask(Mask::causal(), 3, 3) == std::vector<std::uint8_t>{0, C, C, 0, 0, C, 0, 0, 0});
  // Cross-attention, n ≠ m: key j is hidden from query i when j > i.
  CHECK(attn::expand_mask(Mask::causal(), 2, 4) == std::vector<std::uint8_t>{0, C, C, C, 0, 0, C, C});
  CHECK(attn::expand_mask(Mask::key_padding({0, 1, 0}), 2, 3) == std::vector<std::uint8_t>{0, P, 0, 0, P, 0});
  CHECK(attn::expand_mask(Mask::custom({1, 0, 0, 0, 0, 1}), 2, 3) == std::vector<std::uint8_t>{U, 0, 0, 0, 0, U});
}

TEST_CASE("the kinds combine as a union, and a cell hidden twice names both reasons") {
  Mask mask;
  mask.is_causal = true;
  mask.padded_keys = {0, 0, 1};
  mask.hidden_pairs = {0, 1, 0,   // row 1: key 2 by hand, and by the causal rule too
                       1, 0, 0,   // row 2: key 1 by hand
                       0, 0, 0};
  CHECK(attn::to_string(mask) == "causal + key padding + custom");
  const std::vector<std::uint8_t> want = {0, C | U, C | P,
                                          U, 0, C | P,
                                          0, 0, P};
  CHECK(attn::expand_mask(mask, 3, 3) == want);
  const auto r = run(mask);
  CHECK(r.hidden == want);
  CHECK(r.fully_masked == std::vector<std::uint8_t>{0, 0, 0});
  // The result is the one the union's 0/1 grid gives the float64 oracle.
  std::vector<std::uint8_t> flags(want.size());
  for (std::size_t t = 0; t < want.size(); ++t) flags[t] = want[t] != 0;
  const auto oracle = testsupport::oracle_attention(rows(3, 2, 0.5f), rows(3, 2, -0.25f), rows(3, 2, 1.0f), flags);
  for (std::size_t t = 0; t < 9; ++t) CHECK(double(r.weights.data[t]) == doctest::Approx(oracle.weights[t]).epsilon(1e-6));
  // Hidden cells are -inf in the softmax's input and 0 in A; visible ones keep their scaled score.
  for (std::size_t t = 0; t < 9; ++t) {
    CAPTURE(t);
    if (want[t]) {
      CHECK(r.scaled.data[t] == -std::numeric_limits<float>::infinity());
      CHECK(r.weights.data[t] == 0.0f);
    } else {
      CHECK(r.scaled.data[t] == r.scaled_before_mask.data[t]);
    }
  }
}

TEST_CASE("a row hidden by the union is fully masked: weights 0, output 0, never NaN") {
  // Row 1 sees only key 1 (causal), and key 1 is padding: nothing left. Row 3 loses key 3 by hand.
  Mask mask;
  mask.is_causal = true;
  mask.padded_keys = {1, 0, 0};
  mask.hidden_pairs = {0, 0, 0, 0, 0, 0, 0, 0, 1};
  for (bool after : {false, true}) {
    CAPTURE(after);
    attn::AttentionOptions o;
    o.mask = mask;
    o.pitfalls.mask_after_softmax = after;
    const auto r = attn::attention(rows(3, 2, 0.5f), rows(3, 2, -0.25f), rows(3, 2, 1.0f), o);
    CHECK(r.hidden == std::vector<std::uint8_t>{P, C, C, P, 0, C, P, 0, U});
    CHECK(r.fully_masked == std::vector<std::uint8_t>{1, 0, 0});
    if (!after) CHECK(r.row_sum[0] == 0.0f);  // the pitfall's softmax ran over every key
    for (std::size_t j = 0; j < 3; ++j) CHECK(r.weights(0, j) == 0.0f);
    for (std::size_t t = 0; t < 2; ++t) CHECK(r.output(0, t) == 0.0f);
    if (!after) CHECK(r.weights(1, 1) == 1.0f);  // row 2 sees key 2 alone
  }
}

TEST_CASE("multi-head attention takes the same union, the same reasons in every head") {
  attn::MultiHeadParams p;
  const std::size_t n = 3, d = 4;
  p.heads = 2;
  for (Matrix* w : {&p.wq, &p.wk, &p.wv, &p.wo}) {
    *w = Matrix(d, d);
    for (std::size_t i = 0; i < d; ++i) (*w)(i, i) = 1.0f;
  }
  Mask mask;
  mask.is_causal = true;
  mask.padded_keys = {0, 1, 0};
  const auto r = attn::multi_head_attention(rows(n, d, 0.5f), p, mask);
  for (const auto& head : r.heads) CHECK(head.hidden == std::vector<std::uint8_t>{0, C | P, C, 0, P, C, 0, P, 0});
}

TEST_CASE("a part of the wrong size is refused with what it needed; an empty part is no part") {
  Mask mask = Mask::causal();
  mask.padded_keys = {0, 1};
  CHECK_THROWS_WITH_AS(run(mask), "key padding mask has 2 entries but K has 3 rows: the mask needs one flag per key",
                       attn::Error);
  mask.padded_keys = {0, 1, 0};
  mask.hidden_pairs = {0, 1, 0, 1};
  CHECK_THROWS_WITH_AS(run(mask),
                       "custom mask has 4 entries but Q has 3 rows and K has 3: the mask needs n×m = 9 "
                       "flags, one per query and key",
                       attn::Error);
  mask.hidden_pairs.clear();
  CHECK(run(mask).hidden == std::vector<std::uint8_t>{0, C | P, C, 0, P, C, 0, P, 0});
  CHECK(attn::to_string(mask) == "causal + key padding");
  CHECK(attn::to_string(Mask::none()) == "none");
  CHECK(Mask::none().hides_nothing());
  CHECK(Mask::causal().causal_only());
  CHECK_FALSE(mask.causal_only());
}

TEST_CASE("the pitfall scales come from the core: 1/d_k and 1, and the correct 1/√d_k bit for bit") {
  const Matrix q = rows(2, 4, 0.5f), k = rows(3, 4, -0.25f), v = rows(3, 2, 1.0f);
  attn::AttentionOptions o;
  CHECK(attn::attention(q, k, v, o).scale == 1.0f / std::sqrt(4.0f));
  o.pitfalls.scaling = attn::Scaling::dk;
  CHECK(attn::attention(q, k, v, o).scale == 0.25f);
  CHECK(attn::exact_scale(o.pitfalls, 3) == 1.0 / 3.0);
  o.pitfalls.scaling = attn::Scaling::none;
  const auto unscaled = attn::attention(q, k, v, o);
  CHECK(unscaled.scale == 1.0f);
  CHECK(unscaled.scaled_before_mask.data == unscaled.scores.data);
  // A fixed scale replaces the rule.
  o.pitfalls.scale = 0.5f;
  CHECK(attn::attention(q, k, v, o).scale == 0.5f);
  CHECK(std::string(attn::to_string(attn::Scaling::sqrt_dk)) == "sqrt");
  CHECK(std::string(attn::to_string(attn::Scaling::dk)) == "dk");
  CHECK(std::string(attn::to_string(attn::Scaling::none)) == "none");
}

TEST_CASE("each MaskReason bit has one name, in bit order, as the binding exports them") {
  std::vector<std::string> names;
  std::uint8_t all = 0;
  std::uint8_t previous = 0;
  for (const attn::MaskReasonName& reason : attn::kMaskReasonNames) {
    CHECK(reason.bit > previous);
    CHECK((reason.bit & (reason.bit - 1)) == 0);  // one bit each
    previous = reason.bit;
    all = std::uint8_t(all | reason.bit);
    names.emplace_back(reason.name);
  }
  CHECK(names == std::vector<std::string>{"causal", "padding", "custom"});
  CHECK(all == (attn::kHiddenCausal | attn::kHiddenPadding | attn::kHiddenCustom));
}
