#include "multihead.hpp"

#include <cstdint>
#include <string>

#include "error.hpp"
#include "kernels/float_checks.hpp"
#include "kernels/matmul.hpp"
#include "limits.hpp"
#include "validate.hpp"

namespace attn {

namespace {

void validate_weight(const char* name, const Matrix& w, std::size_t d_model) {
  validate_matrix(name, w);
  if (w.rows != d_model || w.cols != d_model) {
    throw Error(std::string(name) + " is " + shape(w.rows, w.cols) +
                " but must be d_model×d_model = " + shape(d_model, d_model) +
                ", since X has d_model = " + std::to_string(d_model) + " columns");
  }
}

void validate_params(const MatrixView& x, const MultiHeadParams& p) {
  validate_matrix("X", x);
  const std::size_t d = x.cols;
  validate_weight("W_Q", p.wq, d);
  validate_weight("W_K", p.wk, d);
  validate_weight("W_V", p.wv, d);
  validate_weight("W_O", p.wo, d);
  validate_bias("b_Q", p.bq.data(), p.bq.size(), d);
  validate_bias("b_K", p.bk.data(), p.bk.size(), d);
  validate_bias("b_V", p.bv.data(), p.bv.size(), d);
  validate_bias("b_O", p.bo.data(), p.bo.size(), d);
  validate_heads(d, p.heads);
  const std::uint64_t weights = p.heads * x.rows * x.rows;
  if (weights > limits::kMaxScoreEntries) {
    throw Error(std::to_string(p.heads) + " heads over " + std::to_string(x.rows) +
                " tokens need " + std::to_string(weights) +
                " attention weights, over the limit of " +
                std::to_string(limits::kMaxScoreEntries));
  }
}

// out = x·w + b (b may be empty).
Matrix project(const MatrixView& x, const Matrix& w, const std::vector<float>& b,
               const char* name) {
  Matrix out(x.rows, w.cols);
  kernels::matmul_ab(x.data, x.stride, w.data.data(), w.cols, out.data.data(), out.cols, x.rows,
                     x.cols, w.cols);
  if (!b.empty()) {
    for (std::size_t i = 0; i < out.rows; ++i) {
      for (std::size_t j = 0; j < out.cols; ++j) out(i, j) += b[j];
    }
  }
  check_no_overflow(name, out.data.data(), out.rows, out.cols,
                    "the inputs or weights are too large; use smaller numbers");
  return out;
}

}  // namespace

MultiHeadResult multi_head_attention(const MatrixView& x, const MultiHeadParams& params,
                                     const Mask& mask) {
  validate_params(x, params);
  const std::size_t n = x.rows, d = x.cols, h = std::size_t(params.heads), d_k = d / h;  // h validated
  validate_mask(mask, n, n);

  MultiHeadResult r;
  r.q = project(x, params.wq, params.bq, "Q");
  r.k = project(x, params.wk, params.bk, "K");
  r.v = project(x, params.wv, params.bv, "V");

  AttentionOptions options;
  options.mask = mask;
  r.concat = Matrix(n, d);
  r.heads.reserve(h);
  for (std::size_t head = 0; head < h; ++head) {
    const std::size_t first = head * d_k;
    r.heads.push_back(attention(r.q.columns(first, d_k), r.k.columns(first, d_k),
                                r.v.columns(first, d_k), options));
    const Matrix& z = r.heads.back().output;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d_k; ++j) r.concat(i, first + j) = z(i, j);
    }
  }
  r.output = project(r.concat, params.wo, params.bo, "Output");
  return r;
}

}  // namespace attn
