#pragma once
// Matrix products of the attention core: QKᵀ (matmul_abt) and AV / X·W (matmul_ab).
// Raw pointers, sizes and row strides in; no allocation. The scalar reference of each sits in
// reference/matmul_ref.hpp with the same signature.
#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>

#include "../reference/matmul_ref.hpp"
#include "simd.hpp"
#include "transpose.hpp"

namespace attn::kernels {

// C (n×m, stride ldc) = A (n×d, stride lda) · Bᵀ with B m×d (stride ldb), K rows of B a step.
// Both operands are read along rows, so each C entry is one contiguous dot product, summed the
// same way whatever K. matmul_abt takes 4; one row against GPT-2's 50,257 rows of wte (a decoding
// step's unembedding), bound by the stream of B, takes 8, to keep more of it in flight (the
// calculator's modules never instantiate it, so their size does not grow).
template <std::size_t K>
inline void matmul_abt_rows(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                            std::size_t ldc, std::size_t n, std::size_t m, std::size_t d) {
  assert(n != 0 && m != 0 && d != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const std::size_t d_vec = d - d % L;
  for (std::size_t i = 0; i < n; ++i) {
    const float* ai = a + i * lda;
    float* ci = c + i * ldc;
    std::size_t j = 0;
    // K keys at a time: each load of a query chunk feeds K independent accumulators.
    for (; j + K <= m; j += K) {
      const float* bj = b + j * ldb;
      std::array<batch, K> s;
      s.fill(batch(0.0f));
      for (std::size_t t = 0; t < d_vec; t += L) {
        const batch q = batch::load_unaligned(ai + t);
        for (std::size_t u = 0; u < K; ++u) s[u] = madd(q, batch::load_unaligned(bj + u * ldb + t), s[u]);
      }
      for (std::size_t u = 0; u < K; ++u) {
        float r = xsimd::reduce_add(s[u]);
        for (std::size_t t = d_vec; t < d; ++t) r += ai[t] * bj[u * ldb + t];
        ci[j + u] = r;
      }
    }
    for (; j < m; ++j) {
      const float* bj = b + j * ldb;
      batch s(0.0f);
      for (std::size_t t = 0; t < d_vec; t += L) {
        s = madd(batch::load_unaligned(ai + t), batch::load_unaligned(bj + t), s);
      }
      float r = xsimd::reduce_add(s);
      for (std::size_t t = d_vec; t < d; ++t) r += ai[t] * bj[t];
      ci[j] = r;
    }
  }
#else
  reference::matmul_abt_ref(a, lda, b, ldb, c, ldc, n, m, d);
#endif
}

#if ATTN_SIMD
namespace detail {
// R rows of C (stride ldc) = R rows of A (stride lda) · Bᵀ, K rows of B a step, then one: each
// load of B feeds R accumulators and each load of A K. Every entry is one accumulator, summed as
// matmul_abt_rows sums it.
template <std::size_t K, std::size_t R>
inline void abt_row_group(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                          std::size_t ldc, std::size_t m, std::size_t d) {
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const std::size_t d_vec = d - d % L;
  std::size_t j = 0;
  for (; j + K <= m; j += K) {
    const float* bj = b + j * ldb;
    std::array<std::array<batch, K>, R> s;
    for (auto& row : s) row.fill(batch(0.0f));
    for (std::size_t t = 0; t < d_vec; t += L) {
      std::array<batch, R> q;
      for (std::size_t r = 0; r < R; ++r) q[r] = batch::load_unaligned(a + r * lda + t);
      for (std::size_t u = 0; u < K; ++u) {
        const batch x = batch::load_unaligned(bj + u * ldb + t);
        for (std::size_t r = 0; r < R; ++r) s[r][u] = madd(q[r], x, s[r][u]);
      }
    }
    for (std::size_t r = 0; r < R; ++r) {
      for (std::size_t u = 0; u < K; ++u) {
        float sum = xsimd::reduce_add(s[r][u]);
        for (std::size_t t = d_vec; t < d; ++t) sum += a[r * lda + t] * bj[u * ldb + t];
        c[r * ldc + j + u] = sum;
      }
    }
  }
  for (; j < m; ++j) {
    const float* bj = b + j * ldb;
    std::array<batch, R> s;
    s.fill(batch(0.0f));
    for (std::size_t t = 0; t < d_vec; t += L) {
      const batch x = batch::load_unaligned(bj + t);
      for (std::size_t r = 0; r < R; ++r) s[r] = madd(batch::load_unaligned(a + r * lda + t), x, s[r]);
    }
    for (std::size_t r = 0; r < R; ++r) {
      float sum = xsimd::reduce_add(s[r]);
      for (std::size_t t = d_vec; t < d; ++t) sum += a[r * lda + t] * bj[t];
      c[r * ldc + j] = sum;
    }
  }
}
}  // namespace detail
#endif

// C (n×m, stride ldc) = A (n×d, stride lda) · Bᵀ as matmul_abt_rows<K> computes it, bit for bit,
// with A's rows two at a time: each load of B feeds both, which cuts the loads a multiply-add
// needs from 1.25 to 0.75 at K = 4: the logit lens's rows against blocks of wte. matmul_abt_rows
// keeps its own loops: made one template of R rows with this, it was inlined into fewer places
// (the calculator's relaxed module kept 36 of its 52 multiply-adds).
template <std::size_t K>
inline void matmul_abt_row_pairs(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                                 std::size_t ldc, std::size_t n, std::size_t m, std::size_t d) {
  assert(n != 0 && m != 0 && d != 0);
#if ATTN_SIMD
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) detail::abt_row_group<K, 2>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, m, d);
  if (i < n) matmul_abt_rows<K>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, 1, m, d);
