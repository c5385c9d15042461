// GPT-2's forward pass (gpt2/forward.hpp) against the float64 reference (gpt2/reference/forward_ref.hpp)
// on tiny random models: every head's weights within 1e-4, the same top-5 next tokens with
// probabilities within 1e-3, rows summing to 1, the future exactly 0, the role scores those of
// the returned weights. The weight scales make attention peaked (checked), so a wrong scale,
// mask or head slice shows.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "error.hpp"
#include "gpt2/forward.hpp"
#include "gpt2/reference/forward_ref.hpp"
#include "kernels/matmul.hpp"
#include "head_scores.hpp"
#include "support/seed.hpp"
#include "native/gpt2_tiny_model.hpp"

using attn::gpt2::Config;
using attn::gpt2::RunOptions;
using attn::gpt2::Weights;
using testsupport::Random;
using gpt2test::Shape;
using gpt2test::tiny_model;
using gpt2test::ids_with_repeats;

namespace {

// The reference's top 5: probability descending, the lower id first among equals.
std::vector<std::size_t> top5(const std::vector<double>& p) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  order.resize(std::min<std::size_t>(5, order.size()));
  return order;
}

// Checks one run against the reference; returns the mean over rows i ≥ 1 of each row's largest weight.
double check_against_reference(const Weights& w, const std::vector<std::int32_t>& ids) {
  const std::size_t n = ids.size();
  const auto got = attn::gpt2::run(w, ids);
  const auto want = attn::gpt2::reference::forward_ref(w, ids);
  REQUIRE(got.tokens == n);
  REQUIRE(got.layers.size() == w.config.layers);
  double peak = 0.0;
  std::size_t peak_rows = 0;
  for (std::size_t l = 0; l < w.config.layers; ++l) {
    REQUIRE(got.layers[l].size() == w.config.heads);
    for (std::size_t h = 0; h < w.config.heads; ++h) {
      CAPTURE(l);
      CAPTURE(h);
      const auto& head = got.layers[l][h];
      const auto& ref = want.weights[l][h];
      REQUIRE(head.weights.size() == n * n);
      double worst = 0.0, worst_sum = 0.0;
      bool future_zero = true;
      for (std::size_t i = 0; i < n; ++i) {
        double sum = 0.0, best = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
          const float v = head.weights[i * n + j];
          worst = std::max(worst, std::fabs(double(v) - ref[i * n + j]));
          sum += double(v);
          best = std::max(best, double(v));
          if (j > i && v != 0.0f) future_zero = false;
        }
        worst_sum = std::max(worst_sum, std::fabs(sum - 1.0));
        if (i > 0) {
          peak += best;
          ++peak_rows;
        }
      }
      CHECK(worst <= 1e-4);
      CHECK(worst_sum <= 1e-5);
      CHECK(future_zero);
      // The scores are head_scores of the weights returned, and close to the reference's.
      const auto again = attn::head_scores(head.weights.data(), n, ids.data());
      CHECK(head.scores.previous_token == again.previous_token);
      CHECK(head.scores.first_token == again.first_token);
      CHECK(head.scores.induction == again.induction);
      CHECK(head.scores.induction_positions == again.induction_positions);
      const std::vector<float> ref_float(ref.begin(), ref.end());
      const auto from_ref = attn::head_scores(ref_float.data(), n, ids.data());
      CHECK(std::fabs(head.scores.previous_token - from_ref.previous_token) <= 1e-4);
      CHECK(std::fabs(head.scores.first_token - from_ref.first_token) <= 1e-4);
      CHECK(std::fabs(head.scores.induction - from_ref.induction) <= 1e-4);
      CHECK(head.scores.induction_positions == from_ref.induction_positions);
    }
  }
  const auto best = top5(want.probabilities);
  REQUIRE(got.next.size() == best.size());
  for (std::size_t r = 0; r < best.size(); ++r) {
    CAPTURE(r);
    CHECK(std::size_t(got.next[r].id) == best[r]);
    CHECK(std::fabs(double(got.next[r].probability) - want.probabilities[best[r]]) <= 1e-3);
  }
  return peak_rows ? peak / double(peak_rows) : 1.0;
}

