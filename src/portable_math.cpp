#include "portable_math.hpp"

#include <cmath>
#include <limits>

namespace attn {

namespace {

// ln 2 split in a high part with trailing zero bits (so k·kLn2Hi is exact for |k| < 2¹¹) and
// the rest (fdlibm's constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;

}  // namespace

double portable_log(double x) {
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  // x = m·2^e with m in [√½, √2): frexp is exact. Then ln m = 2·atanh(z), z = (m − 1)/(m + 1),
  // |z| < 0.172, and 2z·(1 + z²/3 + z⁴/5 + …) converges to below 2⁻⁵³ relative by z²²/23.
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1)
  if (m < 0.70710678118654752) {
    m *= 2.0;
    --e;
  }
  const double z = (m - 1.0) / (m + 1.0);
  const double z2 = z * z;
  double sum = 0.0;
  for (int k = 23; k >= 1; k -= 2) sum = sum * z2 + 1.0 / k;  // Horner, smallest terms first
  return double(e) * kLn2Hi + (2.0 * z * sum + double(e) * kLn2Lo);
}

double portable_exp(double x) {
  if (x < -746.0) return 0.0;  // below the smallest subnormal; also -inf
  if (x > 709.8) return std::numeric_limits<double>::infinity();
  // x = k·ln 2 + r with |r| <= ln 2 / 2; e^x = 2^k · e^r, and the Taylor series of e^r to r¹³/13!
  // leaves a remainder below 0.35¹⁴/14! ≈ 5e-18.
  const double k = std::floor(x * 1.44269504088896340736 + 0.5);  // x / ln 2, rounded
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1.0;
  for (int n = 13; n >= 1; --n) sum = 1.0 + sum * r / n;  // Horner: 1 + r(1 + r/2(1 + r/3(…)))
  return std::ldexp(sum, int(k));
}

}  // namespace attn
