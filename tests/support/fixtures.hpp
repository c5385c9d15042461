#pragma once
// Turns the JSON fixtures (tests/fixtures/, written by tools/make_fixtures.py) into core types.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "compare.hpp"
#include "mask.hpp"
#include "matrix.hpp"
#include "support/json.hpp"

namespace testsupport {

inline std::string fixture_path(const std::string& name) {
  return std::string(ATTN_FIXTURE_DIR) + "/" + name;
}

// Rows of numbers; null stands for -inf.
inline std::vector<double> flat_rows(const Json& rows, std::size_t* n = nullptr,
                                     std::size_t* m = nullptr) {
  std::vector<double> out;
  for (const Json& r : rows.array) {
    for (const Json& x : r.array) {
      out.push_back(x.is_null() ? -std::numeric_limits<double>::infinity() : x.as_number());
    }
  }
  if (n) *n = rows.size();
  if (m) *m = rows.size() ? rows[0].size() : 0;
  return out;
}

inline attn::Matrix matrix_from_json(const Json& rows) {
  std::size_t n = 0, m = 0;
  const std::vector<double> values = flat_rows(rows, &n, &m);
  std::vector<float> data(values.begin(), values.end());
  return attn::Matrix(n, m, std::move(data));
}

inline std::vector<float> vector_from_json(const Json& values) {
  std::vector<float> out;
  for (const Json& x : values.array) out.push_back(float(x.as_number()));
  return out;
}

inline attn::Mask mask_from_json(const Json& mask) {
  const std::string& kind = mask["kind"].as_string();
  if (kind == "causal") return attn::Mask::causal();
  std::vector<std::uint8_t> hidden;
  if (mask.has("hidden")) {
    for (const Json& x : mask["hidden"].array) hidden.push_back(x.as_bool() ? 1 : 0);
  }
  if (kind == "key_padding") return attn::Mask::key_padding(hidden);
  if (kind == "custom") return attn::Mask::custom(hidden);
  return attn::Mask::none();
}

inline Tolerance tolerance_from_json(const Json& doc) {
  return {doc["tolerance"]["abs"].as_number(), doc["tolerance"]["rel"].as_number()};
}

}  // namespace testsupport
