#pragma once
// What "agrees with the float64 oracle" means for inputs of any magnitude, and the checks that
// hold an attention result (explaining or streaming) to it.
//
// The stated tolerance (README, "Test fixtures and tolerances") is |core − oracle| ≤ 1e-5 +
// 1e-5·|oracle| for values of order 1. At other magnitudes it scales: an output is a weighted
// mean of V's column, so its 1e-5 is relative to that column's largest |v|. On top of it comes
// what float32 cannot avoid, from the standard forward error bounds (γ_k = k·u/(1 − k·u),
// u = 2⁻²⁴):
// - a score QKᵀ_ij is off by at most γ_{d+1}·Σ_t |q_it·k_jt| (any summation order), and the
//   scale by 4u relative; call the scaled error δ_ij;
// - a softmax weight then is off by a factor e^{±2·max_j δ_ij} (both the entry and the row max
//   move), plus γ_{m+4} for the exp, the sum and the division;
// - the output Σ_j w_j·v_j adds γ_{m+2}·Σ_j w_j·|v_j|.
// When the scores are far larger than 1/u (|QKᵀ| ≈ 1e30, or a huge pitfall scale), e^{2δ} is
// huge and any weights in [0, 1] are right: the comparison then degrades to what always holds,
// finite weights in [0, 1] summing to 1 and outputs inside the visible values' range (with 0
// in it for the mask-after-softmax pitfall, whose weights sum to less than 1), within rounding.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attention.hpp"
#include "fuzz/fuzz_input.hpp"
#include "support/oracle.hpp"

namespace fuzz {

inline constexpr double kUnit = 0x1p-24;   // float32 unit roundoff
inline constexpr double kStated = 1e-5;    // the README's tolerance at unit scale
inline constexpr double kDenormal = 0x1p-149;
// Beyond this no float32 computation of the kind below may overflow, so an input whose oracle
// stays under it must not be rejected as "too large" by either path.
inline constexpr double kSafeMagnitude = 1e37;

inline double gamma(double k) { return k * kUnit / (1.0 - k * kUnit); }

struct Reference {
  std::size_t n = 0, m = 0, d = 0, dv = 0;
  bool mask_after_softmax = false;
  std::vector<std::uint8_t> hidden;     // n×m
  std::vector<std::uint8_t> fully_masked;
  std::vector<double> scores;           // QKᵀ in double, n×m
  std::vector<double> score_error;      // bound on |float32 QKᵀ − QKᵀ|, n×m
  std::vector<double> weights, output;  // the oracle's, n×m and n×dv
  std::vector<double> slack;            // per row: relative weight error allowed (up to 1e300)
  std::vector<double> output_tolerance; // n×dv
  double max_abs_score = 0.0, max_abs_scaled = 0.0, max_abs_v = 0.0;

  // Could a correct float32 core overflow anywhere on this input? If not, it must not throw.
  bool representable() const {
    return max_abs_score <= kSafeMagnitude && max_abs_scaled <= kSafeMagnitude && max_abs_v <= kSafeMagnitude;
  }
};

// The oracle (tests/support/oracle.hpp) for q, k, v with the n×m hidden flags, the exact scale
// (1/√d_k in double, or the pitfall's), and the bounds above. `mask_after_softmax`: the pitfall,
// a softmax over every key whose hidden weights are then zeroed without renormalizing.
inline Reference reference(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
                           const std::vector<std::uint8_t>& hidden, double scale, bool mask_after_softmax) {
  Reference r;
  r.n = q.rows, r.m = k.rows, r.d = q.cols, r.dv = v.cols;
  r.mask_after_softmax = mask_after_softmax;
  r.hidden = hidden;
  const std::size_t n = r.n, m = r.m, d = r.d, dv = r.dv;
  testsupport::OracleResult o =
      testsupport::oracle_attention(q, k, v, mask_after_softmax ? std::vector<std::uint8_t>{} : hidden, scale);
  r.scores = std::move(o.scores);
  r.weights = std::move(o.weights);
  r.output = std::move(o.output);
  r.fully_masked.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    bool all = true;
    for (std::size_t j = 0; j < m; ++j) all = all && hidden[i * m + j];
    r.fully_masked[i] = all;
  }
  if (mask_after_softmax) {
    for (std::size_t i = 0; i < n; ++i) {
      double* z = r.output.data() + i * dv;
      std::fill(z, z + dv, 0.0);
      for (std::size_t j = 0; j < m; ++j) {
        double& w = r.weights[i * m + j];
        if (hidden[i * m + j]) w = 0.0;
        for (std::size_t t = 0; t < dv; ++t) z[t] += w * double(v(j, t));
      }
    }
  }
  r.max_abs_v = max_abs(v.data);

