#pragma once
// Row-major float32 matrices: the core's one container (Matrix) and a non-owning,
// possibly strided window into one (MatrixView), so a head can be a column slice.
#include <cstddef>
#include <initializer_list>
#include <vector>

namespace attn {

struct MatrixView {
  const float* data = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::size_t stride = 0;  // floats between the starts of consecutive rows (>= cols)

  const float* row(std::size_t i) const { return data + i * stride; }
  float operator()(std::size_t i, std::size_t j) const { return data[i * stride + j]; }
  bool empty() const { return rows == 0 || cols == 0; }
};

struct Matrix {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<float> data;

  Matrix() = default;
  // Both sized constructors throw attn::Error when r·c does not fit in size_t (it would wrap
  // around in wasm32 and pass for a small matrix).
  Matrix(std::size_t r, std::size_t c, float fill = 0.0f);
  // Throws attn::Error when values.size() != r * c.
  Matrix(std::size_t r, std::size_t c, std::vector<float> values);
  // Literal rows, for tests and examples: Matrix{{1, 1}, {0, 1}, {-1, 0}}. Rows must be equal in length.
  Matrix(std::initializer_list<std::initializer_list<float>> literal_rows);

  float* row(std::size_t i) { return data.data() + i * cols; }
  const float* row(std::size_t i) const { return data.data() + i * cols; }
  float& operator()(std::size_t i, std::size_t j) { return data[i * cols + j]; }
  float operator()(std::size_t i, std::size_t j) const { return data[i * cols + j]; }
  bool empty() const { return rows == 0 || cols == 0; }

  MatrixView view() const { return {data.data(), rows, cols, cols}; }
  operator MatrixView() const { return view(); }  // NOLINT: a Matrix is a view of itself
  // Columns [first, first + count) of every row, without copying.
  MatrixView columns(std::size_t first, std::size_t count) const {
    return {data.data() + first, rows, count, cols};
  }
};

}  // namespace attn