#else
  reference::matmul_abt_ref(a, lda, b, ldb, c, ldc, n, m, d);
#endif
}

// c[j] = a·b_j for one row a against B's m rows (d long, stride ldb), each entry summed as
// matmul_abt sums it: a decoding step's unembedding, one row against wte's 154 MB, bound by
// reading B. A step takes one row from each of S equal segments of B, so that S sequential
// streams far apart are read side by side. Adjacent rows (matmul_abt_rows) are one window of a
// few KB, which the prefetchers follow as one stream: in wasm SIMD on an AMD EPYC, wte read at
// 10 GB/s that way and at 16 to 17 GB/s in segments.
template <std::size_t S>
inline void matvec_abt_streams(const float* a, const float* b, std::size_t ldb, float* c, std::size_t m, std::size_t d) {
  assert(m != 0 && d != 0);
  const std::size_t seg = m / S;
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const std::size_t d_vec = d - d % L;
  for (std::size_t j = 0; j < seg; ++j) {
    std::array<const float*, S> rows;
    for (std::size_t u = 0; u < S; ++u) rows[u] = b + (u * seg + j) * ldb;
    std::array<batch, S> s;
    s.fill(batch(0.0f));
    for (std::size_t t = 0; t < d_vec; t += L) {
      const batch q = batch::load_unaligned(a + t);
      for (std::size_t u = 0; u < S; ++u) s[u] = madd(q, batch::load_unaligned(rows[u] + t), s[u]);
    }
    for (std::size_t u = 0; u < S; ++u) {
      float r = xsimd::reduce_add(s[u]);
      for (std::size_t t = d_vec; t < d; ++t) r += a[t] * rows[u][t];
      c[u * seg + j] = r;
    }
  }
#else
  if (seg != 0) reference::matmul_abt_ref(a, d, b, ldb, c, m, 1, S * seg, d);
#endif
  // The last m mod S rows, one at a time.
  if (S * seg < m) matmul_abt_rows<S>(a, d, b + S * seg * ldb, ldb, c + S * seg, m, 1, m - S * seg, d);
}

inline void matmul_abt(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                       std::size_t ldc, std::size_t n, std::size_t m, std::size_t d) {
  matmul_abt_rows<4>(a, lda, b, ldb, c, ldc, n, m, d);
}

