// Each SIMD kernel against its scalar reference (computed in double), on shapes around the
// vector width and with tails. Operands sit one float past an aligned address, and the
// floats around them are NaN, so a kernel that reads outside its rows cannot pass.
// In the scalar wasm build (ATTN_SIMD == 0) the kernels are the references, so the cases that
// compare a kernel with its own reference are compiled out there: what remains (packing, the
// packed products against the plain reference, the range checks, transpose, the exp's range
// below -87.3) compares different code or known values, and can fail in every build.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/finite.hpp"
#include "kernels/matmul.hpp"
#include "kernels/softmax.hpp"
#include "kernels/transpose.hpp"
#include "reference/matmul_ref.hpp"
#include "reference/softmax_ref.hpp"
#include "support/compare.hpp"
#include "support/seed.hpp"

using testsupport::Random;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Sizes around this build's vector width N (4 for SSE2 and wasm, 8 for AVX2, 16 for AVX-512):
// N ± 1, 3N + 2 (a tile of 2 vectors, then one vector, then 2 scalar columns) and 8N + 2 (two
// AVX-512 tiles of 4 vectors, then scalars), and AVX-512's 15 and 16 in every build.
std::vector<std::size_t> sweep(std::initializer_list<std::size_t> fixed) {
  const std::size_t n = attn::kernels::kLanes;
  std::vector<std::size_t> sizes(fixed);
  for (std::size_t extra : {n - 1, n, n + 1, 3 * n + 2, 8 * n + 2, std::size_t(15), std::size_t(16)}) {
    if (extra != 0) sizes.push_back(extra);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}
const std::vector<std::size_t> kRows = sweep({1, 2, 3, 4, 5, 7, 8, 9, 14, 17, 34, 64, 65, 257});
const std::vector<std::size_t> kDepths = sweep({1, 2, 3, 4, 5, 8, 14, 34, 63, 64, 65});

// A rows×cols operand with row stride `stride`, starting one float into a NaN-filled buffer.
struct Padded {
  std::vector<float> buffer;
  float* data;
  std::size_t stride;
  Padded(Random& rng, std::size_t rows, std::size_t cols, std::size_t pad)
      : buffer(rows * (cols + pad) + 2, kNaN), data(buffer.data() + 1), stride(cols + pad) {
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j) data[i * stride + j] = rng.uniform();
    }
  }
};

// Rounding bound for a float dot product of length d: 2·d·eps·Σ|a·b| (plus one denormal).
double dot_bound(const float* a, std::size_t sa, const float* b, std::size_t sb, std::size_t d) {
  double sum_abs = 0.0;
  for (std::size_t t = 0; t < d; ++t) sum_abs += std::fabs(double(a[t * sa]) * double(b[t * sb]));
  return 2.0 * double(d) * FLT_EPSILON * sum_abs + 1e-30;
}

// Runs a product kernel and its reference into NaN-filled outputs whose rows are 2 floats
// apart, checks every entry against bound(i, j), and checks the gaps were never written.
template <class Kernel, class Reference, class Bound>
void check_product(Kernel kernel, Reference reference, std::size_t rows, std::size_t cols,
                   Bound bound) {
  const std::size_t ldc = cols + 2;
  std::vector<float> got(rows * ldc, kNaN), want(rows * ldc, kNaN);
  kernel(got.data(), ldc);
  reference(want.data(), ldc);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double err = std::fabs(double(got[i * ldc + j]) - double(want[i * ldc + j]));
      if (!(err <= bound(i, j))) {
        CAPTURE(i);
        CAPTURE(j);
        FAIL_CHECK("difference " << err << " over bound " << bound(i, j));
      }
    }
    REQUIRE(std::isnan(got[i * ldc + cols]));
    REQUIRE(std::isnan(got[i * ldc + cols + 1]));
  }
}

