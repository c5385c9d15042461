#pragma once
// Seeded random inputs. Every test that draws numbers prints its seed (doctest CAPTURE); set
// ATTN_TEST_SEED to replay a run with another seed.
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "matrix.hpp"

namespace testsupport {

inline std::uint64_t test_seed(std::uint64_t fallback) {
  if (const char* s = std::getenv("ATTN_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return fallback;
}

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [lo, hi). Uniform rather than normal: std::uniform_real_distribution is
  // simple enough to give the same numbers under libstdc++ and libc++ (wasm).
  float uniform(float lo = -1.0f, float hi = 1.0f) {
    const double u = double(engine_() >> 11) * 0x1.0p-53;
    return float(lo + (hi - lo) * u);
  }
  std::size_t index(std::size_t n) { return std::size_t(engine_() % n); }
  bool coin(double p_true) { return double(engine_() >> 11) * 0x1.0p-53 < p_true; }

  attn::Matrix matrix(std::size_t rows, std::size_t cols, float lo = -1.0f, float hi = 1.0f) {
    attn::Matrix m(rows, cols);
    for (float& x : m.data) x = uniform(lo, hi);
    return m;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace testsupport
