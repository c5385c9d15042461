#include "positions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attention.hpp"
#include "error.hpp"
#include "portable_math.hpp"
#include "random.hpp"
#include "validate.hpp"

namespace attn {

namespace {

// 10000^(−i/d), the angle per position of the pair starting at column i: the same bits on every
// platform (portable_math.hpp), without musl's pow tables in the wasm module.
double frequency(std::size_t i, std::size_t d) {
  return portable_exp(-double(i) / double(d) * 9.21034037197618273607);  // ln 10000
}

// The rows of m in `order`.
Matrix reordered(const MatrixView& m, const std::vector<std::size_t>& order) {
  Matrix out(m.rows, m.cols);
  for (std::size_t i = 0; i < m.rows; ++i) std::copy(m.row(order[i]), m.row(order[i]) + m.cols, out.row(i));
  return out;
}

void add_rows(Matrix& m, const Matrix& table) {
  for (std::size_t i = 0; i < m.rows; ++i) {
    for (std::size_t c = 0; c < m.cols; ++c) m(i, c) += table(i, c);
  }
}

Matrix sinusoidal_table(std::size_t n, std::size_t d) {
  Matrix t(n, d);
  for (std::size_t p = 0; p < n; ++p) {
    const std::vector<float> row = sinusoidal_position(p, d);
    std::copy(row.begin(), row.end(), t.row(p));
  }
  return t;
}

// Each pair (2j, 2j+1) of a row turned by position × 10000^(−2j/d); an odd last column stays.
void rotate_pairs(Matrix& m) {
  for (std::size_t p = 0; p < m.rows; ++p) {
    for (std::size_t j = 0; 2 * j + 1 < m.cols; ++j) {
      const SinCos turn = portable_sin_cos(double(p) * frequency(2 * j, m.cols));
      const double c = turn.cos, s = turn.sin, x = m(p, 2 * j), y = m(p, 2 * j + 1);
      m(p, 2 * j) = float(x * c - y * s);
      m(p, 2 * j + 1) = float(x * s + y * c);
    }
  }
}

}  // namespace

PositionScheme position_scheme_from_string(std::string_view name) {
  if (name == "none") return PositionScheme::none;
  if (name == "sinusoidal") return PositionScheme::sinusoidal;
  if (name == "learned") return PositionScheme::learned;
  if (name == "rope") return PositionScheme::rope;
  if (name == "alibi") return PositionScheme::alibi;
  throw Error("scheme must be 'none', 'sinusoidal', 'learned', 'rope' or 'alibi' (got " + quoted(name) + ")");
}

std::vector<float> sinusoidal_position(std::size_t position, std::size_t d) {
  std::vector<float> row(d);
  for (std::size_t c = 0; c < d; ++c) {
    const SinCos turn = portable_sin_cos(double(position) * frequency(c - c % 2, d));
    row[c] = float(c % 2 == 0 ? turn.sin : turn.cos);
  }
  return row;
}

PositionalResult positional_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                                      const PositionalOptions& o) {
  validate_attention_inputs(q, k, v);
  const std::size_t n = q.rows;
  if (k.rows != n) {
    throw Error("Q has " + std::to_string(n) + " rows and K " + std::to_string(k.rows) + ": positions are a token's, one row of each");
  }
  std::vector<std::size_t> order = o.order;
  if (order.empty()) {
    for (std::size_t i = 0; i < n; ++i) order.push_back(i);
  }
  if (order.size() != n) {
    throw Error("order has " + count(order.size(), "entry", "entries") + " but there are " + count(n, "token", "tokens") +
                ": it must list every token once");
  }
  if (!std::isfinite(o.alibi_slope) || o.alibi_slope <= 0) {
    throw Error("the ALiBi slope m must be a finite number greater than 0");
  }
  std::vector<bool> seen(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    if (order[i] >= n || seen[order[i]]) {
      throw Error("order is not a permutation of 0 to " + std::to_string(n - 1) + ": entry " + std::to_string(i + 1) + " (" +
                  std::to_string(order[i]) + ") is " + (order[i] >= n ? "past the last token" : "a token already placed"));
    }
    seen[order[i]] = true;
  }

  PositionalResult r;
  r.q = reordered(q, order);
  r.k = reordered(k, order);
  r.v = reordered(v, order);
  r.bias = Matrix(n, n);
  switch (o.scheme) {
    case PositionScheme::none: break;
    case PositionScheme::sinusoidal:
      add_rows(r.q, sinusoidal_table(n, r.q.cols));
      add_rows(r.k, sinusoidal_table(n, r.k.cols));
      add_rows(r.v, sinusoidal_table(n, r.v.cols));
      break;
    case PositionScheme::learned: {
      // One seeded table as wide as the widest of q and v, standing in for a trained one.
      const Matrix table = normal_matrix(n, std::max(r.q.cols, r.v.cols), o.seed, 0.5);
      for (Matrix* m : {&r.q, &r.k, &r.v}) {
        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t c = 0; c < m->cols; ++c) (*m)(i, c) += table(i, c);
        }
      }
      break;
    }
    case PositionScheme::rope:
      rotate_pairs(r.q);
      rotate_pairs(r.k);
      break;
    case PositionScheme::alibi:
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) r.bias(i, j) = float(-o.alibi_slope * std::fabs(double(i) - double(j)));
      }
      break;
  }

  // Attention over the positioned rows, the calculator's own, with the bias before the softmax.
  AttentionOptions options;
  if (o.causal) options.mask = Mask::causal();
  const AttentionResult plain = attention(r.q, r.k, r.v, options);
  r.scale = plain.scale;
  if (o.scheme != PositionScheme::alibi) {
    r.scores = plain.scaled;
    r.weights = plain.weights;
    r.output = plain.output;
    return r;
  }
  r.scores = plain.scaled;
  r.weights = Matrix(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    float max = -std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < n; ++j) max = std::max(max, r.scores(i, j) += r.bias(i, j));
    float sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) sum += (r.weights(i, j) = std::exp(r.scores(i, j) - max));
    for (std::size_t j = 0; j < n; ++j) r.weights(i, j) /= sum;
  }
  r.output = Matrix(n, r.v.cols);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t c = 0; c < r.v.cols; ++c) r.output(i, c) += r.weights(i, j) * r.v(j, c);
    }
  }
  return r;
}

}  // namespace attn