// C = A·B (A n×k, B k×p) by `kernel`, against the scalar reference, each entry within the
// rounding bound of its dot product.
template <class Kernel>
void check_ab(const Padded& a, const Padded& b, std::size_t n, std::size_t k, std::size_t p, Kernel kernel) {
  check_product(
      kernel,
      [&](float* c, std::size_t ldc) {
        attn::reference::matmul_ab_ref(a.data, a.stride, b.data, b.stride, c, ldc, n, k, p);
      },
      n, p,
      [&](std::size_t i, std::size_t j) { return dot_bound(a.data + i * a.stride, 1, b.data + j, b.stride, k); });
}

}  // namespace

#if ATTN_SIMD
TEST_CASE("matmul_abt (QKᵀ) matches its scalar reference on every shape, with tails") {
  ATTN_SEEDED_RANDOM(rng, 1);
  for (std::size_t n : kRows) {
    for (std::size_t m : kRows) {
      for (std::size_t d : kDepths) {
        CAPTURE(n); CAPTURE(m); CAPTURE(d);
        const Padded a(rng, n, d, 3), b(rng, m, d, 1);
        check_product(
            [&](float* c, std::size_t ldc) {
              attn::kernels::matmul_abt(a.data, a.stride, b.data, b.stride, c, ldc, n, m, d);
            },
            [&](float* c, std::size_t ldc) {
              attn::reference::matmul_abt_ref(a.data, a.stride, b.data, b.stride, c, ldc, n, m, d);
            },
            n, m,
            [&](std::size_t i, std::size_t j) {
              return dot_bound(a.data + i * a.stride, 1, b.data + j * b.stride, 1, d);
            });
      }
    }
  }
}

TEST_CASE("matmul_ab (AV and X·W) matches its scalar reference on every shape, with tails") {
  ATTN_SEEDED_RANDOM(rng, 2);
  for (std::size_t n : kRows) {
    for (std::size_t k : kRows) {
      for (std::size_t p : kDepths) {
        CAPTURE(n); CAPTURE(k); CAPTURE(p);
        const Padded a(rng, n, k, 1), b(rng, k, p, 2);
        check_ab(a, b, n, k, p, [&](float* c, std::size_t ldc) {
          attn::kernels::matmul_ab(a.data, a.stride, b.data, b.stride, c, ldc, n, k, p);
        });
      }
    }
  }
}

TEST_CASE("matmul_ab_add (C += A·B) accumulates like its scalar reference") {
  ATTN_SEEDED_RANDOM(rng, 4);
  for (std::size_t n : kRows) {
    for (std::size_t k : {std::size_t(1), std::size_t(5), std::size_t(64), std::size_t(65)}) {
      for (std::size_t p : kDepths) {
        CAPTURE(n); CAPTURE(k); CAPTURE(p);
        const Padded a(rng, n, k, 1), b(rng, k, p, 2);
        const Padded start(rng, n, p, 2);  // what C holds before: earlier blocks' sums
        check_product(
            [&](float* c, std::size_t ldc) {
              for (std::size_t i = 0; i < n; ++i) std::copy(start.data + i * start.stride, start.data + i * start.stride + p, c + i * ldc);
              attn::kernels::matmul_ab_add(a.data, a.stride, b.data, b.stride, c, ldc, n, k, p);
            },
            [&](float* c, std::size_t ldc) {
              for (std::size_t i = 0; i < n; ++i) std::copy(start.data + i * start.stride, start.data + i * start.stride + p, c + i * ldc);
              attn::reference::matmul_ab_ref(a.data, a.stride, b.data, b.stride, c, ldc, n, k, p, attn::reference::Store::add);
            },
            n, p,
            [&](std::size_t i, std::size_t j) {
              return dot_bound(a.data + i * a.stride, 1, b.data + j, b.stride, k) +
                     2.0 * FLT_EPSILON * std::fabs(double(start.data[i * start.stride + j]));
            });
      }
    }
  }
}

#endif  // ATTN_SIMD

