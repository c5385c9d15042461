#pragma once
// Fits y ≈ c·x^k by least squares on log x, log y: the slope k of a log-log plot, as the cost
// lab shows for measured time against n (k ≈ 2 once the n² terms dominate).
#include <vector>

namespace attn {

struct PowerLaw {
  double exponent = 0;     // k, the slope on log-log axes
  double coefficient = 0;  // c = y at x = 1
};

// Needs at least two points with different x; every x and y finite and > 0. Throws attn::Error.
PowerLaw fit_power_law(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace attn
