// Constructed heads: the presets give the intended attention pattern through the core's own
// multi-head attention (h = 1, W_V = W_O = identity, causal mask).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "construct.hpp"
#include "error.hpp"
#include "multihead.hpp"

using attn::HeadKind;

namespace {

attn::Matrix identity(std::size_t d) {
  attn::Matrix m(d, d);
  for (std::size_t i = 0; i < d; ++i) m(i, i) = 1.0f;
  return m;
}

// The head's weights as the core computes them.
attn::Matrix run(const attn::ConstructedHead& h) {
  attn::MultiHeadParams p;
  p.wq = h.wq;
  p.wk = h.wk;
  p.wv = identity(h.x.cols);
  p.wo = identity(h.x.cols);
  p.heads = 1;
  return attn::multi_head_attention(h.x, p, attn::Mask::causal()).heads.at(0).weights;
}

// Every query's argmax is an intended key, and the intended keys together hold > 0.9 of the
// weight; with one intended key per query (single), that key alone holds > 0.9.
void check_pattern(HeadKind kind, const std::string& sentence, bool single) {
  const attn::ConstructedHead h = attn::constructed_head(kind, sentence);
  const attn::Matrix w = run(h);
  CAPTURE(attn::to_string(kind));
  CAPTURE(sentence);
  for (std::size_t i = 0; i < w.rows; ++i) {
    CAPTURE(i);
    const float* row = w.row(i);
    const std::size_t argmax = std::size_t(std::max_element(row, row + w.cols) - row);
    const auto& want = h.expected[i];
    CHECK(std::find(want.begin(), want.end(), argmax) != want.end());
    double on_expected = 0.0;
    for (std::size_t j : want) on_expected += row[j];
    CHECK(on_expected > 0.9);
    if (single) CHECK(row[argmax] > 0.9);
  }
}

}  // namespace

TEST_CASE("the default sentence: tokens, features and x") {
  const attn::ConstructedHead h = attn::constructed_head(HeadKind::previous_token);
  CHECK(h.tokens == std::vector<std::string>{"The", "cat", "sat", "on", "the", "mat", "because",
                                             "it", "was", "tired"});
  // "The" and "the" are one token identity.
  CHECK(h.features == std::vector<std::string>{"pos 1", "pos 2", "pos 3", "pos 4", "pos 5",
                                               "pos 6", "pos 7", "pos 8", "pos 9", "pos 10",
                                               "the", "cat", "sat", "on", "mat", "because", "it",
                                               "was", "tired"});
  CHECK(h.x.rows == 10);
  CHECK(h.x.cols == 19);
  CHECK(h.x(0, 0) == 1.0f);
  CHECK(h.x(0, 10) == 1.0f);
  CHECK(h.x(4, 4) == 1.0f);
  CHECK(h.x(4, 10) == 1.0f);  // the second "the"
  CHECK(h.wq.rows == 19);
  CHECK(h.wk.cols == 19);
  CHECK(h.strength == 6.0f);
  for (float v : h.wq.data) CHECK((v == 0.0f || v == 6.0f));
  CHECK(h.expected[0] == std::vector<std::size_t>{0});
  CHECK(h.expected[5] == std::vector<std::size_t>{4});
  CHECK(attn::constructed_head(HeadKind::same_token).expected[4] == std::vector<std::size_t>{0, 4});
  CHECK(attn::constructed_head(HeadKind::first_token).expected[9] == std::vector<std::size_t>{0});
}

TEST_CASE("constructed heads give their intended argmax through multi-head attention") {
  const std::vector<std::string> sentences{
      attn::kDefaultSentence,
      "a",
      "  the cat  and THE dog\tand the bird  ",
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen",
      "a a a a a a a a a a a a a a a a",
  };
  for (const std::string& s : sentences) {
    check_pattern(HeadKind::previous_token, s, true);
    check_pattern(HeadKind::first_token, s, true);
    // Same-token splits its weight between the occurrences of the word.
    check_pattern(HeadKind::same_token, s, false);
  }
}

TEST_CASE("constructed heads: clear errors") {
  CHECK(attn::head_kind_from_string("first-token") == HeadKind::first_token);
  CHECK_THROWS_WITH_AS(attn::head_kind_from_string("induction"),
                       "kind must be 'previous-token', 'first-token' or 'same-token' (got \"induction\")",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::constructed_head(HeadKind::first_token, "   "),
                       "the sentence has no words: type a few, separated by spaces", attn::Error);
  CHECK_THROWS_WITH_AS(attn::constructed_head(HeadKind::first_token, "a b c d e f g h i j k l m n o p q"),
                       "the sentence has 17 words, over the limit of 16 for this lab", attn::Error);
}