// The streaming path's products read A in a layout fixed at compile time: packed panels of
// kTileRows rows (the queries) or rows a constant stride apart (the score tiles). Both are
// checked against the plain reference on the unpacked matrix, a different code path in every
// build (in the scalar build too, where they run the layout-aware reference).
TEST_CASE("pack_rows lays out every row in panels and pads the last panel with zeros") {
  ATTN_SEEDED_RANDOM(rng, 8);
  constexpr std::size_t R = attn::kernels::detail::kTileRows;
  for (std::size_t rows : kRows) {
    for (std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(64), std::size_t(65)}) {
      CAPTURE(rows); CAPTURE(k);
      const Padded a(rng, rows, k, 3);
      const std::size_t size = attn::kernels::packed_rows_size(rows, k);
      REQUIRE(size == (rows + R - 1) / R * R * k);
      std::vector<float> packed(size + 1, kNaN);
      attn::kernels::pack_rows(a.data, a.stride, rows, k, packed.data());
      for (std::size_t i = 0; i < (rows + R - 1) / R * R; ++i) {
        for (std::size_t t = 0; t < k; ++t) {
          const float want = i < rows ? a.data[i * a.stride + t] : 0.0f;
          REQUIRE(packed[i / R * R * k + t * R + i % R] == want);
        }
      }
      REQUIRE(std::isnan(packed[size]));
    }
  }
}

TEST_CASE("matmul_packed_ab (the streaming QKᵀ) matches the plain reference, with tails") {
  ATTN_SEEDED_RANDOM(rng, 9);
  for (std::size_t n : kRows) {
    for (std::size_t k : {std::size_t(1), std::size_t(5), std::size_t(16), std::size_t(64), std::size_t(65)}) {
      for (std::size_t p : kDepths) {
        CAPTURE(n); CAPTURE(k); CAPTURE(p);
        const Padded a(rng, n, k, 1), b(rng, k, p, 2);
        std::vector<float> packed(attn::kernels::packed_rows_size(n, k));
        attn::kernels::pack_rows(a.data, a.stride, n, k, packed.data());
        check_ab(a, b, n, k, p, [&](float* c, std::size_t ldc) {
          attn::kernels::matmul_packed_ab(packed.data(), b.data, b.stride, c, ldc, n, k, p);
        });
      }
    }
  }
}

TEST_CASE("matmul_fixed_stride_ab_add (the streaming P·V) accumulates like the plain reference") {
  ATTN_SEEDED_RANDOM(rng, 10);
  constexpr std::size_t kStride = 67;  // any constant wider than k: the score tiles use kBlockKeys
  for (std::size_t n : kRows) {
    for (std::size_t k : {std::size_t(1), std::size_t(5), std::size_t(16), std::size_t(64), std::size_t(65)}) {
      for (std::size_t p : kDepths) {
        CAPTURE(n); CAPTURE(k); CAPTURE(p);
        const Padded a(rng, n, k, kStride - k), b(rng, k, p, 2);
        const Padded start(rng, n, p, 2);  // what C holds before: earlier blocks' sums
        const auto from_start = [&](float* c, std::size_t ldc) {
          for (std::size_t i = 0; i < n; ++i) std::copy(start.data + i * start.stride, start.data + i * start.stride + p, c + i * ldc);
        };
        check_product(
            [&](float* c, std::size_t ldc) {
              from_start(c, ldc);
              attn::kernels::matmul_fixed_stride_ab_add<kStride>(a.data, b.data, b.stride, c, ldc, n, k, p);
            },
            [&](float* c, std::size_t ldc) {
              from_start(c, ldc);
              attn::reference::matmul_ab_ref(a.data, a.stride, b.data, b.stride, c, ldc, n, k, p,
                                             attn::reference::Store::add);
            },
            n, p,
            [&](std::size_t i, std::size_t j) {
              return dot_bound(a.data + i * a.stride, 1, b.data + j, b.stride, k) +
                     2.0 * FLT_EPSILON * std::fabs(double(start.data[i * start.stride + j]));
            });
      }
    }
  }
}

