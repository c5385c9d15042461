// Issue 13: the learned model's float32 loss and hand-written gradients against PyTorch autograd
// in float64 (tests/fixtures/learned.json, written by tools/make_fixtures.py with the same weights).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "learned/model.hpp"
#include "support/compare.hpp"
#include "support/fixtures.hpp"

using namespace testsupport;
using namespace attn::learned;

namespace {

std::vector<int> ints_from_rows(const Json& rows) {
  std::vector<int> out;
  for (const Json& r : rows.array) {
    for (const Json& x : r.array) out.push_back(int(x.as_number()));
  }
  return out;
}

}  // namespace

TEST_CASE("PyTorch fixtures: the learned model's loss and gradients equal autograd's") {
  const Json doc = read_json_file(fixture_path("learned.json"));
  const Tolerance tol = tolerance_from_json(doc);
  REQUIRE(doc["cases"].size() >= 4);
  for (const Json& c : doc["cases"].array) {
    const std::string& name = c["name"].as_string();
    CAPTURE(name);
    const Json& j = c["config"];
    ModelConfig config;
    config.layers = std::size_t(j["layers"].as_number());
    config.heads = std::size_t(j["heads"].as_number());
    config.d_model = std::size_t(j["dModel"].as_number());
    config.context = std::size_t(j["context"].as_number());
    config.scale = j["scale"].as_string() == "none" ? ScaleMode::none : ScaleMode::sqrt_d_k;
    validate(config);
    const std::vector<float> params = vector_from_json(c["params"]);
    REQUIRE(params.size() == Layout(config).total);
    const std::vector<int> tokens = ints_from_rows(c["tokens"]), targets = ints_from_rows(c["targets"]);
    const std::size_t batch = c["tokens"].size(), n = tokens.size() / batch;

    Activations a;
    std::vector<float> probs, grads(params.size(), 0.0f);
    forward(config, params.data(), tokens.data(), batch, n, a);
    const double l = loss(a, targets.data(), nullptr, probs);
    backward(config, params.data(), tokens.data(), targets.data(), a, probs, grads.data());

    CHECK(close(l, c["expected"]["loss"].as_number(), tol));
    std::vector<double> want;
    for (const Json& x : c["expected"]["gradient"].array) want.push_back(x.as_number());
    CHECK(compare_arrays(grads, want, want.size(), tol, "gradient") == "");
  }
}
