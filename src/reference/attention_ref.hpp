#pragma once
// Attention evaluated in double from the same float32 inputs: the "verified" badge compares the
// float32 core with it (checks.hpp, float64_max_abs_diff). It follows the core's definitions
// exactly, pitfalls included, so the badge measures rounding and nothing else:
// - scores · scale, where scale is 1/√d_k in double unless a pitfall scale is given;
// - hidden entries -inf before the softmax, or, with mask_after_softmax, a softmax over every
//   key and the hidden weights set to 0 afterwards (no renormalisation);
// - a fully masked row has weights 0 and output 0.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "matrix.hpp"
#include "portable_math.hpp"

namespace attn::reference {

struct AttentionRef {
  std::vector<double> weights;  // n×m
  std::vector<double> output;   // n×d_v
};

// hidden: n×m flags (1 = hidden). Shapes as for attention(): q n×d, k m×d, v m×d_v.
inline AttentionRef attention_ref(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                                  const std::vector<std::uint8_t>& hidden, double scale,
                                  bool mask_after_softmax) {
  const std::size_t n = q.rows, m = k.rows, d = q.cols, dv = v.cols;
  AttentionRef r;
  r.weights.assign(n * m, 0.0);
  r.output.assign(n * dv, 0.0);
  std::vector<double> row(m);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* hide = hidden.data() + i * m;
    bool any_visible = false;
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < m; ++j) {
      any_visible = any_visible || !hide[j];
      double s = 0.0;
      for (std::size_t t = 0; t < d; ++t) s += double(q(i, t)) * double(k(j, t));
      row[j] = hide[j] && !mask_after_softmax ? -std::numeric_limits<double>::infinity() : s * scale;
      if (row[j] > max) max = row[j];
    }
    if (!any_visible) continue;  // defined as 0, in both modes
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) sum += row[j] = portable_exp(row[j] - max);
    double* w = r.weights.data() + i * m;
    for (std::size_t j = 0; j < m; ++j) w[j] = hide[j] ? 0.0 : row[j] / sum;
    double* z = r.output.data() + i * dv;
    for (std::size_t j = 0; j < m; ++j) {
      for (std::size_t t = 0; t < dv; ++t) z[t] += w[j] * double(v(j, t));
    }
  }
  return r;
}

}  // namespace attn::reference