TEST_CASE("reduce_max_in_range finds the max and any value at or over the limit, tails included") {
  ATTN_SEEDED_RANDOM(rng, 11);
  const float limit = 1e30f;
  for (std::size_t n : kRows) {
    CAPTURE(n);
    std::vector<float> x(n);
    for (float& value : x) value = rng.uniform(-100.0f, 100.0f);
    for (std::size_t at : {std::size_t(0), n / 2, n - 1}) {
      CAPTURE(at);
      std::vector<float> row = x;
      row[at] = 150.0f;  // the max, at the front, the middle and the tail
      const auto found = attn::kernels::reduce_max_in_range(row.data(), n, limit);
      CHECK(found.max == 150.0f);
      CHECK(found.in_range);
      for (const float bad : {limit, -limit, 3e38f, kNaN, std::numeric_limits<float>::infinity()}) {
        row = x;
        row[at] = bad;
        CHECK_FALSE(attn::kernels::reduce_max_in_range(row.data(), n, limit).in_range);
      }
      row = x;
      row[at] = std::nextafter(limit, 0.0f);  // just under the limit is in range
      CHECK(attn::kernels::reduce_max_in_range(row.data(), n, limit).in_range);
    }
  }
}

TEST_CASE("all_finite finds a NaN or an infinity anywhere, tails included") {
  ATTN_SEEDED_RANDOM(rng, 6);
  for (std::size_t n : kRows) {
    CAPTURE(n);
    const Padded x(rng, 1, n, 0);
    std::vector<float> row(x.data, x.data + n);
    CHECK(attn::kernels::all_finite(row.data(), n));
    for (const float bad : {kNaN, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
      for (std::size_t at : {std::size_t(0), n / 2, n - 1}) {
        std::vector<float> broken = row;
        broken[at] = bad;
        CHECK_FALSE(attn::kernels::all_finite(broken.data(), n));
      }
    }
    // Huge finite values stay finite: x·0 is 0 for them.
    std::vector<float> huge(n, 3.4e38f);
    CHECK(attn::kernels::all_finite(huge.data(), n));
  }
}

TEST_CASE("transpose packs every element, and writes nothing past its rows") {
  ATTN_SEEDED_RANDOM(rng, 5);
  for (std::size_t rows : kRows) {
    for (std::size_t cols : kDepths) {
      CAPTURE(rows); CAPTURE(cols);
      const Padded src(rng, rows, cols, 1);
      const std::size_t ldd = rows + 3;
      std::vector<float> dst(cols * ldd, kNaN);
      attn::kernels::transpose(src.data, src.stride, dst.data(), ldd, rows, cols);
      for (std::size_t j = 0; j < cols; ++j) {
        for (std::size_t i = 0; i < rows; ++i) REQUIRE(dst[j * ldd + i] == src.data[i * src.stride + j]);
        for (std::size_t i = rows; i < ldd; ++i) REQUIRE(std::isnan(dst[j * ldd + i]));
      }
    }
  }
}

#if ATTN_SIMD
TEST_CASE("softmax kernels match their scalar references, with tails and masked entries") {
  ATTN_SEEDED_RANDOM(rng, 3);
  for (std::size_t n : kRows) {
    CAPTURE(n);
    std::vector<float> buffer(n + 2, kNaN);
    float* x = buffer.data() + 1;
    for (std::size_t i = 0; i < n; ++i) {
      // Wide spread, some masked (-inf) entries, and scores in 90..100 where exp(x) alone
      // would overflow float32.
      x[i] = rng.coin(0.2) ? -std::numeric_limits<float>::infinity() : rng.uniform(-20.0f, 100.0f);
    }
    x[rng.index(n)] = rng.uniform(90.0f, 100.0f);

    const float max = attn::kernels::reduce_max(x, n);
    REQUIRE(max == attn::reference::reduce_max_ref(x, n));

    std::vector<float> got(n + 2, kNaN), want(n + 2, kNaN);
    const float sum = attn::kernels::exp_minus_max_sum(x, max, got.data() + 1, n);
    const float sum_ref = attn::reference::exp_minus_max_sum_ref(x, max, want.data() + 1, n);
    for (std::size_t i = 0; i < n; ++i) {
      // The kernel forms x - max in float32, which rounds by up to |x - max|·eps/2; exp turns
      // that into a relative error. The reference subtracts in double. Results below 1e-37
      // (weights that round to 0 next to the max's exp(0) = 1) are held to an absolute bound.
      const double want_i = double(want[i + 1]);
      const double spread = std::fabs(double(x[i]) - double(max));
      const double bound = std::isinf(spread) ? 0.0 : (spread + 4.0) * FLT_EPSILON * want_i + 1e-37;
      if (!(std::fabs(double(got[i + 1]) - want_i) <= bound)) {
        CAPTURE(i);
        FAIL_CHECK("exp(" << x[i] << " - " << max << ") = " << got[i + 1] << ", reference " << want_i);
      }
    }
    CHECK(testsupport::close(sum, sum_ref, {0.0, 2.0 * double(n) * FLT_EPSILON}));
    CHECK(std::isnan(got[0]));
    CHECK(std::isnan(got[n + 1]));
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isinf(x[i])) CHECK(got[i + 1] == 0.0f);  // masked: exactly zero
    }

    std::vector<float> scaled(got), scaled_ref(got);
    attn::kernels::scale(scaled.data() + 1, 1.0f / sum, n);
    attn::reference::scale_ref(scaled_ref.data() + 1, 1.0f / sum, n);
    CHECK(testsupport::compare_arrays(scaled.data() + 1, scaled_ref.data() + 1, n,
                                      {0.0, FLT_EPSILON}, "scaled") == "");
    CHECK(std::isnan(scaled[n + 1]));
  }
}

