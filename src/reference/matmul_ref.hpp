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

// C (n×p, stride ldc) = A (n×k, stride lda) · B (k×p, stride ldb). Used for AV and the projections.
inline void matmul_ab_ref(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                          float* c, std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  assert(n != 0 && k != 0 && p != 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      double sum = 0.0;
      for (std::size_t t = 0; t < k; ++t) sum += double(a[i * lda + t]) * double(b[t * ldb + j]);
      c[i * ldc + j] = float(sum);
    }
  }
}

// C (n×p, stride ldc) += A (n×k, stride lda) · B (k×p, stride ldb). The streaming path
// accumulates P·V over blocks of keys with it.
inline void matmul_ab_add_ref(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                              float* c, std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  assert(n != 0 && k != 0 && p != 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      double sum = c[i * ldc + j];
      for (std::size_t t = 0; t < k; ++t) sum += double(a[i * lda + t]) * double(b[t * ldb + j]);
      c[i * ldc + j] = float(sum);
    }
  }
}

}  // namespace attn::reference
