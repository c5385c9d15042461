#pragma once
// Scalar references for the matrix products, accumulated in double. They are the oracle the
// SIMD kernels are tested against, and the implementation of the scalar WebAssembly build.
#include <cassert>
#include <cstddef>

namespace attn::reference {

// C (n×m, row stride ldc) = A (n×d, stride lda) · Bᵀ, where B is m×d (stride ldb). Used for QKᵀ.
inline void matmul_abt_ref(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                           float* c, std::size_t ldc, std::size_t n, std::size_t m, std::size_t d) {
  assert(n != 0 && m != 0 && d != 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      double sum = 0.0;
      for (std::size_t t = 0; t < d; ++t) sum += double(a[i * lda + t]) * double(b[j * ldb + t]);
      c[i * ldc + j] = float(sum);
    }
  }
}

// What a product does with C: overwrite it (C = A·B) or add to it (C += A·B).
enum class Store { assign, add };

// C (n×p, stride ldc) = A (n×k, stride lda) · B (k×p, stride ldb), used for AV and the
// projections; with Store::add, C += A·B, with which the streaming path accumulates P·V over
// blocks of keys.
inline void matmul_ab_ref(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                          std::size_t ldc, std::size_t n, std::size_t k, std::size_t p,
                          Store store = Store::assign) {
  assert(n != 0 && k != 0 && p != 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      double sum = store == Store::add ? double(c[i * ldc + j]) : 0.0;
      for (std::size_t t = 0; t < k; ++t) sum += double(a[i * lda + t]) * double(b[t * ldb + j]);
      c[i * ldc + j] = float(sum);
    }
  }
}

// Where an A operand's element (i, t) lies: rows in groups of rows_per_group, group_stride
// floats apart; within a group, row r and step t at r·row_stride + t·step_stride. A plain
// row-major A with stride lda is {1, lda, 0, 1}; packed panels of 4 rows are {4, 4k, 1, 4}.
struct PanelLayout {
  std::size_t rows_per_group, group_stride, row_stride, step_stride;
  std::size_t at(std::size_t i, std::size_t t) const {
    return i / rows_per_group * group_stride + i % rows_per_group * row_stride + t * step_stride;
  }
};

// C (n×p, stride ldc) = A·B, or += with Store::add, with A (n×k) laid out as `layout` says.
inline void matmul_panels_ab_ref(const float* a, PanelLayout layout, const float* b, std::size_t ldb, float* c,
                                 std::size_t ldc, std::size_t n, std::size_t k, std::size_t p, Store store) {
  assert(n != 0 && k != 0 && p != 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      double sum = store == Store::add ? double(c[i * ldc + j]) : 0.0;
      for (std::size_t t = 0; t < k; ++t) sum += double(a[layout.at(i, t)]) * double(b[t * ldb + j]);
      c[i * ldc + j] = float(sum);
    }
  }
}

}  // namespace attn::reference
