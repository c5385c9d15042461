// GPT-2's interventions (forward.hpp's RunOptions ablate, lens, attribute) against the float64
// references of tools/make_gpt2_fixtures.py (PyTorch with head_mask, checked there against NumPy's
// explicit columns): weights and probabilities within 1e-4, logits and attributions within 1e-3,
// and what must hold on any model: an ablated head keeps its pattern, the lens's last layer is
// next, the parts sum to the logit, bad options are refused in words and the model works after.
// Natively and, under Node, in both wasm builds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "error.hpp"
#include "gpt2/forward.hpp"
#include "gpt2/loader.hpp"
#include "native/gpt2_tiny_model.hpp"
#include "support/json.hpp"
#include "support/seed.hpp"

using attn::gpt2::Ablation;
using attn::gpt2::AblatedHead;
using attn::gpt2::RunOptions;
using testsupport::Json;

namespace {

const std::string kDir = ATTN_GPT2_FIXTURE_DIR;

std::vector<std::int32_t> ids_of(const Json& list) {
  std::vector<std::int32_t> ids;
  for (const Json& id : list.array) ids.push_back(std::int32_t(id.as_number()));
  return ids;
}

// The core's top 5 against the reference's: each probability within 1e-4; the same ids, except
// two neighbours whose reference probabilities lie within 1e-4 of each other may trade places.
void check_next(const std::vector<attn::gpt2::NextToken>& got, const Json& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    CAPTURE(r);
    const double p = want[r]["probability"].as_number();
    CHECK(std::abs(double(got[r].probability) - p) <= 1e-4);
    if (got[r].id != std::int32_t(want[r]["id"].as_number())) {
      bool near_tie = false;
      for (std::size_t s = 0; s < want.size(); ++s) {
        near_tie |= s != r && std::int32_t(want[s]["id"].as_number()) == got[r].id &&
                    std::abs(want[s]["probability"].as_number() - p) <= 1e-4;
      }
      CHECK_MESSAGE(near_tie, "id " << got[r].id << " where the reference has " << want[r]["id"].as_number());
    }
  }
}

double attention_error(const attn::gpt2::RunResult& r, const Json& want, std::size_t n) {
  double worst = 0;
  for (std::size_t l = 0; l < r.layers.size(); ++l) {
    for (std::size_t h = 0; h < r.layers[l].size(); ++h) {
      const std::vector<float>& got = r.layers[l][h].weights;
      REQUIRE(got.size() == n * n);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          worst = std::max(worst, std::abs(double(got[i * n + j]) - want[l][h][i][j].as_number()));
        }
      }
    }
  }
  return worst;
}

double total(const attn::gpt2::Attribution& a) {
  double sum = a.embeddings + a.biases;
  for (const auto& layer : a.heads) {
    for (double h : layer) sum += h;
  }
  for (double m : a.mlps) sum += m;
  return sum;
}

void check_attribution(const std::optional<attn::gpt2::Attribution>& got, const Json& want) {
  REQUIRE(got.has_value());
  CHECK(got->token == std::int32_t(want["token"].as_number()));
  double worst = std::abs(got->logit - want["logit"].as_number());
  worst = std::max(worst, std::abs(got->embeddings - want["embeddings"].as_number()));
  worst = std::max(worst, std::abs(got->biases - want["biases"].as_number()));
  REQUIRE(got->heads.size() == want["heads"].size());
  for (std::size_t l = 0; l < got->heads.size(); ++l) {
    worst = std::max(worst, std::abs(got->mlps[l] - want["mlps"][l].as_number()));
    for (std::size_t h = 0; h < got->heads[l].size(); ++h) {
      worst = std::max(worst, std::abs(got->heads[l][h] - want["heads"][l][h].as_number()));
    }
  }
  CHECK(worst <= 1e-3);
  CHECK(std::abs(total(*got) - got->logit) <= 1e-3);
}

std::vector<AblatedHead> ablation_of(const Json& list) {
  std::vector<AblatedHead> heads;
  for (const Json& a : list.array) {
    heads.push_back({std::uint64_t(a["layer"].as_number()), std::uint64_t(a["head"].as_number()),
                     a["mode"].as_string() == "mean" ? Ablation::mean : Ablation::zero});
  }
  return heads;
}

}  // namespace