// C (m×2, row j at c + 2j) = B·Aᵀ for A's two rows (2×d, contiguous) and B's m rows (d long, stride
// ldb): both of A's rows against each row of B in one pass over B, the logit attribution's W·u and
// W·1 of a weight matrix (matmul_abt(b, ldb, a, d, c, 2, m, 2, d) computes the same). Two
// accumulators for each entry, so that a multiply-add does not wait on the last: the attribution
// streams GPT-2 small's 141 MB of output projections, and with one chain each (matmul_abt) it
// added 20 ms to the lesson's sentence in wasm relaxed SIMD on an AMD EPYC, bound by the fused
// multiply-add's latency rather than by memory; with two, 10 ms.
inline void matmul_two_rows_abt(const float* a, const float* b, std::size_t ldb, float* c, std::size_t m, std::size_t d) {
  assert(m != 0 && d != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const float* a1 = a + d;
  const std::size_t d_pair = d - d % (2 * L), d_vec = d - d % L;
  for (std::size_t j = 0; j < m; ++j) {
    const float* bj = b + j * ldb;
    batch s0(0.0f), s1(0.0f), t0(0.0f), t1(0.0f);  // row 0 of A: s0 + s1; row 1: t0 + t1
    std::size_t t = 0;
    for (; t < d_pair; t += 2 * L) {
      const batch x0 = batch::load_unaligned(bj + t), x1 = batch::load_unaligned(bj + t + L);
      s0 = madd(batch::load_unaligned(a + t), x0, s0);
      t0 = madd(batch::load_unaligned(a1 + t), x0, t0);
      s1 = madd(batch::load_unaligned(a + t + L), x1, s1);
      t1 = madd(batch::load_unaligned(a1 + t + L), x1, t1);
    }
    for (; t < d_vec; t += L) {
      const batch x = batch::load_unaligned(bj + t);
      s0 = madd(batch::load_unaligned(a + t), x, s0);
      t0 = madd(batch::load_unaligned(a1 + t), x, t0);
    }
    float r0 = xsimd::reduce_add(s0 + s1), r1 = xsimd::reduce_add(t0 + t1);
    for (; t < d; ++t) {
      r0 += a[t] * bj[t];
      r1 += a1[t] * bj[t];
    }
    c[2 * j] = r0;
    c[2 * j + 1] = r1;
  }
#else
  reference::matmul_abt_ref(b, ldb, a, d, c, 2, m, 2, d);
#endif
}

namespace detail {

// Rows of A per register tile; packed panels (pack_rows) hold this many rows each.
inline constexpr std::size_t kTileRows = 4;

#if ATTN_SIMD
// Vector registers of the target: 32 with AVX-512, 16 for SSE/AVX and for V8's wasm SIMD.
inline constexpr std::size_t kVectorRegisters =
#if defined(__AVX512F__)
    32;
#else
    16;
#endif

// The micro-kernel's tile: kTileRows rows × kTileVectors vectors of columns, held in
// kTileRows·kTileVectors accumulators. Per step t it loads kTileVectors vectors of B and
// broadcasts kTileRows values of A into kTileRows·kTileVectors multiply-adds. With 16 registers:
// 4 × 2 (8 + 2 + 1 live vectors, as many as V8 keeps in registers). With 32: 4 × 4, which
// covers a 64-wide row of AVX-512 in one tile, needs half the loads per multiply-add and keeps
// 16 chains in flight, enough for two FMA units of 4 cycles' latency.
inline constexpr std::size_t kTileVectors = kVectorRegisters >= 32 ? 4 : 2;

// Pins a loaded vector in a register. Without it GCC folds each load of B into every
// multiply-add that uses it (vfmadd231ps with a memory operand), so a B vector is loaded R
// times per step instead of once, and the loads, not the multiply-adds, bound the speed.
template <class Batch>
inline Batch in_register(Batch x) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  auto r = x.data;
  asm("" : "+v"(r));
  return r;
#else
  return x;
#endif
}

// A register tile's accumulators over C (R rows of V vectors, stride ldc): C's values when the
// product accumulates, else 0; and their store back to C.
template <bool Accumulate, std::size_t R, std::size_t V, class Batch>
inline void load_tile(Batch (&s)[R][V], const float* c, std::size_t ldc) {
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t v = 0; v < V; ++v) {
      s[r][v] = Accumulate ? Batch::load_unaligned(c + r * ldc + v * Batch::size) : Batch(0.0f);
    }
  }
}