  r.score_error.assign(n * m, 0.0);
  r.slack.assign(n, 0.0);
  r.output_tolerance.assign(n * dv, 0.0);
  std::vector<double> column_max(dv, 0.0);
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t t = 0; t < dv; ++t) column_max[t] = std::fmax(column_max[t], std::fabs(double(v(j, t))));
  }
  for (std::size_t i = 0; i < n; ++i) {
    double worst = 0.0;  // max_j δ_ij over the keys the softmax sees
    for (std::size_t j = 0; j < m; ++j) {
      double abs_sum = 0.0;
      for (std::size_t t = 0; t < d; ++t) abs_sum += std::fabs(double(q(i, t)) * double(k(j, t)));
      const double s = r.scores[i * m + j];
      r.score_error[i * m + j] = gamma(double(d + 1)) * abs_sum + double(d) * kDenormal;
      r.max_abs_score = std::fmax(r.max_abs_score, std::fabs(s));
      r.max_abs_scaled = std::fmax(r.max_abs_scaled, std::fabs(s * scale));
      if (mask_after_softmax || !hidden[i * m + j]) {
        worst = std::fmax(worst, scale * r.score_error[i * m + j] + 4 * kUnit * std::fabs(s * scale));
      }
    }
    const double c = kStated + gamma(double(m + 4)) + std::fmin(std::expm1(2 * worst), 1e300);
    r.slack[i] = c;
    for (std::size_t t = 0; t < dv; ++t) {
      double spread = 0.0;  // Σ_j w_j·|v_jt|, with w_j as large as the slack lets it be
      double lo = mask_after_softmax ? 0.0 : std::numeric_limits<double>::infinity(), hi = -lo;
      for (std::size_t j = 0; j < m; ++j) {
        const double x = v(j, t);
        spread += r.weights[i * m + j] * (1 + c) * std::fabs(x);
        if (!hidden[i * m + j]) lo = std::fmin(lo, x), hi = std::fmax(hi, x);
      }
      const double z = r.output[i * dv + t];
      // Weights within the slack, or any weights at all: a point of [lo, hi]. Past a slack of 1
      // only the latter: an oracle weight that underflowed to 0 in double bounds nothing then.
      const double weighted = c < 1 ? (c + gamma(double(m + 2))) * spread : std::numeric_limits<double>::infinity();
      const double anywhere = lo <= hi ? std::fmax(hi - z, z - lo) + gamma(double(m + 2)) * column_max[t] : 0.0;
      r.output_tolerance[i * dv + t] = kStated * column_max[t] + kStated * std::fabs(z) +
                                       std::fmin(weighted, anywhere) + double(m) * kDenormal;
    }
  }
  return r;
}

inline std::string where(const char* what, std::size_t i, std::size_t j, double got, double want, double allowed) {
  std::ostringstream out;
  out.precision(9);
  out << what << " row " << i + 1 << " column " << j + 1 << " = " << got << ", oracle " << want
      << " (difference " << std::fabs(got - want) << ", allowed " << allowed << ")";
  return out.str();
}

// An n×dv output (either path) against the oracle.
inline void check_output(const float* out, const Reference& ref, const char* path) {
  for (std::size_t i = 0; i < ref.n; ++i) {
    for (std::size_t t = 0; t < ref.dv; ++t) {
      const double got = out[i * ref.dv + t], want = ref.output[i * ref.dv + t];
      const double allowed = ref.output_tolerance[i * ref.dv + t];
      if (!std::isfinite(got)) fail(path, where("output is not finite:", i, t, got, want, allowed));
      if (!(std::fabs(got - want) <= allowed)) fail(path, where("output", i, t, got, want, allowed));
    }
  }
}

