#include "random.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "error.hpp"
#include "portable_math.hpp"
#include "validate.hpp"

namespace attn {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
  // splitmix64 never yields four zeros in a row, so the state is never all zero.
  for (std::uint64_t& word : s_) word = splitmix64(seed);
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return double(next_u64() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // A point uniform in the unit disc (minus the centre); (u, v)·√(−2 ln s / s) are then two
  // independent standard normals. Accepts π/4 ≈ 79% of the tries.
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * portable_log(s) / s);
  spare_ = v * factor;
  has_spare_ = true;
  return u * factor;
}

void fill_normal(float* out, std::size_t count, Rng& rng, double sigma) {
  for (std::size_t i = 0; i < count; ++i) out[i] = float(sigma * rng.normal());
}

Matrix normal_matrix(std::uint64_t rows, std::uint64_t cols, std::uint64_t seed, double sigma) {
  validate_range("rows", rows, 1, limits::kMaxNormalSide);
  validate_range("cols", cols, 1, limits::kMaxNormalSide);
  char shown[32];
  std::snprintf(shown, sizeof shown, "%.9g", sigma);  // 1e-50 as 1e-50, not 0.000000
  if (!std::isfinite(sigma) || !(sigma > 0.0)) {
    throw Error(std::string("std must be a finite number greater than 0, got ") + shown);
  }
  Rng rng(seed);
  const auto r = std::size_t(rows), c = std::size_t(cols);  // in range, so each fits a size_t
  Matrix m(r, c);
  fill_normal(m.data.data(), m.data.size(), rng, sigma);
  // A large std can push a draw past float32's range: an error, never an Infinity entry.
  for (const float x : m.data) {
    if (!std::isfinite(x)) {
      throw Error(std::string("std ") + shown + " is too large: some samples overflow float32 (±3.4e38); use a smaller std");
    }
  }
  return m;
}

}  // namespace attn