template <std::size_t R, std::size_t V, class Batch>
inline void store_tile(const Batch (&s)[R][V], float* c, std::size_t ldc) {
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t v = 0; v < V; ++v) s[r][v].store_unaligned(c + r * ldc + v * Batch::size);
  }
}

// C[0..R) × [0..V·L) (+)= A[0..R) × [0..k) · B[0..k) × [0..V·L): one register tile.
template <std::size_t R, std::size_t V, bool Accumulate>
inline void tile_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                    std::size_t ldc, std::size_t k) {
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  batch s[R][V];
  load_tile<Accumulate>(s, c, ldc);
  for (std::size_t t = 0; t < k; ++t) {
    const float* bt = b + t * ldb;
    batch bv[V];
    for (std::size_t v = 0; v < V; ++v) bv[v] = in_register(batch::load_unaligned(bt + v * L));
    for (std::size_t r = 0; r < R; ++r) {
      const batch w(a[r * lda + t]);
      for (std::size_t v = 0; v < V; ++v) s[r][v] = madd(w, bv[v], s[r][v]);
    }
  }
  store_tile(s, c, ldc);
}

// R rows of C, every column: full tiles, then one vector at a time, then scalar columns.
template <std::size_t R, bool Accumulate>
inline void rows_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                    std::size_t ldc, std::size_t k, std::size_t p) {
  constexpr std::size_t L = xsimd::batch<float>::size;
  std::size_t j = 0;
  for (; j + kTileVectors * L <= p; j += kTileVectors * L) {
    tile_ab<R, kTileVectors, Accumulate>(a, lda, b + j, ldb, c + j, ldc, k);
  }
  for (; j + L <= p; j += L) tile_ab<R, 1, Accumulate>(a, lda, b + j, ldb, c + j, ldc, k);
  for (; j < p; ++j) {
    for (std::size_t r = 0; r < R; ++r) {
      float s = Accumulate ? c[r * ldc + j] : 0.0f;
      for (std::size_t t = 0; t < k; ++t) s += a[r * lda + t] * b[t * ldb + j];
      c[r * ldc + j] = s;
    }
  }
}
#endif

// C = A·B (Accumulate = false) or C += A·B (true), vectorized across the p output columns:
// each step t broadcasts a[i][t] and multiplies it into row t of B.
template <bool Accumulate>
inline void matmul_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                      std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  assert(n != 0 && k != 0 && p != 0);
#if ATTN_SIMD
  std::size_t i = 0;
  for (; i + kTileRows <= n; i += kTileRows) {
    rows_ab<kTileRows, Accumulate>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, k, p);
  }
  for (; i < n; ++i) rows_ab<1, Accumulate>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, k, p);
#else
  reference::matmul_ab_ref(a, lda, b, ldb, c, ldc, n, k, p,
                           Accumulate ? reference::Store::add : reference::Store::assign);
#endif
}

