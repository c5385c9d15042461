// The comparators must be able to fail: a check that cannot fail proves nothing.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/compare.hpp"
#include "support/json.hpp"
#include "support/oracle.hpp"

using namespace testsupport;

TEST_CASE("close() rejects differences over the tolerance, NaN, and mismatched infinities") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(close(1.0, 1.0, {}));
  CHECK(close(1.0 + 1e-6, 1.0, {1e-5, 0.0}));
  CHECK_FALSE(close(1.0 + 1e-4, 1.0, {1e-5, 0.0}));
  CHECK_FALSE(close(200.0, 100.0, {0.0, 0.5}));
  CHECK(close(150.0, 100.0, {0.0, 0.5}));
  CHECK_FALSE(close(std::nan(""), 1.0, {1e9, 1e9}));
  CHECK_FALSE(close(1.0, std::nan(""), {1e9, 1e9}));
  CHECK(close(-inf, -inf, {}));
  CHECK_FALSE(close(-inf, 0.0, {1e9, 1e9}));
  CHECK_FALSE(close(0.0, -inf, {1e9, 1e9}));
}

TEST_CASE("compare_arrays and compare_matrix report the first difference, including the last entry") {
  const std::vector<float> a{1, 2, 3, 4};
  const std::vector<double> same{1, 2, 3, 4}, last{1, 2, 3, 4.5}, first{0, 2, 3, 4};
  CHECK(compare_arrays(a, same, 4, {}) == "");
  CHECK(compare_arrays(a, last, 4, {}) == "value[3] = 4, expected 4.5 (difference 0.5, allowed 0)");
  CHECK(compare_arrays(a, first, 4, {0.1, 0}) != "");
  CHECK(compare_matrix(a, same, 2, 2, {}) == "");
  CHECK(compare_matrix(a, last, 2, 2, {}) == "matrix row 2 column 2 = 4, expected 4.5 (difference 0.5)");
  CHECK(compare_matrix(a, first, 2, 2, {}, "w") == "w row 1 column 1 = 1, expected 0 (difference 1)");
  CHECK(compare_matrix(a, same, 1, 4, {}) == "");
  CHECK(compare_matrix(a, same, 2, 3, {}) != "");  // wrong size
}

TEST_CASE("the oracle itself: the worked example's first weight row") {
  const attn::Matrix q{{1, 1}, {0, 1}, {-1, 0}}, k{{1, 0}, {0, 1}, {-1, 0}}, v{{1, 0}, {0, 1}, {1, 1}};
  const auto r = oracle_attention(q, k, v);
  CHECK(std::fabs(r.weights[0] - 0.445808) < 1e-6);
  CHECK(std::fabs(r.weights[2] - 0.108383) < 1e-6);
  CHECK(std::fabs(r.output[0] - 0.554192) < 1e-6);
}

TEST_CASE("the JSON reader parses what the fixtures use and rejects garbage") {
  const Json j = parse_json(R"({"a": [1, -2.5e3, null, true], "s": "x\"y"})");
  CHECK(j["a"][1].as_number() == -2500.0);
  CHECK(j["a"][2].is_null());
  CHECK(j["a"][3].as_bool());
  CHECK(j["s"].as_string() == "x\"y");
  CHECK_THROWS(parse_json("[1, 2"));
  CHECK_THROWS(parse_json("{\"a\": }"));
  CHECK_THROWS(j["missing"]);
}
