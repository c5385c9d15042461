#pragma once
// A mul+add loop at the machine's vector width with enough independent accumulators to hide
// latency: the benchmark's measure of peak f32 throughput, taken in the same run as the
// kernels it rates. Not used by the attention code.
#include <cstddef>

#include "simd.hpp"

namespace attn::kernels {

// Independent chains: a mul+add step has ~8 cycles of latency, and two vector units want two
// steps every cycle; 12 chains cover that and still fit in 16 vector registers.
inline constexpr std::size_t kPeakChains = 12;

// Runs `iterations` rounds of kPeakChains independent acc = acc·a + b updates and returns a
// value that depends on all of them (so the compiler keeps the loop).
// FLOPs: iterations · kPeakChains · kLanes · 2.
inline float peak_mul_add(std::size_t iterations) {
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  const batch a(0.999999f), b(1e-7f);
  batch s[kPeakChains];
  for (std::size_t c = 0; c < kPeakChains; ++c) s[c] = batch(1.0f + 0.1f * float(c));
  for (std::size_t i = 0; i < iterations; ++i) {
    // Fused where the instruction set has FMA (natively); mul then add in wasm SIMD, as
    // the kernels themselves do through the same xsimd::fma.
    for (std::size_t c = 0; c < kPeakChains; ++c) s[c] = xsimd::fma(s[c], a, b);
  }
  batch total(0.0f);
  for (std::size_t c = 0; c < kPeakChains; ++c) total += s[c];
  return xsimd::reduce_add(total);
#else
  float s[kPeakChains];
  for (std::size_t c = 0; c < kPeakChains; ++c) s[c] = 1.0f + 0.1f * float(c);
  for (std::size_t i = 0; i < iterations; ++i) {
    for (float& x : s) x = x * 0.999999f + 1e-7f;
  }
  float total = 0.0f;
  for (float x : s) total += x;
  return total;
#endif
}

}  // namespace attn::kernels