#if ATTN_SIMD
// The register tile of tile_ab for an A whose layout is known at compile time: element (r, t)
// of the tile's rows at a[r·RowStride + t·StepStride]. A and B are read through pointers that
// advance by a step, so every load of A has a constant offset. Under WebAssembly an address is
// base + constant only: with tile_ab's runtime stride LLVM recomputes (t + r·lda)·4 + a for each
// of the R loads and t·ldb·4 + b at every step, about as many integer as vector instructions.
template <std::size_t R, std::size_t V, bool Accumulate, std::size_t RowStride, std::size_t StepStride>
inline void tile_ab_fixed(const float* a, const float* b, std::size_t ldb, float* c, std::size_t ldc,
                          std::size_t k) {
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  batch s[R][V];
  load_tile<Accumulate>(s, c, ldc);
  const float* const a_end = a + k * StepStride;
  for (; a != a_end; a += StepStride, b += ldb) {
    batch bv[V];
    for (std::size_t v = 0; v < V; ++v) bv[v] = in_register(batch::load_unaligned(b + v * L));
    for (std::size_t r = 0; r < R; ++r) {
      const batch w(a[r * RowStride]);
      for (std::size_t v = 0; v < V; ++v) s[r][v] = madd(w, bv[v], s[r][v]);
    }
  }
  store_tile(s, c, ldc);
}

// R rows of C (A's rows at a + r·RowStride), every column: tiles V vectors wide, then
// kTileVectors wide, then one vector, then scalars. A tile of 1 or 2 rows may be wider than
// kTileVectors, to keep as many independent multiply-adds in flight as a full tile.
template <std::size_t R, bool Accumulate, std::size_t RowStride, std::size_t StepStride, std::size_t V = kTileVectors>
inline void rows_ab_fixed(const float* a, const float* b, std::size_t ldb, float* c, std::size_t ldc,
                          std::size_t k, std::size_t p) {
  constexpr std::size_t L = xsimd::batch<float>::size;
  std::size_t j = 0;
  for (; j + V * L <= p; j += V * L) {
    tile_ab_fixed<R, V, Accumulate, RowStride, StepStride>(a, b + j, ldb, c + j, ldc, k);
  }
  if constexpr (V > kTileVectors) {
    for (; j + kTileVectors * L <= p; j += kTileVectors * L) {
      tile_ab_fixed<R, kTileVectors, Accumulate, RowStride, StepStride>(a, b + j, ldb, c + j, ldc, k);
    }
  }
  for (; j + L <= p; j += L) tile_ab_fixed<R, 1, Accumulate, RowStride, StepStride>(a, b + j, ldb, c + j, ldc, k);
  for (; j < p; ++j) {
    for (std::size_t r = 0; r < R; ++r) {
      float s = Accumulate ? c[r * ldc + j] : 0.0f;
      for (std::size_t t = 0; t < k; ++t) s += a[r * RowStride + t * StepStride] * b[t * ldb + j];
      c[r * ldc + j] = s;
    }
  }
}
#endif

// C (+)= A·B for an A in groups of kTileRows rows, group_stride floats apart, each laid out as
// RowStride and StepStride say (see reference::PanelLayout).
template <bool Accumulate, std::size_t RowStride, std::size_t StepStride>
inline void matmul_panels_ab(const float* a, std::size_t group_stride, const float* b, std::size_t ldb,
                             float* c, std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  assert(n != 0 && k != 0 && p != 0);
#if ATTN_SIMD
  std::size_t i = 0;
  for (; i + kTileRows <= n; i += kTileRows, a += group_stride) {
    rows_ab_fixed<kTileRows, Accumulate, RowStride, StepStride>(a, b, ldb, c + i * ldc, ldc, k, p);
  }
  for (std::size_t r = 0; i < n; ++i, ++r) {
    rows_ab_fixed<1, Accumulate, RowStride, StepStride>(a + r * RowStride, b, ldb, c + i * ldc, ldc, k, p);
  }
#else
  reference::matmul_panels_ab_ref(a, {kTileRows, group_stride, RowStride, StepStride}, b, ldb, c, ldc, n, k, p,
                                  Accumulate ? reference::Store::add : reference::Store::assign);
#endif
}

}  // namespace detail

// C (n×p, stride ldc) = A (n×k, stride lda) · B (k×p, stride ldb). Used for AV and X·W. (The
// streaming path's products, whose A layouts are fixed, use matmul_packed_ab and
// matmul_fixed_stride_ab_add below.)
inline void matmul_ab(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                      std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_ab<false>(a, lda, b, ldb, c, ldc, n, k, p);
}

