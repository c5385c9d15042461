#include "peak.hpp"

#include "limits.hpp"
#include "validate.hpp"

namespace attn::kernels {

float peak_mul_add(std::uint64_t iterations) {
  validate_range("iterations", iterations, 1, limits::kMaxPeakIterations);
  const auto rounds = std::size_t(iterations);  // in range, so it fits a size_t: the loop is as before
#if ATTN_SIMD
  using batch = xsimd::batch<float>;
  const batch a(0.999999f), b(1e-7f);
  batch s[kPeakChains];
  for (std::size_t c = 0; c < kPeakChains; ++c) s[c] = batch(1.0f + 0.1f * float(c));
  for (std::size_t i = 0; i < rounds; ++i) {
    // Fused where the instruction set has FMA (natively, and relaxed_madd in the relaxed wasm
    // build); mul then add in wasm SIMD: the kernels' own madd (simd.hpp).
    for (std::size_t c = 0; c < kPeakChains; ++c) s[c] = madd(s[c], a, b);
  }
  batch total(0.0f);
  for (std::size_t c = 0; c < kPeakChains; ++c) total += s[c];
  return xsimd::reduce_add(total);
#else
  float s[kPeakChains];
  for (std::size_t c = 0; c < kPeakChains; ++c) s[c] = 1.0f + 0.1f * float(c);
  for (std::size_t i = 0; i < rounds; ++i) {
    for (float& x : s) x = x * 0.999999f + 1e-7f;
  }
  float total = 0.0f;
  for (float x : s) total += x;
  return total;
#endif
}

}  // namespace attn::kernels
