#include "matrix.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "error.hpp"

namespace attn {

namespace {

std::size_t checked_size(std::size_t r, std::size_t c) {
  if (c != 0 && r > SIZE_MAX / c) {
    throw Error("a " + std::to_string(r) + "×" + std::to_string(c) + " matrix has more entries than memory can address");
  }
  return r * c;
}

}  // namespace

Matrix::Matrix(std::size_t r, std::size_t c, float fill) : rows(r), cols(c), data(checked_size(r, c), fill) {}

Matrix::Matrix(std::size_t r, std::size_t c, std::vector<float> values)
    : rows(r), cols(c), data(std::move(values)) {
  if (data.size() != checked_size(r, c)) {
    throw Error("a " + std::to_string(r) + "×" + std::to_string(c) + " matrix needs " +
                std::to_string(r * c) + " values but got " + std::to_string(data.size()));
  }
}

Matrix::Matrix(std::initializer_list<std::initializer_list<float>> literal_rows)
    : rows(literal_rows.size()), cols(literal_rows.size() ? literal_rows.begin()->size() : 0) {
  data.reserve(rows * cols);
  for (const auto& r : literal_rows) {
    if (r.size() != cols) throw Error("matrix literal has rows of different lengths");
    data.insert(data.end(), r.begin(), r.end());
  }
}

}  // namespace attn