// C += A·B, same shapes (the learned model's backward pass and residual updates).
inline void matmul_ab_add(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                          float* c, std::size_t ldc, std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_ab<true>(a, lda, b, ldb, c, ldc, n, k, p);
}

// Packs rows × k of A (stride lda) for matmul_packed_ab: panels of kTileRows rows, each k steps
// of kTileRows floats (element (r, t) of a panel at t·kTileRows + r), the last panel padded
// with zeros. dst holds packed_rows_size(rows, k) floats. The streaming path packs each block
// of queries once and multiplies it by every panel of Kᵀ.
inline std::size_t packed_rows_size(std::size_t rows, std::size_t k) {
  return (rows + detail::kTileRows - 1) / detail::kTileRows * detail::kTileRows * k;
}
inline void pack_rows(const float* a, std::size_t lda, std::size_t rows, std::size_t k, float* dst) {
  constexpr std::size_t R = detail::kTileRows;
  for (std::size_t i0 = 0; i0 < rows; i0 += R, dst += R * k) {
    // A panel is its rows transposed: k × R with rows R floats apart (4×4 blocks in registers
    // where vectors have 4 lanes).
    const std::size_t valid = rows - i0 < R ? rows - i0 : R;
    transpose(a + i0 * lda, lda, dst, R, valid, k);
    for (std::size_t t = 0; valid < R && t < k; ++t) {
      for (std::size_t r = valid; r < R; ++r) dst[t * R + r] = 0.0f;
    }
  }
}

// C (n×p, stride ldc) = A·B with A n×k packed by pack_rows, B k×p (stride ldb).
inline void matmul_packed_ab(const float* packed, const float* b, std::size_t ldb, float* c, std::size_t ldc,
                             std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_panels_ab<false, 1, detail::kTileRows>(packed, detail::kTileRows * k, b, ldb, c, ldc, n, k, p);
}

// C (n×p, stride ldc) += A·B with A n×k of row stride Lda, a compile-time constant (the
// streaming path's score tiles, kBlockKeys wide), B k×p (stride ldb).
template <std::size_t Lda>
inline void matmul_fixed_stride_ab_add(const float* a, const float* b, std::size_t ldb, float* c, std::size_t ldc,
                                       std::size_t n, std::size_t k, std::size_t p) {
  detail::matmul_panels_ab<true, Lda, 1>(a, detail::kTileRows * Lda, b, ldb, c, ldc, n, k, p);
}

namespace detail {
#if ATTN_SIMD
// dst (rows×cols, stride ldd) = src (stride lds), in vectors: std::copy is a call to memcpy,
// which Emscripten 3.1.6 builds without bulk memory, a loop of word moves; through it, GPT-2
// small's forward pass of one token took 103 ms in wasm SIMD, and 53 ms with this copy (the
// weights' 498 MB read once). Four vectors a step keep that many loads from memory in flight.
inline void copy_rows(const float* src, std::size_t lds, float* dst, std::size_t ldd, std::size_t rows, std::size_t cols) {
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  for (std::size_t t = 0; t < rows; ++t, src += lds, dst += ldd) {
    std::size_t j = 0;
    for (; j + 4 * L <= cols; j += 4 * L) {
      const batch v0 = batch::load_unaligned(src + j), v1 = batch::load_unaligned(src + j + L);
      const batch v2 = batch::load_unaligned(src + j + 2 * L), v3 = batch::load_unaligned(src + j + 3 * L);
      v0.store_unaligned(dst + j);
      v1.store_unaligned(dst + j + L);
      v2.store_unaligned(dst + j + 2 * L);
      v3.store_unaligned(dst + j + 3 * L);
    }
    for (; j + L <= cols; j += L) batch::load_unaligned(src + j).store_unaligned(dst + j);
    for (; j < cols; ++j) dst[j] = src[j];
  }
}
#endif
}  // namespace detail

