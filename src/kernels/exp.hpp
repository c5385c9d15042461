#pragma once
// exp for the softmax, whose arguments are x − max <= 0: Cody–Waite reduction by ln 2 and
// xsimd's degree-6 polynomial, as xsimd::exp does, but cheaper where the softmax has no use for
// the generality. k = round(x/ln 2) comes from the magic-number trick (one add, where the
// generic nearbyint takes seven wasm instructions), 2^k is built from k's bits directly, and
// the only range check is a clamp at -88, below which the result is 0 (exp is under 1e-38).
// Accuracy: within 2 ulp of the correctly rounded exp over [-87.3, 0] (tested; below -87.3
// results are float32 denormals or 0, which cannot move a weight next to the max's e^0 = 1).
// -inf (a masked score) gives exactly 0, NaN stays NaN. x > 0 is outside the contract.
#include <cstdint>

#include "simd.hpp"

namespace attn::kernels {

#if ATTN_SIMD
// A float the compiler cannot see through. Under WebAssembly, LLVM writes a v128.const at
// every use of a vector constant, inside the loop, and V8 builds each one from immediates
// every time: a dozen of them cost the exp loop more than its arithmetic. A splat of a
// value LLVM does not know is computed once, before the loop, and stays in a register.
// Each constant passes through its own volatile variable (one per Slot). With one volatile
// local for all of them, Emscripten 3.1.6's LLVM may turn a splat of the local's load into a
// second load of the stack slot they share, made after the last constant was stored there:
// every constant then reads -88 (tests/native/test_kernels.cpp checks the exp where that
// happened).
template <int Slot>
inline float opaque(float x) {
#if defined(__wasm__)
  static volatile float v;
  v = x;
  return v;
#else
  return x;
#endif
}

// The constants of exp_nonpositive, built once per loop (see opaque()).
template <class Batch>
struct ExpConstants {
  // 1.5·2^23: adding it rounds x/ln 2 to the nearest integer k and leaves k in the low
  // mantissa bits, so (bits + 127) << 23 is the float 2^k for k in [-127, 128).
  Batch magic{opaque<0>(12582912.0f)};
  Batch log2e{opaque<1>(1.44269504088896341f)};
  // ln 2 in two parts: k·ln2_hi is exact (ln2_hi has 9 significant bits).
  Batch ln2_hi{opaque<2>(0.693359375f)}, ln2_lo{opaque<3>(-2.12194440e-4f)};
  // e^r = 1 + r + r²·p(r) on |r| <= ln 2 / 2 (xsimd's and Cephes' coefficients for expf).
  Batch p4{opaque<4>(1.3997796e-03f)}, p3{opaque<5>(8.3955629e-03f)}, p2{opaque<6>(4.1665401e-02f)};
  Batch p1{opaque<7>(1.6666277e-01f)}, p0{opaque<8>(5.0000000e-01f)}, one{opaque<9>(1.0f)};
  // Arguments are clamped at -88: there k = -127 and the bits of 2^k are those of 0.0f, so
  // anything lower (-inf, a masked score) gives exactly 0, where exp is under 1e-38 anyway.
  Batch lowest{opaque<10>(-88.0f)};
};

template <class Batch>
inline Batch exp_nonpositive(Batch x, const ExpConstants<Batch>& c) {
  using int_batch = xsimd::batch<std::int32_t, typename Batch::arch_type>;
  // x < -88 ? -88 : x, so NaN stays NaN. Under wasm that is exactly f32x4.pmax(x, -88), one
  // instruction (LLVM would emit a compare and a bitselect for the select).
#if defined(__wasm__)
  x = xsimd::max(x, c.lowest);
#else
  x = xsimd::select(x < c.lowest, c.lowest, x);
#endif
  const Batch t = madd(x, c.log2e, c.magic);
  const Batch k = t - c.magic;
  Batch r = xsimd::fnma(k, c.ln2_hi, x);
  r = xsimd::fnma(k, c.ln2_lo, r);
  Batch p = madd(c.p4, r, c.p3);
  p = madd(p, r, c.p2);
  p = madd(p, r, c.p1);
  p = madd(p, r, c.p0);
  p = madd(p, r * r, r) + c.one;
  const Batch two_k = xsimd::bitwise_cast<float>((xsimd::bitwise_cast<std::int32_t>(t) + int_batch(127)) << 23);
  return p * two_k;
}
#endif

}  // namespace attn::kernels
