#include "kernels/float_checks.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "error.hpp"
#include "kernels/finite.hpp"
#include "kernels/softmax.hpp"
#include "reference/attention_ref.hpp"
#include "validate.hpp"

namespace attn {

void validate_matrix(const char* name, const MatrixView& m) {
  validate_shape(name, m.rows, m.cols);
  validate_finite(name, m);
}

void validate_finite(const char* name, const MatrixView& m) {
  const std::string who = name;
  // The common case, vectorized: a contiguous matrix in one pass, else row by row.
  if (m.empty() || (m.stride == m.cols && kernels::all_finite(m.data, m.rows * m.cols))) return;
  for (std::size_t i = 0; i < m.rows; ++i) {
    const float* r = m.row(i);
    if (kernels::all_finite(r, m.cols)) continue;
    for (std::size_t j = 0; j < m.cols; ++j) {
      if (std::isnan(r[j])) throw Error("NaN at " + who + " " + position(i, j));
      if (std::isinf(r[j])) {
        throw Error(std::string(r[j] > 0 ? "+Infinity" : "-Infinity") + " at " + who + " " +
                    position(i, j) + ": inputs must be finite numbers");
      }
    }
  }
}

double dot_in_double(const float* a, const float* b, std::size_t d) {
  double s = 0.0;
  for (std::size_t t = 0; t < d; ++t) s += double(a[t]) * double(b[t]);
  return s;
}

std::size_t settle_scores(float* row, const float* q, const float* k, std::size_t k_stride,
                          std::size_t count, std::size_t d) {
  if (kernels::all_magnitudes_below(row, count, kRecomputeAbove)) return count;
  for (std::size_t j = 0; j < count; ++j) {
    if (std::fabs(row[j]) < kRecomputeAbove) continue;
    const float exact = float(dot_in_double(q, k + j * k_stride, d));
    if (!std::isfinite(exact)) return j;
    row[j] = exact;
  }
  return count;
}

std::size_t output_row_in_double(const MatrixView& q_row, const MatrixView& k, const MatrixView& v,
                                 const std::uint8_t* hidden, float scale, bool mask_after_softmax,
                                 float* out) {
  const std::vector<std::uint8_t> flags(hidden, hidden + k.rows);
  const reference::AttentionRef ref =
      reference::attention_ref(q_row, k, v, flags, double(scale), mask_after_softmax);
  std::size_t first = v.cols;
  for (std::size_t t = v.cols; t-- > 0;) {
    out[t] = float(ref.output[t]);
    if (!std::isfinite(out[t])) first = t;
  }
  return first;
}

namespace {

[[noreturn]] void throw_overflow(const char* what, std::size_t i, std::size_t j, const char* why) {
  throw Error(std::string(what) + " " + position(i, j) +
              " overflows float32 (largest finite value ±3.4e38): " + why);
}

}  // namespace

void throw_score_overflow(std::size_t i, std::size_t j) {
  throw_overflow("Scores", i, j, "Q and K are too large; use smaller numbers");
}

void throw_output_overflow(std::size_t i, std::size_t j) {
  throw_overflow("Output", i, j, "V is too large; use smaller numbers");
}

void check_no_overflow(const char* what, const float* data, std::size_t rows, std::size_t cols,
                       const char* why) {
  if (kernels::all_finite(data, rows * cols)) return;  // the common case, vectorized
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      if (!std::isfinite(data[i * cols + j])) throw_overflow(what, i, j, why);
    }
  }
}

}  // namespace attn