// The blocks of matmul_packed_ab_add_blocked: whole rows of B where they fit, up to
// kWeightBlockDepth of them, each copied with kWeightBlockPad floats more. kWeightBlockFloats holds
// kWeightBlockDepth rows of GPT-2 small's widest matrix (c_fc, 3,072 columns): 790 KB, within a
// core's L2 cache. A wider B takes fewer rows, and one so wide that kMinWeightBlockDepth rows do
// not fit is cut into column blocks.
inline constexpr std::size_t kWeightBlockDepth = 64;
inline constexpr std::size_t kMinWeightBlockDepth = 16;
inline constexpr std::size_t kWeightBlockPad = 16;
inline constexpr std::size_t kWeightBlockFloats = kWeightBlockDepth * (3072 + kWeightBlockPad);
inline constexpr std::size_t kWeightSliceCols = 64;  // a multiple of every build's tile width

// The shape of matmul_packed_ab_add_blocked's blocks for a B p columns wide.
struct WeightBlockShape {
  std::size_t cols, depth;
};
inline WeightBlockShape weight_block_shape(std::size_t p) {
  constexpr std::size_t widest = kWeightBlockFloats / kMinWeightBlockDepth - kWeightBlockPad;
  const std::size_t cols = p <= widest ? p : widest / kWeightSliceCols * kWeightSliceCols;
  const std::size_t depth = kWeightBlockFloats / (cols + kWeightBlockPad);
  return {cols, depth < kWeightBlockDepth ? depth : kWeightBlockDepth};
}

// C (n×p, stride ldc) += A·B with A n×k packed by pack_rows and B k×p (stride ldb): the
// product of activations and a weight matrix far larger than the cache (GPT-2's Conv1D weights,
// [in, out] row-major, 2.25 MB to 9 MB each). matmul_ab runs A's rows in groups of kTileRows,
// each over the whole of B, so B would come from memory once per group (3 times at 10 tokens).
// Here B is cut into blocks of whole rows (weight_block_shape), each read from memory once and
// used by every group of A's rows while it sits in the cache. Each block is first copied into
// `block` (kWeightBlockFloats floats, the caller's; detail::copy_rows): whole rows of a row-major
// B are one contiguous stretch of memory, which the hardware streams, where the micro-kernel's
// walk down 32 or 256 bytes of each row, a row 3 to 12 KB apart, would wait on memory at every
// step. With blocks of 128 rows × 256 columns, 1 KB of each row, each of GPT-2 small's products
// at 10 tokens took 11 to 22 % longer in wasm SIMD on an AMD EPYC, and its forward pass of the
// lesson's sentence 72 to 75 ms against 59 to 64 ms. A's packed panels give the micro-kernel
// constant offsets (see tile_ab_fixed), and a last group of 1 to 3 rows runs as one tile of that
// many rows rather than row by row, a group of 1 or 2 rows twice as wide: 2 × 4 keeps 8
// accumulators, as 4 × 2 does (at 10 tokens, with 2 × 2, the relaxed build's products took 5 %
// longer, each fused multiply-add waiting on its accumulator). Each entry of C is summed in the
// same order whatever the blocks and tiles. No allocation; B itself is only read.
inline void matmul_packed_ab_add_blocked(const float* packed, const float* b, std::size_t ldb, float* c,
                                         std::size_t ldc, std::size_t n, std::size_t k, std::size_t p,
                                         float* block) {
  assert(n != 0 && k != 0 && p != 0);
  constexpr std::size_t R = detail::kTileRows;
#if ATTN_SIMD
  static_assert(R == 4, "the last group's cases below are 1 to 3 rows");
  const WeightBlockShape shape = weight_block_shape(p);
  for (std::size_t j0 = 0; j0 < p; j0 += shape.cols) {
    const std::size_t jb = p - j0 < shape.cols ? p - j0 : shape.cols;
    // The copy's rows are kWeightBlockPad floats longer than the block is wide: a power of two
    // apart (1 KB, say), the rows of a slice would all start in the same few of the L1 cache's
    // 64 sets and use a fraction of it.
    const std::size_t ldk = jb + kWeightBlockPad;
    for (std::size_t k0 = 0; k0 < k; k0 += shape.depth) {
      const std::size_t kb = k - k0 < shape.depth ? k - k0 : shape.depth;
      detail::copy_rows(b + k0 * ldb + j0, ldb, block, ldk, kb, jb);
      // A slice of the block's columns, 16 KB, stays in L1 while every group of rows passes.
      for (std::size_t s0 = 0; s0 < jb; s0 += kWeightSliceCols) {
        const std::size_t sb = jb - s0 < kWeightSliceCols ? jb - s0 : kWeightSliceCols;
        const float* slice = block + s0;
        const float* panel = packed + k0 * R;
        std::size_t i = 0;
        for (; i + R <= n; i += R, panel += R * k) {
          detail::rows_ab_fixed<R, true, 1, R>(panel, slice, ldk, c + i * ldc + j0 + s0, ldc, kb, sb);
        }
        float* ci = c + i * ldc + j0 + s0;
        switch (n - i) {
          case 3: detail::rows_ab_fixed<3, true, 1, R>(panel, slice, ldk, ci, ldc, kb, sb); break;
          case 2: detail::rows_ab_fixed<2, true, 1, R, 2 * detail::kTileVectors>(panel, slice, ldk, ci, ldc, kb, sb); break;
          case 1: detail::rows_ab_fixed<1, true, 1, R, 2 * detail::kTileVectors>(panel, slice, ldk, ci, ldc, kb, sb); break;
          default: break;
        }
      }
    }
  }
#else
  (void)block;
  reference::matmul_panels_ab_ref(packed, {R, R * k, 1, R}, b, ldb, c, ldc, n, k, p, reference::Store::add);
#endif
}

