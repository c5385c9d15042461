#include "attention.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "error.hpp"
#include "kernels/float_checks.hpp"
#include "kernels/matmul.hpp"
#include "kernels/softmax.hpp"
#include "limits.hpp"
#include "validate.hpp"

namespace attn {

void validate_attention_inputs(const MatrixView& q, const MatrixView& k, const MatrixView& v) {
  validate_matrix("Q", q);
  validate_matrix("K", k);
  validate_matrix("V", v);
  if (k.cols != q.cols) {
    throw Error("K has " + count(k.cols, "column", "columns") + " but Q has " +
                std::to_string(q.cols) + ": queries and keys must have the same length d_k");
  }
  if (v.rows != k.rows) {
    throw Error("V has " + count(v.rows, "row", "rows") + " but K has " + std::to_string(k.rows) +
                ": every key needs exactly one value");
  }
  validate_score_shape(q.rows, k.rows);
}

namespace {

float choose_scale(const Pitfalls& pitfalls, std::size_t d_k) {
  if (!pitfalls.scale) {
    // The correct scale stays the float32 1/√d_k it has always been (bit for bit).
    return pitfalls.scaling == Scaling::sqrt_dk ? 1.0f / std::sqrt(float(d_k)) : float(exact_scale(pitfalls, d_k));
  }
  const float s = *pitfalls.scale;
  if (!std::isfinite(s) || !(s > 0.0f)) {
    throw Error("scale must be a finite number greater than 0, got " + std::to_string(s));
  }
  return s;
}

// One row of the softmax: the scaled scores, -inf where hidden, in; exp values, weights, the row max and sum out.
void softmax_row(const float* scaled, float* exp_row, float* weights, std::size_t m, float& max,
                 float& sum) {
  max = kernels::reduce_max(scaled, m);
  if (max == -std::numeric_limits<float>::infinity()) {
    // Every key is hidden: there is nothing to normalize over. Defined result: all zeros.
    sum = 0.0f;
    for (std::size_t j = 0; j < m; ++j) exp_row[j] = weights[j] = 0.0f;
    return;
  }
  kernels::exp_minus_max_sum(scaled, max, exp_row, m);
  // The row sum again in double: a float32 sum of m terms drifts by up to m·2⁻²⁴, which at tens
  // of thousands of keys would leave a correct row summing to 1 + 2e-5. In double the weights
  // sum to 1 within a few float32 roundings at any m (the checks' 1e-5 holds).
  double exact = 0.0;
  for (std::size_t j = 0; j < m; ++j) exact += double(exp_row[j]);
  sum = float(exact);
  for (std::size_t j = 0; j < m; ++j) weights[j] = exp_row[j];
  kernels::scale(weights, float(1.0 / exact), m);  // exact >= 1: the max entry contributes exp(0)
}

}  // namespace

const char* to_string(Scaling scaling) {
  switch (scaling) {
    case Scaling::sqrt_dk: return "sqrt";
    case Scaling::dk: return "dk";
    case Scaling::none: return "none";
  }
  return "unknown";
}

Scaling scaling_from_string(std::string_view name) {
  for (Scaling s : {Scaling::sqrt_dk, Scaling::dk, Scaling::none}) {
    if (name == to_string(s)) return s;
  }
  throw Error("scale must be 'sqrt', 'dk', 'none' or a number greater than 0 (got " + quoted(name) + ")");
}

double exact_scale(const Pitfalls& pitfalls, std::size_t d_k) {
  if (pitfalls.scale) return double(*pitfalls.scale);
  switch (pitfalls.scaling) {
    case Scaling::sqrt_dk: return 1.0 / std::sqrt(double(d_k));
    case Scaling::dk: return 1.0 / double(d_k);
    case Scaling::none: return 1.0;
  }
  throw Error("unknown scaling");
}

AttentionResult attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                          const AttentionOptions& options) {
  validate_attention_inputs(q, k, v);
  const std::size_t n = q.rows, m = k.rows, d_k = q.cols, d_v = v.cols;
  validate_mask(options.mask, n, m);

  AttentionResult r;
  r.scale = choose_scale(options.pitfalls, d_k);

  r.scores = Matrix(n, m);
  kernels::matmul_abt(q.data, q.stride, k.data, k.stride, r.scores.data.data(), m, n, m, d_k);
  // The float32 range rule (validate.hpp), row by row: the first bad score in row-major order.
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = settle_scores(r.scores.row(i), q.row(i), k.data, k.stride, m, d_k);
    if (j < m) throw_score_overflow(i, j);
  }

  r.scaled_before_mask = r.scores;
  kernels::scale(r.scaled_before_mask.data.data(), r.scale, n * m);
  check_no_overflow("Scaled", r.scaled_before_mask.data.data(), n, m, "the scale is too large");

  r.hidden = expand_mask(options.mask, n, m);
  r.fully_masked.assign(n, 0);
  r.scaled = r.scaled_before_mask;
  const bool mask_before = !options.pitfalls.mask_after_softmax;
  for (std::size_t i = 0; i < n; ++i) {
    bool any_visible = false;
    for (std::size_t j = 0; j < m; ++j) {
      if (!r.hidden[i * m + j]) {
        any_visible = true;
      } else if (mask_before) {
        r.scaled(i, j) = -std::numeric_limits<float>::infinity();
      }
    }
    r.fully_masked[i] = any_visible ? 0 : 1;
  }

  r.exp = Matrix(n, m);
  r.weights = Matrix(n, m);
  r.row_max.assign(n, 0.0f);
  r.row_sum.assign(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    softmax_row(r.scaled.row(i), r.exp.row(i), r.weights.row(i), m, r.row_max[i], r.row_sum[i]);
    if (!mask_before) {
      // The pitfall: zero the hidden weights without renormalizing, as if masking were a
      // multiplication of A by 0/1. A fully masked row still ends up all zeros.
      for (std::size_t j = 0; j < m; ++j) {
        if (r.hidden[i * m + j]) r.weights(i, j) = 0.0f;
      }
    }
  }

  r.output = Matrix(n, d_v);
  kernels::matmul_ab(r.weights.data.data(), m, v.data, v.stride, r.output.data.data(), d_v, n, m,
                     d_v);
  // A convex mix of finite values is finite, but float32 sums can round past the edge: the
  // range rule decides each large or non-finite row in double.
  for (std::size_t i = 0; i < n; ++i) {
    float* z = r.output.row(i);
    if (kernels::all_magnitudes_below(z, d_v, kRecomputeAbove)) continue;
    const std::size_t t = output_row_in_double({q.row(i), 1, d_k, q.stride}, k, v,
                                               r.hidden.data() + i * m, r.scale, !mask_before, z);
    if (t < d_v) throw_output_overflow(i, t);
  }
  return r;
}

}  // namespace attn