TEST_CASE("PyTorch fixtures: GPT-2's lens, attribution and ablated runs match the float64 reference") {
  if (!std::ifstream(kDir + "/index.json").good()) {
    MESSAGE("build-fixtures/gpt2 is not made: run tools/build.sh fixtures");
    return;
  }
  const Json index = testsupport::read_json_file(kDir + "/index.json");
  std::size_t ablations = 0;
  for (const Json& checkpoint : index["checkpoints"].array) {
    const std::string name = checkpoint["name"].as_string();
    CAPTURE(name);
    const Json ref = testsupport::read_json_file(kDir + "/" + name + "/reference.json");
    REQUIRE(ref["cases"][0].has("lens"));  // fixtures made before the interventions: remake them
    attn::gpt2::LoadOptions load;
    if (!ref["headsOption"].is_null()) load.heads = std::size_t(ref["headsOption"].as_number());
    const attn::gpt2::Weights weights = attn::gpt2::load_file(kDir + "/" + name + "/model.safetensors", load);
    for (const Json& c : ref["cases"].array) {
      const std::string case_name = c["name"].as_string();
      CAPTURE(case_name);
      const std::vector<std::int32_t> ids = ids_of(c["ids"]);
      RunOptions options;
      options.layers = std::vector<std::uint64_t>{};
      options.lens = true;
      options.attribute = std::uint64_t(c["attribution"]["token"].as_number());
      const attn::gpt2::RunResult r = attn::gpt2::run(weights, ids, options);
      REQUIRE(r.lens.size() == weights.config.layers);
      for (std::size_t l = 0; l < r.lens.size(); ++l) {
        CAPTURE(l);
        check_next(r.lens[l], c["lens"][l]);
      }
      check_attribution(r.attribution, c["attribution"]);
      if (!c.has("ablations")) continue;
      for (const Json& a : c["ablations"].array) {
        RunOptions ablated;
        ablated.ablate = ablation_of(a["ablate"]);
        ablated.attribute = options.attribute;
        const attn::gpt2::RunResult got = attn::gpt2::run(weights, ids, ablated);
        CHECK(attention_error(got, a["attentions"], ids.size()) <= 1e-4);
        check_next(got.next, a["next"]);
        check_attribution(got.attribution, a["attribution"]);
        ++ablations;
      }
    }
  }
  CHECK(ablations >= 10);
}