// c (p floats) += a (k floats) · B (k×p, stride ldb): one row times a weight matrix, a decoding
// step's products. Each of B's rows is read once, straight from memory: at one row of A there is
// nothing to reuse, so the blocked kernel's copy of each block into the cache would only add work
// to a product that the memory's speed bounds. A step takes one row from each of eight equal
// segments of B's rows, eight sequential streams far apart, as matvec_abt_streams does: eight
// adjacent rows of GPT-2's 768-wide matrices are one 24 KB window, which read about 11 GB/s in
// wasm SIMD on an AMD EPYC against 18 for the segments. c, a few KB, stays in L1 throughout.
inline void matvec_add(const float* a, const float* b, std::size_t ldb, float* c, std::size_t k, std::size_t p) {
  assert(k != 0 && p != 0);
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size, S = 8;
  const std::size_t p_vec = p - p % L, seg = k / S;
  for (std::size_t t = 0; t < seg; ++t) {
    std::array<const float*, S> r;
    std::array<batch, S> at;
    for (std::size_t u = 0; u < S; ++u) {
      r[u] = b + (u * seg + t) * ldb;
      at[u] = batch(a[u * seg + t]);
    }
    for (std::size_t j = 0; j < p_vec; j += L) {
      batch acc = batch::load_unaligned(c + j);
      for (std::size_t u = 0; u < S; ++u) acc = madd(at[u], batch::load_unaligned(r[u] + j), acc);
      acc.store_unaligned(c + j);
    }
    for (std::size_t j = p_vec; j < p; ++j) {
      float sum = c[j];
      for (std::size_t u = 0; u < S; ++u) sum += a[u * seg + t] * r[u][j];
      c[j] = sum;
    }
  }
  // The last k mod 8 rows, one at a time.
  for (std::size_t t = S * seg; t < k; ++t) {
    const float* bt = b + t * ldb;
    const batch at(a[t]);
    for (std::size_t j = 0; j < p_vec; j += L) {
      madd(at, batch::load_unaligned(bt + j), batch::load_unaligned(c + j)).store_unaligned(c + j);
    }
    for (std::size_t j = p_vec; j < p; ++j) c[j] += a[t] * bt[j];
  }
#else
  reference::matmul_ab_ref(a, k, b, ldb, c, p, 1, k, p, reference::Store::add);
#endif
}

}  // namespace attn::kernels