// Every intermediate of an explaining-path result, against the oracle and against each other.
inline void check_attention_result(const attn::AttentionResult& r, const Reference& ref, float expected_scale) {
  const std::size_t n = ref.n, m = ref.m, dv = ref.dv;
  const char* path = "attention()";
  FUZZ_CHECK(std::fabs(double(r.scale) - double(expected_scale)) <= 2 * kUnit * double(expected_scale), path,
          "scale differs from the one asked for");
  for (const attn::Matrix* x : {&r.scores, &r.scaled_before_mask, &r.scaled, &r.exp, &r.weights}) {
    FUZZ_CHECK(x->rows == n && x->cols == m && x->data.size() == n * m, path, "an n×m intermediate has the wrong shape");
  }
  FUZZ_CHECK(r.output.rows == n && r.output.cols == dv && r.output.data.size() == n * dv, path, "output shape");
  FUZZ_CHECK(r.row_max.size() == n && r.row_sum.size() == n, path, "row_max/row_sum size");
  FUZZ_CHECK(r.hidden == ref.hidden, path, "hidden flags (the mask's reasons) differ from the mask");
  FUZZ_CHECK(r.fully_masked == ref.fully_masked, path, "fully_masked differs from the mask");
  FUZZ_CHECK(all_finite(r.scores.data) && all_finite(r.scaled_before_mask.data) && all_finite(r.exp.data) &&
              all_finite(r.weights.data) && all_finite(r.output.data) && all_finite(r.row_sum),
          path, "returned a non-finite number");

  for (std::size_t i = 0; i < n; ++i) {
    const bool before = !ref.mask_after_softmax;
    double sum = 0.0;
    float row_max = -std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < m; ++j) {
      const std::size_t e = i * m + j;
      const double s = r.scores.data[e];
      FUZZ_CHECK(std::fabs(s - ref.scores[e]) <= 2 * ref.score_error[e], path,
              where("score", i, j, s, ref.scores[e], 2 * ref.score_error[e]));
      const float masked = r.scaled.data[e];
      if (before && ref.hidden[e]) {
        FUZZ_CHECK(masked == -std::numeric_limits<float>::infinity(), path, where("hidden score not -inf", i, j, masked, 0, 0));
      } else {
        FUZZ_CHECK(masked == r.scaled_before_mask.data[e], path, where("masked differs from scaled", i, j, masked, r.scaled_before_mask.data[e], 0));
      }
      row_max = std::max(row_max, masked);
      const double w = r.weights.data[e], want = ref.weights[e];
      FUZZ_CHECK(w >= 0.0 && w <= 1.0 + 4 * kUnit, path, where("weight outside [0, 1]", i, j, w, want, 0));
      const double allowed = kStated + ref.slack[i] * std::fmax(w, want);
      if (!(std::fabs(w - want) <= allowed)) fail(path, where("weight", i, j, w, want, allowed));
      sum += w;
    }
    if (ref.fully_masked[i] || (before && row_max == -std::numeric_limits<float>::infinity())) {
      FUZZ_CHECK(sum == 0.0, path, "a fully masked row has weights other than 0");
    } else {
      FUZZ_CHECK(r.row_max[i] == row_max, path, where("row_max", i, 0, r.row_max[i], row_max, 0));
      FUZZ_CHECK(r.row_sum[i] >= 1.0f - 1e-6f, path, where("row_sum below 1", i, 0, r.row_sum[i], 1, 0));
      // Normalized by their own float sum, the weights sum to 1 whatever the conditioning.
      if (before) FUZZ_CHECK(std::fabs(sum - 1.0) <= gamma(double(2 * m + 8)) + 1e-6, path, where("row sum", i, 0, sum, 1, 0));
    }
  }
  check_output(r.output.data.data(), ref, path);
}

// The explaining and the streaming output of the same input: each within its tolerance of the
// oracle, so within the sum of both of each other.
inline void check_paths_agree(const float* explaining, const float* streaming, const Reference& ref) {
  for (std::size_t e = 0; e < ref.n * ref.dv; ++e) {
    const double a = explaining[e], b = streaming[e];
    const double allowed = 2 * ref.output_tolerance[e];
    if (!(std::fabs(a - b) <= allowed)) {
      fail("explaining and streaming paths disagree", where("output", e / ref.dv, e % ref.dv, b, a, allowed));
    }
  }
}

}  // namespace fuzz
