// GPT-2's decoder (gpt2/decode.hpp): greedy generation gives the float64 reference's ids exactly
// (tools/make_gpt2_fixtures.py, on prompts whose top two logits stand apart at every step); the
// KV cache is exact (the logits at every step within 1e-4 of re-reading the whole text, and those
// within 1e-4 of the float64 reference's probabilities); it stops at <|endoftext|>, the count and
// the context; sampling is seeded; bad options are refused in words. Natively and in both wasm builds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"
#include "gpt2/decode.hpp"
#include "gpt2/loader.hpp"
#include "gpt2/reference/forward_ref.hpp"
#include "native/gpt2_tiny_model.hpp"
#include "support/json.hpp"
#include "support/seed.hpp"

using attn::gpt2::Decoder;
using attn::gpt2::DecodeOptions;
using testsupport::Json;

namespace {

const std::string kDir = ATTN_GPT2_FIXTURE_DIR;

struct Generated {
  std::vector<std::int32_t> ids;
  std::vector<std::vector<float>> logits;  // what each step chose from
  std::vector<std::size_t> cache_bytes;
  bool last_done = false;
};

Generated generate(const attn::gpt2::Weights& w, const std::vector<std::int32_t>& prompt, const DecodeOptions& o) {
  Decoder decoder(w, prompt, o);
  Generated g;
  while (auto t = decoder.step()) {
    REQUIRE_FALSE(g.last_done);  // nothing after a token marked done
    g.ids.push_back(t->id);
    g.logits.push_back(decoder.logits());
    g.cache_bytes.push_back(t->cache_bytes);
    g.last_done = t->done;
    CHECK(t->probability > 0.0f);
    CHECK(t->probability <= 1.0f);
  }
  CHECK_FALSE(decoder.step().has_value());
  return g;
}

double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, double(std::abs(a[i] - b[i])));
  return worst;
}

}  // namespace

TEST_CASE("PyTorch fixtures: greedy generation gives the reference's ids, with the cache and without") {
  if (!std::ifstream(kDir + "/index.json").good()) {
    MESSAGE("build-fixtures/gpt2 is not made: run tools/build.sh fixtures");
    return;
  }
  const Json index = testsupport::read_json_file(kDir + "/index.json");
  std::size_t cases = 0, at_context = 0;
  for (const Json& checkpoint : index["checkpoints"].array) {
    const std::string name = checkpoint["name"].as_string();
    CAPTURE(name);
    const Json ref = testsupport::read_json_file(kDir + "/" + name + "/reference.json");
    REQUIRE(ref.has("generation"));  // fixtures made before the decoder: remake them
    attn::gpt2::LoadOptions load;
    if (!ref["headsOption"].is_null()) load.heads = std::size_t(ref["headsOption"].as_number());
    const attn::gpt2::Weights weights = attn::gpt2::load_file(kDir + "/" + name + "/model.safetensors", load);
    for (const Json& g : ref["generation"].array) {
      const std::string case_name = g["name"].as_string();
      CAPTURE(case_name);
      std::vector<std::int32_t> prompt, want;
      for (const Json& id : g["ids"].array) prompt.push_back(std::int32_t(id.as_number()));
      for (const Json& id : g["newIds"].array) want.push_back(std::int32_t(id.as_number()));
      for (bool cache : {true, false}) {
        CAPTURE(cache);
        DecodeOptions o;
        o.max_new_tokens = std::uint64_t(g["maxNewTokens"].as_number());
        o.cache = cache;
        o.end_of_text_first = g["endOfTextFirst"].as_bool();
        const Generated got = generate(weights, prompt, o);
        CHECK(got.ids == want);
        CHECK(got.last_done);
      }
      at_context += g["stoppedBy"].as_string() == "context";
      ++cases;
    }
  }
  CHECK(cases >= 10);
  CHECK(at_context >= 5);
}

