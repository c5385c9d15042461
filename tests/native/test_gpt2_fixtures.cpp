// Issue 26: GPT-2's loader and forward pass against the float64 PyTorch GPT-2 of
// tools/make_gpt2_fixtures.py (checked there against an independent NumPy forward): each
// checkpoint of build-fixtures/gpt2/ read through load_file, then every text's attentions within
// 1e-4 and its top-5 next tokens (the same ids, probabilities within 1e-3). Natively and, under
// Node, in both wasm builds. Skipped, with a message, where the fixtures are not made
// (tools/build.sh fixtures).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "gpt2/forward.hpp"
#include "gpt2/loader.hpp"
#include "support/json.hpp"

using namespace testsupport;

namespace {

const std::string kDir = ATTN_GPT2_FIXTURE_DIR;

bool made() { return std::ifstream(kDir + "/index.json").good(); }

}  // namespace

TEST_CASE("PyTorch fixtures: GPT-2's weights within 1e-4 and next tokens within 1e-3") {
  if (!made()) {
    MESSAGE("build-fixtures/gpt2 is not made: run tools/build.sh fixtures");
    return;
  }
  const Json index = read_json_file(kDir + "/index.json");
  REQUIRE(index["checkpoints"].size() >= 4);
  for (const Json& checkpoint : index["checkpoints"].array) {
    const std::string name = checkpoint["name"].as_string();
    CAPTURE(name);
    const Json ref = read_json_file(kDir + "/" + name + "/reference.json");
    attn::gpt2::LoadOptions options;
    if (!ref["headsOption"].is_null()) options.heads = std::size_t(ref["headsOption"].as_number());
    attn::gpt2::Weights weights = attn::gpt2::load_file(kDir + "/" + name + "/model.safetensors", options);
    const Json& config = ref["config"];
    CHECK(weights.config.layers == std::size_t(config["layers"].as_number()));
    CHECK(weights.config.heads == std::size_t(config["heads"].as_number()));
    CHECK(weights.config.d_model == std::size_t(config["dModel"].as_number()));
    CHECK(weights.config.context == std::size_t(config["context"].as_number()));
    CHECK(weights.config.vocab_size == std::size_t(config["vocabSize"].as_number()));
    CHECK(weights.config.parameters == std::size_t(config["parameters"].as_number()));
    for (const Json& c : ref["cases"].array) {
      const std::string case_name = c["name"].as_string();
      CAPTURE(case_name);
      std::vector<std::int32_t> ids;
      for (const Json& id : c["ids"].array) ids.push_back(std::int32_t(id.as_number()));
      const attn::gpt2::RunResult r = attn::gpt2::run(weights, ids);
      const std::size_t n = ids.size();
      double worst = 0;
      REQUIRE(r.layers.size() == c["attentions"].size());
      for (std::size_t l = 0; l < r.layers.size(); ++l) {
        for (std::size_t h = 0; h < r.layers[l].size(); ++h) {
          const Json& want = c["attentions"][l][h];
          const std::vector<float>& got = r.layers[l][h].weights;
          REQUIRE(got.size() == n * n);
          for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) worst = std::max(worst, std::abs(double(got[i * n + j]) - want[i][j].as_number()));
          }
        }
      }
      CHECK(worst <= 1e-4);
      REQUIRE(r.next.size() == c["next"].size());
      for (std::size_t t = 0; t < r.next.size(); ++t) {
        CHECK(r.next[t].id == std::int32_t(c["next"][t]["id"].as_number()));
        CHECK(std::abs(double(r.next[t].probability) - c["next"][t]["probability"].as_number()) <= 1e-3);
      }
    }
  }
}
