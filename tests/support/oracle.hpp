#pragma once
// Attention computed the plain way in double precision: the oracle the float32 core is checked
// against. Written independently of the core (no kernels, no shared code) on purpose.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "matrix.hpp"

namespace testsupport {

struct OracleResult {
  std::vector<double> scores, weights, output;  // n×m, n×m, n×d_v
  std::vector<bool> fully_masked;
};

// hidden: n×m flags (1 = hidden), or empty for no mask.
inline OracleResult oracle_attention(const attn::Matrix& q, const attn::Matrix& k,
                                     const attn::Matrix& v,
                                     const std::vector<std::uint8_t>& hidden = {},
                                     double scale = 0.0) {
  const std::size_t n = q.rows, m = k.rows, d = q.cols, dv = v.cols;
  if (scale == 0.0) scale = 1.0 / std::sqrt(double(d));
  OracleResult r;
  r.scores.assign(n * m, 0.0);
  r.weights.assign(n * m, 0.0);
  r.output.assign(n * dv, 0.0);
  r.fully_masked.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> row(m);
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < m; ++j) {
      double s = 0.0;
      for (std::size_t t = 0; t < d; ++t) s += double(q(i, t)) * double(k(j, t));
      r.scores[i * m + j] = s;
      const bool hide = !hidden.empty() && hidden[i * m + j];
      row[j] = hide ? -std::numeric_limits<double>::infinity() : s * scale;
      if (row[j] > max) max = row[j];
    }
    if (std::isinf(max)) {
      r.fully_masked[i] = true;
      continue;
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) sum += row[j] = std::exp(row[j] - max);
    for (std::size_t j = 0; j < m; ++j) {
      r.weights[i * m + j] = row[j] / sum;
      for (std::size_t t = 0; t < dv; ++t) r.output[i * dv + t] += row[j] / sum * double(v(j, t));
    }
  }
  return r;
}

}  // namespace testsupport