TEST_CASE("GPT-2's KV cache is exact: every step's logits as re-reading the whole text, and as the float64 reference") {
  ATTN_SEEDED_RANDOM(rng, 3802);
  for (const gpt2test::Shape& s : {gpt2test::Shape{2, 32, 2, 64, 24}, gpt2test::Shape{3, 40, 5, 33, 24}}) {
    CAPTURE(s.heads);
    const attn::gpt2::Weights w = gpt2test::tiny_model(rng, s);
    const auto prompt = gpt2test::ids_with_repeats(rng, 6, s.vocab);
    for (double temperature : {0.0, 1.5}) {
      CAPTURE(temperature);
      DecodeOptions o;
      o.max_new_tokens = 12;
      o.temperature = temperature;
      o.top_k = 20;
      o.seed = 38;
      const Generated cached = generate(w, prompt, o);
      o.cache = false;
      const Generated again = generate(w, prompt, o);
      REQUIRE(cached.ids.size() == 12);
      CHECK(cached.ids == again.ids);
      std::vector<std::int32_t> text = prompt;
      for (std::size_t step = 0; step < cached.ids.size(); ++step) {
        CAPTURE(step);
        CHECK(largest_difference(cached.logits[step], again.logits[step]) <= 1e-4);
        // cacheBytes: K and V of every position read so far (the prompt, then one more a step).
        CHECK(cached.cache_bytes[step] == 2 * s.layers * (prompt.size() + step) * s.d * sizeof(float));
        CHECK(again.cache_bytes[step] == 0);
        const auto want = attn::gpt2::reference::forward_ref(w, text);
        const std::vector<float>& logits = cached.logits[step];
        const float mx = *std::max_element(logits.begin(), logits.end());
        double sum = 0, worst = 0;
        for (float l : logits) sum += std::exp(double(l) - mx);
        for (std::size_t t = 0; t < logits.size(); ++t) {
          worst = std::max(worst, std::abs(std::exp(double(logits[t]) - mx) / sum - want.probabilities[t]));
        }
        CHECK(worst <= 1e-4);
        text.push_back(cached.ids[step]);
      }
    }
  }
}

TEST_CASE("GPT-2's decoder stops at the count, at the context's end and at <|endoftext|>") {
  ATTN_SEEDED_RANDOM(rng, 3803);
  const gpt2test::Shape s{2, 32, 2, 64, 16};
  const attn::gpt2::Weights w = gpt2test::tiny_model(rng, s);
  DecodeOptions o;
  o.max_new_tokens = 3;
  Generated g = generate(w, {1, 2, 3}, o);
  CHECK(g.ids.size() == 3);
  CHECK(g.last_done);
  // 14 tokens of a context of 16: two more, however many are asked up to the context (a prompt plus
  // maxNewTokens past the context is no error); more than the context is refused.
  o.max_new_tokens = 17;
  CHECK_THROWS_WITH_AS(generate(w, {1, 2, 3}, o), "maxNewTokens must be at most this model's context, 16 tokens (got 17)",
                       attn::Error);
  o.max_new_tokens = 16;
  g = generate(w, std::vector<std::int32_t>(14, 5), o);
  CHECK(g.ids.size() == 2);
  CHECK(g.last_done);
  // A prompt filling the context leaves no room.
  Decoder full(w, std::vector<std::int32_t>(16, 5), o);
  CHECK_FALSE(full.step().has_value());

  // A model whose every guess is <|endoftext|>: its vocabulary is GPT-2's, ln_f leaves only its
  // bias, and the bias points at wte[50256].
  gpt2test::Shape big{1, 8, 2, 50257, 8};
  attn::gpt2::Weights eot = gpt2test::tiny_model(rng, big);
  std::fill(eot.lnf_weight.begin(), eot.lnf_weight.end(), 0.0f);
  std::fill(eot.lnf_bias.begin(), eot.lnf_bias.end(), 1.0f);
  std::fill(eot.wte.end() - 8, eot.wte.end(), 3.0f);
  o.max_new_tokens = 5;
  for (bool cache : {true, false}) {
    o.cache = cache;
    g = generate(eot, {10, 20}, o);
    REQUIRE(g.ids.size() == 1);
    CHECK(g.ids[0] == attn::gpt2::kEndOfText);
    CHECK(g.last_done);
  }
  // The same token in a smaller vocabulary is no <|endoftext|>: the tiny model has none (ids < 64).
}

