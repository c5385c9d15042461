#pragma once
// A head's scores (src/head_scores.hpp) as the JS fields both the learned heads' module and
// GPT-2's give each head: previousToken, firstToken and induction.
#include <emscripten/val.h>

#include <cstddef>

#include "head_scores.hpp"

namespace attn::bindings {

// Sets the three scores of a head run on n tokens on `head`. A mean over no positions is
// undefined: null, never NaN (n < 2 leaves no pair to score; induction needs a repeated token).
inline void set_head_scores(emscripten::val& head, const attn::HeadScores& s, std::size_t n) {
  using emscripten::val;
  head.set("previousToken", n > 1 ? val(s.previous_token) : val::null());
  head.set("firstToken", n > 1 ? val(s.first_token) : val::null());
  head.set("induction", s.induction_positions ? val(s.induction) : val::null());
}

}  // namespace attn::bindings