const Shape kShapes[] = {
    {2, 32, 2, 64, 16},  // heads of 16
    {2, 48, 3, 97, 16},  // an odd width: 3 heads of 16
    {2, 32, 4, 50, 16},  // heads of 8
    {3, 40, 5, 33, 16},  // 5 heads of 8, a width of no power of 2
};

}  // namespace

TEST_CASE("GPT-2's forward pass matches the float64 reference on tiny models, at n = 1, a few, and the context") {
  ATTN_SEEDED_RANDOM(rng, 2604);
  for (const Shape& s : kShapes) {
    CAPTURE(s.d);
    CAPTURE(s.heads);
    const Weights w = tiny_model(rng, s);
    double peak = 0.0;
    int runs = 0;
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(5), std::size_t(11), s.context}) {
      CAPTURE(n);
      const double p = check_against_reference(w, ids_with_repeats(rng, n, s.vocab));
      if (n > 4) {
        peak += p;
        ++runs;
      }
    }
    // Peaked, not uniform: the rows' largest weight averages well above a uniform row's.
    MESSAGE("mean largest weight per row: " << peak / runs);
    CHECK(peak / runs > 0.5);
  }
}

TEST_CASE("GPT-2: only the layers asked for keep their weights; the scores and next tokens are the same") {
  ATTN_SEEDED_RANDOM(rng, 2605);
  const Shape s{3, 32, 2, 40, 16};
  const Weights w = tiny_model(rng, s);
  const auto ids = ids_with_repeats(rng, 9, s.vocab);
  const auto all = attn::gpt2::run(w, ids);
  RunOptions options;
  options.layers = std::vector<std::uint64_t>{2, 0, 2};
  const auto some = attn::gpt2::run(w, ids, options);
  CHECK(attn::gpt2::kept_layer_count(w.config, options) == 2);
  for (std::size_t l = 0; l < s.layers; ++l) {
    CAPTURE(l);
    for (std::size_t h = 0; h < s.heads; ++h) {
      if (l == 1) {
        CHECK(some.layers[l][h].weights.empty());
      } else {
        CHECK(some.layers[l][h].weights == all.layers[l][h].weights);
      }
      CHECK(some.layers[l][h].scores.previous_token == all.layers[l][h].scores.previous_token);
      CHECK(some.layers[l][h].scores.induction == all.layers[l][h].scores.induction);
    }
  }
  for (std::size_t r = 0; r < 5; ++r) {
    CHECK(some.next[r].id == all.next[r].id);
    CHECK(some.next[r].probability == all.next[r].probability);
  }
  options.layers = std::vector<std::uint64_t>{};
  const auto none = attn::gpt2::run(w, ids, options);
  for (const auto& layer : none.layers) {
    for (const auto& head : layer) CHECK(head.weights.empty());
  }
  options.layers = std::vector<std::uint64_t>{3};
  CHECK_THROWS_WITH_AS(attn::gpt2::run(w, ids, options), "layers holds 3: GPT-2's layers here are numbered 0 to 2",
                       attn::Error);
}