TEST_CASE("exp_scaled_minus_max_sum (the streaming softmax pass) matches its scalar reference") {
  ATTN_SEEDED_RANDOM(rng, 7);
  for (std::size_t n : kRows) {
    for (const float scale : {1.0f, 0.125f, 0.57735026f}) {
      CAPTURE(n); CAPTURE(scale);
      std::vector<float> buffer(n + 2, kNaN);
      float* x = buffer.data() + 1;
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = rng.coin(0.2) ? -std::numeric_limits<float>::infinity() : rng.uniform(-300.0f, 300.0f);
      }
      x[rng.index(n)] = rng.uniform(290.0f, 300.0f);
      const float max = attn::kernels::reduce_max(x, n);
      std::vector<float> got(n + 2, kNaN), want(n + 2, kNaN);
      const float sum = attn::kernels::exp_scaled_minus_max_sum(x, max, scale, got.data() + 1, n);
      const float sum_ref = attn::reference::exp_scaled_minus_max_sum_ref(x, max, scale, want.data() + 1, n);
      for (std::size_t i = 0; i < n; ++i) {
        // (x - max)·scale is rounded twice in float32, a relative error of eps in the
        // argument a, which exp turns into |a|·eps; exp itself adds 2 ulp.
        const double want_i = double(want[i + 1]);
        const double a = (double(max) - double(x[i])) * double(scale);
        const double bound = std::isinf(a) ? 0.0 : (a + 4.0) * FLT_EPSILON * want_i + 1e-37;
        if (!(std::fabs(double(got[i + 1]) - want_i) <= bound)) {
          CAPTURE(i);
          FAIL_CHECK("exp((" << x[i] << " - " << max << ")·" << scale << ") = " << got[i + 1] << ", reference " << want_i);
        }
        if (std::isinf(x[i])) CHECK(got[i + 1] == 0.0f);  // masked: exactly zero
      }
      CHECK(testsupport::close(sum, sum_ref, {0.0, 2.0 * double(n) * FLT_EPSILON}));
      CHECK(std::isnan(got[0]));
      CHECK(std::isnan(got[n + 1]));
    }
  }
}