TEST_CASE("GPT-2's interventions on a tiny model: what holds whatever the weights") {
  ATTN_SEEDED_RANDOM(rng, 3801);
  const gpt2test::Shape s{3, 32, 4, 60, 16};
  const attn::gpt2::Weights w = gpt2test::tiny_model(rng, s);
  const auto ids = gpt2test::ids_with_repeats(rng, 9, s.vocab);
  const auto plain = attn::gpt2::run(w, ids);
  CHECK(plain.lens.empty());
  CHECK_FALSE(plain.attribution.has_value());

  SUBCASE("the lens after the last block is next; the options change nothing else") {
    RunOptions options;
    options.lens = true;
    options.attribute = std::uint64_t(plain.next[1].id);
    const auto r = attn::gpt2::run(w, ids, options);
    REQUIRE(r.lens.size() == s.layers);
    for (std::size_t t = 0; t < r.next.size(); ++t) {
      CHECK(r.lens.back()[t].id == r.next[t].id);
      CHECK(r.lens.back()[t].probability == r.next[t].probability);
      CHECK(r.next[t].id == plain.next[t].id);
      CHECK(r.next[t].probability == plain.next[t].probability);
    }
    for (std::size_t l = 0; l < s.layers; ++l) CHECK(r.layers[l][1].weights == plain.layers[l][1].weights);
    CHECK(std::abs(total(*r.attribution) - r.attribution->logit) <= 1e-4);
    CHECK(r.attribution->token == plain.next[1].id);
  }

  SUBCASE("an ablated head keeps its pattern and writes nothing; later layers see the change") {
    RunOptions options;
    options.ablate = {{1, 2, Ablation::zero}};
    options.attribute = std::uint64_t(plain.next[0].id);
    const auto r = attn::gpt2::run(w, ids, options);
    for (std::size_t l = 0; l <= 1; ++l) {
      for (std::size_t h = 0; h < s.heads; ++h) CHECK(r.layers[l][h].weights == plain.layers[l][h].weights);
    }
    CHECK(r.attribution->heads[1][2] == 0.0);
    double moved = 0;
    for (std::size_t h = 0; h < s.heads; ++h) {
      for (std::size_t i = 0; i < r.layers[2][h].weights.size(); ++i) {
        moved = std::max(moved, double(std::abs(r.layers[2][h].weights[i] - plain.layers[2][h].weights[i])));
      }
    }
    CHECK(moved > 1e-4);
    CHECK(std::abs(total(*r.attribution) - r.attribution->logit) <= 1e-4);
  }

  SUBCASE("attribute_top attributes the run's own next[0], as naming it does, with heads switched off too") {
    for (const std::vector<attn::gpt2::AblatedHead>& ablate :
         {std::vector<attn::gpt2::AblatedHead>{}, std::vector<attn::gpt2::AblatedHead>{{2, 1, Ablation::zero}, {1, 0, Ablation::mean}}}) {
      RunOptions top;
      top.ablate = ablate;
      top.attribute_top = true;
      const auto r = attn::gpt2::run(w, ids, top);
      RunOptions named;
      named.ablate = ablate;
      named.attribute = std::uint64_t(r.next[0].id);
      const auto want = attn::gpt2::run(w, ids, named);
      REQUIRE(r.attribution.has_value());
      CHECK(r.attribution->token == r.next[0].id);
      CHECK(r.attribution->logit == want.attribution->logit);
      CHECK(r.attribution->embeddings == want.attribution->embeddings);
      CHECK(r.attribution->biases == want.attribution->biases);
      CHECK(r.attribution->heads == want.attribution->heads);
      CHECK(r.attribution->mlps == want.attribution->mlps);
    }
  }

  SUBCASE("mean ablation over one position changes nothing: the mean of one row is the row") {
    RunOptions options;
    options.ablate = {{0, 0, Ablation::mean}, {2, 3, Ablation::mean}};
    const std::vector<std::int32_t> one{ids[0]};
    const auto a = attn::gpt2::run(w, one, options), b = attn::gpt2::run(w, one);
    for (std::size_t t = 0; t < a.next.size(); ++t) CHECK(a.next[t].probability == b.next[t].probability);
  }

  SUBCASE("bad options are refused in words, and the model works after") {
    RunOptions options;
    options.ablate = {{3, 0, Ablation::zero}};
    CHECK_THROWS_WITH_AS(attn::gpt2::run(w, ids, options),
                         "ablate holds layer 3 head 0: GPT-2's layers here are numbered 0 to 2", attn::Error);
    options.ablate = {{1, 4, Ablation::mean}};
    CHECK_THROWS_WITH_AS(attn::gpt2::run(w, ids, options),
                         "ablate holds layer 1 head 4: each layer's heads here are numbered 0 to 3", attn::Error);
    options.ablate = {{1, 2, Ablation::zero}, {0, 2, Ablation::zero}, {1, 2, Ablation::mean}};
    CHECK_THROWS_WITH_AS(attn::gpt2::run(w, ids, options), "ablate holds layer 1 head 2 twice: name each head once",
                         attn::Error);
    options.ablate = {{std::uint64_t(1) << 32, 0, Ablation::zero}};
    CHECK_THROWS_AS(attn::gpt2::run(w, ids, options), attn::Error);
    options.ablate.clear();
    options.attribute = 60;
    CHECK_THROWS_WITH_AS(attn::gpt2::run(w, ids, options),
                         "attribute is token 60, but this model's vocabulary has 60 tokens, numbered 0 to 59", attn::Error);
    options.attribute = 3;
    options.attribute_top = true;
    CHECK_THROWS_WITH_AS(attn::gpt2::run(w, ids, options),
                         "attribute names one token: a token id, or the likeliest next token, not both", attn::Error);
    options.attribute.reset();
    options.attribute_top = false;
    const auto again = attn::gpt2::run(w, ids);
    CHECK(again.next[0].id == plain.next[0].id);
    CHECK(again.next[0].probability == plain.next[0].probability);
  }
}
