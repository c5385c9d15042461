#pragma once
// One attention() input decoded from fuzzer bytes (fuzz_input.hpp), shared by the attention and
// checks harnesses: Q, K, V at and past the limits, a mask of every kind, the pitfalls, and
// whether the core must accept it.
#include <cmath>
#include <cstddef>
#include <optional>

#include "attention.hpp"
#include "fuzz/agreement.hpp"
#include "fuzz/fuzz_input.hpp"
#include "limits.hpp"

namespace fuzz {

// Keeps one execution cheap: no matrix above this many floats, no oracle above kWork
// multiply-adds. Shapes past the limits stay past them.
inline constexpr std::size_t kFill = std::size_t{1} << 21;
inline constexpr std::size_t kWork = std::size_t{1} << 24;

// Rows and columns as decoded, brought within what can be allocated: absurd sizes become "just
// past the limit", which the core must refuse the same way.
inline void fit(std::size_t& rows, std::size_t& cols, std::size_t max_rows, std::size_t max_cols) {
  rows = std::min(rows, max_rows + 1);
  cols = std::min(cols, max_cols + 1);
  if (rows != 0 && rows * cols > kFill) cols = std::max<std::size_t>(1, kFill / rows);
}

struct AttentionCase {
  attn::Matrix q, k, v;
  DecodedMask mask;
  attn::AttentionOptions options;
  bool valid = true;        // sizes, mask and scale within the documented rules, every value finite
  double exact_scale = 0;   // the scale in double: 1/√d_k or the pitfall's
  float float_scale = 0;    // what the core should use

  bool streamable() const {  // the streaming path computes this too
    return !options.pitfalls.scale && !options.pitfalls.mask_after_softmax &&
           (options.mask.hides_nothing() || options.mask.causal_only());
  }
};

inline AttentionCase decode_attention_case(Input& in, std::size_t typical_rows, std::size_t typical_cols) {
  using attn::limits::kMaxCols;
  using attn::limits::kMaxRows;
  AttentionCase c;
  std::size_t n = in.size(typical_rows, kMaxRows), m = in.size(typical_rows, kMaxRows);
  std::size_t d = in.size(typical_cols, kMaxCols), dv = in.size(typical_cols, kMaxCols);
  const std::size_t mismatch = in.pick(32);  // 0: K's d_k differs from Q's, 1: V has one row too many
  fit(n, d, kMaxRows, kMaxCols);
  fit(m, d, kMaxRows, kMaxCols);
  fit(m, dv, kMaxRows, kMaxCols);
  while (n * m <= attn::limits::kMaxScoreEntries && n * m * (d + dv) > kWork && d + dv > 2) {
    if (d >= dv) d = (d + 1) / 2; else dv = (dv + 1) / 2;
  }
  c.q = in.matrix(n, d);
  c.k = in.matrix(m, mismatch == 0 ? d + 1 : d);
  c.v = in.matrix(mismatch == 1 ? m + 1 : m, dv);
  c.mask = decode_mask(in, n, m, attn::limits::kMaxScoreEntries);
  c.options.mask = c.mask.mask;
  switch (in.pick(8)) {
    case 0: c.options.pitfalls.scale = 1.0f; break;
    case 1: c.options.pitfalls.scale = d ? 1.0f / float(d) : 1.0f; break;
    case 2: c.options.pitfalls.scale = in.value(); break;
    default: break;
  }
  c.options.pitfalls.mask_after_softmax = in.pick(4) == 0;

  const auto& s = c.options.pitfalls.scale;
  c.valid = n >= 1 && m >= 1 && d >= 1 && dv >= 1 && n <= kMaxRows && m <= kMaxRows && d <= kMaxCols &&
            dv <= kMaxCols && mismatch > 1 && n * m <= attn::limits::kMaxScoreEntries && c.mask.valid &&
            (!s || (std::isfinite(*s) && *s > 0.0f)) && all_finite(c.q.data) && all_finite(c.k.data) &&
            all_finite(c.v.data);
  if (c.valid) {
    c.exact_scale = s ? double(*s) : 1.0 / std::sqrt(double(d));
    c.float_scale = s ? *s : 1.0f / std::sqrt(float(d));
  }
  return c;
}

inline Reference reference(const AttentionCase& c) {
  return reference(c.q, c.k, c.v, c.mask.hidden, c.exact_scale, c.options.pitfalls.mask_after_softmax);
}

}  // namespace fuzz