#endif  // ATTN_SIMD

TEST_CASE("vectorized exp below the stated range: at most a denormal, 0 for -inf, NaN kept") {
  // Past the vector width, so the vector code (not the scalar tail) sees every value.
  std::vector<float> x = {-87.3f, -87.4f, -87.6f, -87.7f, -88.0f, -88.5f, -89.0f, -100.0f, -150.0f,
                          -1e10f, -3.4e38f, -std::numeric_limits<float>::infinity()};
  while (x.size() % 64 != 0) x.push_back(-std::numeric_limits<float>::infinity());
  std::vector<float> got(x.size(), kNaN);
  attn::kernels::exp_minus_max_sum(x.data(), 0.0f, got.data(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    CAPTURE(x[i]);
    CHECK(got[i] >= 0.0f);
    CHECK(got[i] <= 1.3e-38f);  // exp(-87.3) = 1.25e-38; every smaller argument gives less
#if ATTN_SIMD
    if (x[i] <= -88.0f) CHECK(got[i] == 0.0f);  // the vector exp's clamp (the reference is exact)
#endif
  }
  std::vector<float> nan(x.size(), kNaN), out(x.size(), 0.0f);
  attn::kernels::exp_minus_max_sum(nan.data(), 0.0f, out.data(), nan.size());
  for (float y : out) CHECK(std::isnan(y));
}

#if ATTN_SIMD
TEST_CASE("vectorized exp is within 2 ulp of the correctly rounded exp over the post-max range") {
  // After the row max is subtracted every argument lies in (-inf, 0]. Below about -87.3 the
  // result is a float32 denormal or 0 and, next to the row max's e^0 = 1, cannot change a
  // weight; the bound is stated and checked on [-87.3, 0], densely.
  std::vector<float> x, got;
  for (float t = -87.3f; t < 0.0f; t += 0.00071f) x.push_back(t);
  x.push_back(0.0f);
  got.resize(x.size());
  attn::kernels::exp_minus_max_sum(x.data(), 0.0f, got.data(), x.size());
  double worst_ulp = 0.0;
  float worst_at = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float want = float(std::exp(double(x[i])));  // exp in double, rounded once
    const double ulp = double(std::nextafter(want, INFINITY) - want);
    const double err = std::fabs(double(got[i]) - double(want)) / ulp;
    if (err > worst_ulp) {
      worst_ulp = err;
      worst_at = x[i];
    }
  }
  MESSAGE("worst exp error: " << worst_ulp << " ulp at x = " << worst_at << ", over " << x.size() << " points");
  CHECK(worst_ulp <= 2.0);
}
#endif  // ATTN_SIMD

TEST_CASE("exp pass on a row of known values: each constant of the exp keeps its own value") {
  // Built for wasm with every argument known, this very call once summed to NaN: Emscripten
  // 3.1.6's LLVM read each constant of the exp as the last one stored (see opaque() in exp.hpp).
  // 67: whole vectors and a tail (with 64, GCC 12 warns wrongly that the empty tail loop
  // overflows).
  float x[67], y[67];
  for (int i = 0; i < 67; ++i) x[i] = -0.05f * float(i);
  const float sum = attn::kernels::exp_scaled_minus_max_sum(x, 0.0f, 1.0f, y, 67);
  double want_sum = 0.0;
  for (int i = 0; i < 67; ++i) {
    const double want = std::exp(double(x[i]));
    want_sum += want;
    CHECK(std::fabs(double(y[i]) - want) <= 3e-7 * want);  // 2 ulp and x's own rounding
  }
  CHECK(std::fabs(double(sum) - want_sum) <= 1e-6 * want_sum);
}
