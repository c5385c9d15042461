#include "fit.hpp"

#include <cmath>
#include <cstddef>
#include <string>

#include "error.hpp"

namespace attn {

PowerLaw fit_power_law(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) {
    throw Error("a power-law fit needs as many y as x values, not " + std::to_string(y.size()) + " and " +
                std::to_string(x.size()));
  }
  if (x.size() < 2) throw Error("a power-law fit needs at least two points");
  double mean_lx = 0, mean_ly = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(std::isfinite(x[i]) && x[i] > 0 && std::isfinite(y[i]) && y[i] > 0)) {
      throw Error("a power-law fit needs finite values above 0 (point " + std::to_string(i + 1) + ")");
    }
    mean_lx += std::log(x[i]);
    mean_ly += std::log(y[i]);
  }
  mean_lx /= double(x.size());
  mean_ly /= double(x.size());
  // Centred sums: no cancellation when the logs are large and close together.
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double dx = std::log(x[i]) - mean_lx;
    sxx += dx * dx;
    sxy += dx * (std::log(y[i]) - mean_ly);
  }
  if (sxx == 0) throw Error("a power-law fit needs at least two different x values");
  PowerLaw fit;
  fit.exponent = sxy / sxx;
  fit.coefficient = std::exp(mean_ly - fit.exponent * mean_lx);
  return fit;
}

}  // namespace attn
