#pragma once
// GELU with the tanh approximation (GPT-2's "gelu_new"), in place or not:
//   gelu(x) = 0.5·x·(1 + tanh(u)),  u = √(2/π)·(x + 0.044715·x³).
// Scalar reference: reference/gelu_ref.hpp, same signature.
#include <cstddef>

#include "../reference/gelu_ref.hpp"
#include "exp.hpp"
#include "simd.hpp"

namespace attn::kernels {

#if ATTN_SIMD
// GELU's constants, through opaque() like the exp's (exp.hpp says why), on slots of their own.
template <class Batch>
struct GeluConstants {
  Batch c0{opaque<20>(0.797884560802865356f)};               // √(2/π)
  Batch c1{opaque<21>(0.797884560802865356f * 0.044715f)};  // √(2/π)·0.044715
  Batch one{opaque<22>(1.0f)};
  Batch minus_two{opaque<23>(-2.0f)};
  Batch zero{opaque<24>(0.0f)};
};
#endif

// y[i] = gelu(x[i]); y may be x.
// 0.5·(1 + tanh(u)) is the logistic σ(2u), computed from e = exp(−2|u|), whose argument is never
// positive (the project's exp, exp.hpp): σ = 1/(1 + e) for u ≥ 0 and e/(1 + e) for u < 0. That is
// tanh's stable form for large |u| (no exp overflows, no 1 − 1 cancels), and it keeps the
// relative accuracy of the small negative tail, where 1 + tanh(u) itself would cancel.
// ±Inf and huge |x| give x·1 or x·0 (so −Inf gives NaN, as the formula does); NaN stays NaN.
inline void gelu_tanh(const float* x, float* y, std::size_t n) {
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  constexpr std::size_t L = batch::size;
  const ExpConstants<batch> ec;
  const GeluConstants<batch> gc;
  std::size_t i = 0;
  for (; i + L <= n; i += L) {
    const batch v = batch::load_unaligned(x + i);
    const batch u = v * madd(v * v, gc.c1, gc.c0);
    const batch e = exp_nonpositive(gc.minus_two * xsimd::abs(u), ec);
    const batch r = gc.one / (gc.one + e);
    (v * xsimd::select(u >= gc.zero, r, e * r)).store_unaligned(y + i);
  }
  if (i < n) {
    // The tail through the same vector code, on a padded copy: the same rounding as the body.
    alignas(64) float in[L] = {}, out[L];
    for (std::size_t j = i; j < n; ++j) in[j - i] = x[j];
    const batch v = batch::load_aligned(in);
    const batch u = v * madd(v * v, gc.c1, gc.c0);
    const batch e = exp_nonpositive(gc.minus_two * xsimd::abs(u), ec);
    const batch r = gc.one / (gc.one + e);
    (v * xsimd::select(u >= gc.zero, r, e * r)).store_aligned(out);
    for (std::size_t j = i; j < n; ++j) y[j] = out[j - i];
  }
#else
  reference::gelu_tanh_ref(x, y, n);
#endif
}

}  // namespace attn::kernels