TEST_CASE("GPT-2's decoder samples from the top K with its seed: the same seed, the same text") {
  ATTN_SEEDED_RANDOM(rng, 3804);
  const gpt2test::Shape s{2, 32, 2, 64, 32};
  const attn::gpt2::Weights w = gpt2test::tiny_model(rng, s);
  const std::vector<std::int32_t> prompt{3, 1, 4, 1, 5};
  DecodeOptions o;
  o.max_new_tokens = 20;
  const Generated greedy = generate(w, prompt, o);
  o.temperature = 2.0;
  o.top_k = 1;
  CHECK(generate(w, prompt, o).ids == greedy.ids);  // the top 1 is the greedy choice
  o.top_k = 4;
  o.seed = 7;
  const Generated a = generate(w, prompt, o), b = generate(w, prompt, o);
  CHECK(a.ids == b.ids);
  for (std::size_t step = 0; step < a.ids.size(); ++step) {
    // The token drawn is one of the step's 4 likeliest.
    const std::vector<float>& l = a.logits[step];
    const float chosen = l[std::size_t(a.ids[step])];
    CHECK(std::count_if(l.begin(), l.end(), [&](float x) { return x > chosen; }) < 4);
  }
  o.top_k = 1000;  // clamped to the vocabulary
  o.temperature = 5.0;
  bool differs = false;
  for (std::uint64_t seed = 1; seed < 6 && !differs; ++seed) {
    o.seed = seed;
    differs = generate(w, prompt, o).ids != a.ids;
  }
  CHECK(differs);
}

TEST_CASE("GPT-2's decoder refuses bad options in words, and the model works after") {
  ATTN_SEEDED_RANDOM(rng, 3805);
  const gpt2test::Shape s{1, 16, 2, 40, 8};
  const attn::gpt2::Weights w = gpt2test::tiny_model(rng, s);
  const std::vector<std::int32_t> prompt{1, 2};
  DecodeOptions o;
  o.max_new_tokens = 0;
  CHECK_THROWS_WITH_AS(Decoder(w, prompt, o), "maxNewTokens must be at least 1: the number of tokens to generate",
                       attn::Error);
  o.max_new_tokens = 2;
  for (double t : {-1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    o.temperature = t;
    CHECK_THROWS_AS(Decoder(w, prompt, o), attn::Error);
  }
  o.temperature = -0.5;
  CHECK_THROWS_WITH_AS(Decoder(w, prompt, o), "temperature must be a finite number, 0 (greedy) or more (got -0.5)",
                       attn::Error);
  o.temperature = 1.0;
  o.top_k = 0;
  CHECK_THROWS_WITH_AS(Decoder(w, prompt, o), "topK must be at least 1: sampling keeps the K likeliest tokens", attn::Error);
  o.top_k = 5;
  o.seed = std::uint64_t(1) << 32;
  CHECK_THROWS_WITH_AS(Decoder(w, prompt, o), "seed must be a whole number from 0 to 4,294,967,295 (got 4,294,967,296)",
                       attn::Error);
  o.seed = 0xFFFFFFFFu;
  CHECK_THROWS_WITH_AS(Decoder(w, std::vector<std::int32_t>{}, o), "There is no text to run: GPT-2 needs at least one token.",
                       attn::Error);
  CHECK_THROWS_WITH_AS(Decoder(w, std::vector<std::int32_t>{1, 40}, o),
                       "Token 1 has id 40, but this model's vocabulary has 40 tokens, numbered 0 to 39.", attn::Error);
  o.end_of_text_first = true;
  CHECK_THROWS_WITH_AS(Decoder(w, std::vector<std::int32_t>(9, 1), o),
                       "the text is 9 tokens long with <|endoftext|> first, more than this model's context of 8 tokens",
                       attn::Error);
  Decoder works(w, prompt, o);
  CHECK(works.step().has_value());
  CHECK(attn::gpt2::decoder_bytes(w.config, 2, o) >= 2 * 1 * 4 * 16 * sizeof(float));
}
