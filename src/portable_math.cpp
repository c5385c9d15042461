#include "portable_math.hpp"

#include <cmath>
#include <limits>

namespace attn {

namespace {

// ln 2 split in a high part with trailing zero bits (so k·kLn2Hi is exact for |k| < 2¹¹) and
// the rest (fdlibm's constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;

// π/2 split the same way: k·kPiOver2Hi is exact for |k| < 2²⁰ (fdlibm's pio2_1 and pio2_1t).
constexpr double kPiOver2Hi = 1.57079632673412561417e+00;
constexpr double kPiOver2Lo = 6.07710050650619224932e-11;

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

SinCos portable_sin_cos(double x) {
  // x = k·π/2 + r with |r| <= π/4; the Taylor series of sin r and cos r to r¹⁹/19! and r¹⁸/18!
  // leave remainders below 0.79²⁰/20! ≈ 4e-21. Then the quadrant k mod 4 swaps and signs them.
  const double k = std::floor(x * 0.63661977236758134308 + 0.5);  // x / (π/2), rounded
  const double r = (x - k * kPiOver2Hi) - k * kPiOver2Lo;
  const double r2 = r * r;
  double s = 1.0, c = 1.0;
  for (int n = 19; n >= 3; n -= 2) s = 1.0 - s * r2 / (double(n) * double(n - 1));  // 1 − r²/3!(1 − r²/(4·5)(…))
  for (int n = 18; n >= 2; n -= 2) c = 1.0 - c * r2 / (double(n) * double(n - 1));
  s *= r;
  switch (static_cast<long long>(k) & 3) {
    case 0: return {s, c};
    case 1: return {c, -s};
    case 2: return {-s, -c};
    default: return {-c, s};
  }
}

}  // namespace attn
