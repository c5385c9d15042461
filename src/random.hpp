#pragma once
// A seeded generator whose numbers are the same on every platform for a seed: natively (GCC or
// Clang, any instruction set) and in both WebAssembly builds. The page shows the seed, so a
// learner can get the same W_Q, X or √d_k sample again.
//
// xoshiro256** (Blackman and Vigna), its 256-bit state filled from the seed by splitmix64, the
// seeding its authors recommend. Standard normals come from Marsaglia's polar method in double.
// Only integer operations and IEEE +, −, ×, ÷ and √ (all exactly rounded) go into a number; the
// polar method's logarithm is portable_log (portable_math.hpp), not the C library's, whose last
// bit may differ between glibc and Emscripten's musl. The sources are compiled with
// -ffp-contract=off so no compiler fuses a·b + c into one rounding on some machines only.
#include <cstddef>
#include <cstdint>

#include "limits.hpp"
#include "matrix.hpp"

namespace attn {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next_u64();
  // Uniform on [0, 1), a multiple of 2⁻⁵³.
  double uniform();
  // Standard normal N(0, 1). Values come in pairs (the polar method makes two at a time).
  double normal();

 private:
  std::uint64_t s_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// count draws from N(0, sigma²), rounded to float32, written to out in order.
void fill_normal(float* out, std::size_t count, Rng& rng, double sigma = 1.0);

// rows×cols entries drawn from N(0, sigma²) in row-major order from Rng(seed), rounded to
// float32 (what the core computes with). Throws attn::Error unless rows and cols are in
// 1..limits::kMaxNormalSide and sigma is finite and > 0. The sizes are 64-bit, as a caller gives
// them, so the check sees the value itself (a 32-bit size_t would have wrapped 2³² + 1 to 1).
Matrix normal_matrix(std::uint64_t rows, std::uint64_t cols, std::uint64_t seed, double sigma = 1.0);

}  // namespace attn
