#pragma once
// Comparators for the tests. Each returns an empty string when the data agree and otherwise a
// description of the first disagreement, so a failing CHECK says where and by how much.
// test_comparators.cpp proves each one fails on data that differ.
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace testsupport {

struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

// |got - want| <= abs + rel·|want|; infinities must match exactly; NaN never matches.
inline bool close(double got, double want, Tolerance tol) {
  if (std::isnan(got) || std::isnan(want)) return false;
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::fabs(got - want) <= tol.abs + tol.rel * std::fabs(want);
}

template <class Got, class Want>
std::string compare_arrays(const Got& got, const Want& want, std::size_t count, Tolerance tol,
                           const std::string& what = "value") {
  for (std::size_t index = 0; index < count; ++index) {
    const double g = double(got[index]);
    const double w = double(want[index]);
    if (!close(g, w, tol)) {
      std::ostringstream out;
      out.precision(9);
      out << what << "[" << index << "] = " << g << ", expected " << w << " (difference "
          << std::fabs(g - w) << ", allowed " << tol.abs + tol.rel * std::fabs(w) << ")";
      return out.str();
    }
  }
  return {};
}

// Compares a rows×cols float matrix against a double one (both row-major).
inline std::string compare_matrix(const std::vector<float>& got, const std::vector<double>& want,
                                  std::size_t rows, std::size_t cols, Tolerance tol,
                                  const std::string& what = "matrix") {
  if (got.size() != rows * cols || want.size() != rows * cols) {
    std::ostringstream out;
    out << what << ": sizes differ (" << got.size() << " vs " << want.size() << " for " << rows
        << "×" << cols << ")";
    return out.str();
  }
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double g = double(got[i * cols + j]);
      const double w = want[i * cols + j];
      if (!close(g, w, tol)) {
        std::ostringstream out;
        out.precision(9);
        out << what << " row " << i + 1 << " column " << j + 1 << " = " << g << ", expected "
            << w << " (difference " << std::fabs(g - w) << ")";
        return out.str();
      }
    }
  }
  return {};
}

}  // namespace testsupport