TEST_CASE("GPT-2 refuses empty input, more tokens than the context, and ids outside the vocabulary") {
  Random rng(2606);
  const Shape s{2, 32, 2, 64, 16};
  const Weights w = tiny_model(rng, s);
  CHECK_THROWS_WITH_AS(attn::gpt2::run(w, std::vector<std::int32_t>{}),
                       "There is no text to run: GPT-2 needs at least one token.", attn::Error);
  CHECK_NOTHROW(attn::gpt2::run(w, std::vector<std::int32_t>(16, 3)));
  CHECK_THROWS_WITH_AS(attn::gpt2::run(w, std::vector<std::int32_t>(17, 3)),
                       "the text is 17 tokens long, more than this model's context of 16 tokens", attn::Error);
  RunOptions end_of_text_first;
  end_of_text_first.end_of_text_first = true;
  CHECK_THROWS_WITH_AS(attn::gpt2::run(w, std::vector<std::int32_t>(17, 3), end_of_text_first),
                       "the text is 17 tokens long with <|endoftext|> first, more than this model's context of 16 tokens",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::gpt2::run(w, std::vector<std::int32_t>{1, 64}),
                       "Token 1 has id 64, but this model's vocabulary has 64 tokens, numbered 0 to 63.", attn::Error);
  CHECK_THROWS_AS(attn::gpt2::run(w, std::vector<std::int32_t>{-1}), attn::Error);
  Weights broken = tiny_model(rng, s);
  broken.blocks[1].fc_bias.pop_back();
  CHECK_THROWS_WITH_AS(attn::gpt2::run(broken, std::vector<std::int32_t>{1}),
                       "The model's c_fc bias has 127 numbers where its shape needs 128: the weights were not loaded "
                       "completely.",
                       attn::Error);
}

TEST_CASE("GPT-2 returns at most kMaxKeptWeights attention weights a run, and says what to do about more") {
  // One layer of two heads, each head one number wide: a context long enough to pass the limit.
  Random rng(2607);
  const Shape s{1, 2, 2, 8, 4096};
  const Weights w = tiny_model(rng, s);
  const auto limit_n = std::size_t(std::sqrt(double(attn::gpt2::kMaxKeptWeights / 2)));  // 2,896
  REQUIRE(2 * limit_n * limit_n <= attn::gpt2::kMaxKeptWeights);
  REQUIRE(2 * (limit_n + 1) * (limit_n + 1) > attn::gpt2::kMaxKeptWeights);
  const std::vector<std::int32_t> at_limit(limit_n, 1), past(limit_n + 1, 1);
  CHECK_NOTHROW(attn::gpt2::validate_run(w, at_limit.data(), at_limit.size(), {}));
  CHECK_THROWS_WITH_AS(attn::gpt2::validate_run(w, past.data(), past.size(), {}),
                       "1 layer of 2 heads at 2897 tokens would return 16,785,218 attention weights, more than the "
                       "16,777,216 one run returns: name fewer layers (options.layers) or use a shorter text",
                       attn::Error);
  RunOptions none;
  none.layers = std::vector<std::uint64_t>{};
  CHECK_NOTHROW(attn::gpt2::validate_run(w, past.data(), past.size(), none));
}

TEST_CASE("GPT-2's memory bound: run_bytes is the activations plus the kept weights, and stays small at GPT-2 small's shape") {
  Config small;
  small.layers = 12;
  small.heads = 12;
  small.d_model = 768;
  small.context = 1024;
  small.vocab_size = 50257;
  for (std::size_t n : {1, 10, 256, 1024}) {
    CAPTURE(n);
    const std::size_t none = attn::gpt2::run_bytes(small, n, 0);
    CHECK(attn::gpt2::run_bytes(small, n, 12) - none == 12 * 12 * n * n * sizeof(float));
    // Activations about 11·n·d floats, one head's scores, the last row's logits, the weight blocks,
    // the lens's ln_f rows (a row a layer), the attribution's 12·d floats' worth of sums and the
    // last position's rows it keeps, (1 + 5·layers)·d (the rest of their few KB falls within the 64 KB).
    CHECK(none <= (12 * n * 768 + n * n + 50257 + attn::kernels::kWeightBlockFloats + 2 * 12 * 768 + (1 + 5 * 12) * 768) *
                          sizeof(float) +
                      64 * 1024);
  }
  MESSAGE("GPT-2 small at 1,024 tokens: " << double(attn::gpt2::run_bytes(small, 1024, 0)) / 1e6 << " MB without weights, "
                                          << double(attn::gpt2::run_bytes(small, 1024, 12)) / 1e6 << " MB with all 144 heads'");
  CHECK(attn::gpt2::run_bytes(small, 1024, 0) < 48'000'000);
}
