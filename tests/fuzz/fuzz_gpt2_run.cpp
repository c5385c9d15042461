// libFuzzer harness: GPT-2's interventions and decoder (src/gpt2/forward.hpp's RunOptions ablate,
// lens, attribute; src/gpt2/decode.hpp) on two tiny random models (2 layers, 4 heads of 4; 3
// layers, 2 heads of 8; vocabularies of 40 and 33, contexts of 12). Byte 0 picks the model and
// what to call; then each byte is a choice, out-of-range values included:
//   run      n ids (some past the vocabulary), up to 5 ablated heads (layer and head up to one past
//            the last, zero or mean, repeats possible), lens, a token to attribute (sometimes past
//            the vocabulary), the run's likeliest (attribute_top), or both, which is refused;
//   decoder  a prompt, maxNewTokens (0 to 30), a temperature (0, 0.25 to 8, or −1, ∞, NaN), topK
//            (0 to 60), a seed (sometimes past 2^32 − 1), the cache on or off.
// Whatever the bytes: a refusal is an attn::Error exactly when an argument is out of range (the
// rules are written again here); else the results keep their promises: probabilities in (0, 1]
// and in order, the lens's last layer equal to next, an ablated head's pattern unchanged and its
// zero-ablated part 0, the attribution's parts summing to its logit, a decoder that stops within
// its count and the context, marks its last token done, holds 2·layers·positions·d floats of
// cache, and gives the same logits (1e-4) with the cache and without.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"
#include "fuzz/fuzz_input.hpp"
#include "gpt2/decode.hpp"
#include "gpt2/forward.hpp"
#include "random.hpp"

namespace {

using attn::gpt2::Ablation;

attn::gpt2::Weights tiny(std::size_t layers, std::size_t heads, std::size_t d, std::size_t vocab, std::uint64_t seed) {
  attn::Rng rng(seed);
  const auto fill = [&](attn::AlignedVector<float>& v, std::size_t n, double lo, double hi) {
    v.resize(n);
    for (float& x : v) x = float(lo + (hi - lo) * rng.uniform());
  };
  attn::gpt2::Weights w;
  w.config.layers = layers;
  w.config.heads = heads;
  w.config.d_model = d;
  w.config.context = 12;
  w.config.vocab_size = vocab;
  fill(w.wte, vocab * d, -1, 1);
  fill(w.wpe, 12 * d, -0.5, 0.5);
  const double qk = 3.0 / std::sqrt(double(d));
  w.blocks.resize(layers);
  for (auto& b : w.blocks) {
    fill(b.ln1_weight, d, 0.7, 1.3);
    fill(b.ln1_bias, d, -0.1, 0.1);
    fill(b.attn_weight, 3 * d * d, -qk, qk);
    fill(b.attn_bias, 3 * d, -0.2, 0.2);
    fill(b.proj_weight, d * d, -0.2, 0.2);
    fill(b.proj_bias, d, -0.1, 0.1);
    fill(b.ln2_weight, d, 0.7, 1.3);
    fill(b.ln2_bias, d, -0.1, 0.1);
    fill(b.fc_weight, 4 * d * d, -0.4, 0.4);
    fill(b.fc_bias, 4 * d, -0.3, 0.3);
    fill(b.mlp_proj_weight, 4 * d * d, -0.15, 0.15);
    fill(b.mlp_proj_bias, d, -0.1, 0.1);
  }
  fill(w.lnf_weight, d, 0.7, 1.3);
  fill(w.lnf_bias, d, -0.1, 0.1);
  return w;
}

const attn::gpt2::Weights& model(std::size_t which) {
  static const attn::gpt2::Weights a = tiny(2, 4, 16, 40, 1), b = tiny(3, 2, 16, 33, 2);
  return which == 0 ? a : b;
}

std::vector<std::int32_t> ids_from(fuzz::Input& in, std::size_t vocab, bool& valid) {
  const std::size_t n = in.pick(15);  // 0 … 14: past the context of 12 too
  std::vector<std::int32_t> ids(n);
  for (auto& id : ids) {
    id = std::int32_t(in.pick(std::uint8_t(vocab + 3))) - 1;  // −1 … vocab + 1
    valid &= id >= 0 && std::size_t(id) < vocab;
  }
  valid &= n >= 1 && n <= 12;
  return ids;
}

void check_next(const std::vector<attn::gpt2::NextToken>& next, std::size_t vocab) {
  FUZZ_CHECK(next.size() == std::min<std::size_t>(5, vocab), "run()", "not 5 next tokens");
  for (std::size_t r = 0; r < next.size(); ++r) {
    FUZZ_CHECK(next[r].id >= 0 && std::size_t(next[r].id) < vocab, "run()", "a next token outside the vocabulary");
    FUZZ_CHECK(next[r].probability > 0.0f && next[r].probability <= 1.0f, "run()", "a probability outside (0, 1]");
    FUZZ_CHECK(r == 0 || next[r].probability <= next[r - 1].probability, "run()", "next out of order");
  }
}

void check_run(fuzz::Input& in, const attn::gpt2::Weights& w) {
  const attn::gpt2::Config& c = w.config;
  bool valid = true;
  const std::vector<std::int32_t> ids = ids_from(in, c.vocab_size, valid);
  attn::gpt2::RunOptions options;
  const std::size_t count = in.pick(6);
  for (std::size_t i = 0; i < count; ++i) {
    attn::gpt2::AblatedHead a{in.pick(std::uint8_t(c.layers + 1)), in.pick(std::uint8_t(c.heads + 1)),
                              in.pick(2) ? Ablation::mean : Ablation::zero};
    valid &= a.layer < c.layers && a.head < c.heads;
    for (const auto& before : options.ablate) valid &= !(before.layer == a.layer && before.head == a.head);
    options.ablate.push_back(a);
  }
  options.lens = in.pick(2);
  switch (in.pick(4)) {  // none, a token id, the run's top, both (refused)
    case 0: break;
    case 3: options.attribute_top = true; valid = false; [[fallthrough]];
    case 1:
      options.attribute = in.pick(std::uint8_t(c.vocab_size + 2));
      valid &= *options.attribute < c.vocab_size;
      break;
    default: options.attribute_top = true;
  }
  attn::gpt2::RunResult r;
  try {
    r = attn::gpt2::run(w, ids, options);
  } catch (const attn::Error& e) {
    FUZZ_CHECK(!valid, "run()", std::string("refused valid arguments: ") + e.what());
    return;
  }
  FUZZ_CHECK(valid, "run()", "accepted an argument out of range");
  check_next(r.next, c.vocab_size);
  if (options.lens) {
    FUZZ_CHECK(r.lens.size() == c.layers, "run()", "not one lens row per layer");
    for (const auto& row : r.lens) check_next(row, c.vocab_size);
    for (std::size_t t = 0; t < r.next.size(); ++t) {
      FUZZ_CHECK(r.lens.back()[t].id == r.next[t].id && r.lens.back()[t].probability == r.next[t].probability, "run()",
                 "the lens after the last block is not next");
    }
  } else {
    FUZZ_CHECK(r.lens.empty(), "run()", "a lens not asked for");
  }
  FUZZ_CHECK(r.attribution.has_value() == (options.attribute.has_value() || options.attribute_top), "run()",
             "attribution asked ≠ given");
  if (r.attribution) {
    const auto& a = *r.attribution;
    FUZZ_CHECK(!options.attribute_top || a.token == r.next[0].id, "run()", "attribute_top is not next[0]");
    double total = a.embeddings + a.biases;
    for (const auto& layer : a.heads) {
      for (double h : layer) total += h;
    }
    for (double m : a.mlps) total += m;
    FUZZ_CHECK(std::abs(total - a.logit) <= 1e-3 * std::max(1.0, std::abs(a.logit)), "run()",
               "the attribution's parts do not sum to the logit");
    for (const auto& ab : options.ablate) {
      FUZZ_CHECK(ab.mode == Ablation::mean || a.heads[ab.layer][ab.head] == 0.0, "run()",
                 "a zero-ablated head has a part");
    }
  }
  // The first ablated layer and those before it see nothing of the ablation.
  if (!options.ablate.empty()) {
    std::uint64_t first = c.layers;
    for (const auto& ab : options.ablate) first = std::min(first, ab.layer);
    const attn::gpt2::RunResult plain = attn::gpt2::run(w, ids);
    for (std::size_t l = 0; l <= first; ++l) {
      for (std::size_t h = 0; h < c.heads; ++h) {
        FUZZ_CHECK(r.layers[l][h].weights == plain.layers[l][h].weights, "run()", "an ablation changed an earlier pattern");
      }
    }
  }
}

struct Steps {
  std::vector<std::int32_t> ids;
  std::vector<std::vector<float>> logits;
};

Steps generate(const attn::gpt2::Weights& w, const std::vector<std::int32_t>& prompt,
               const attn::gpt2::DecodeOptions& o) {
  attn::gpt2::Decoder decoder(w, prompt, o);
  Steps s;
  bool done = false;
  while (auto t = decoder.step()) {
    FUZZ_CHECK(!done, "Decoder::step()", "a token after the last");
    FUZZ_CHECK(t->id >= 0 && std::size_t(t->id) < w.config.vocab_size, "Decoder::step()", "an id outside the vocabulary");
    FUZZ_CHECK(t->probability > 0.0f && t->probability <= 1.0f, "Decoder::step()", "a probability outside (0, 1]");
    const std::size_t positions = prompt.size() + s.ids.size();
    FUZZ_CHECK(t->cache_bytes == (o.cache ? 2 * w.config.layers * positions * w.config.d_model * sizeof(float) : 0),
               "Decoder::step()", "cacheBytes");
    s.ids.push_back(t->id);
    s.logits.push_back(decoder.logits());
    done = t->done;
  }
  const std::size_t room = w.config.context - std::min(w.config.context, prompt.size());
  const std::size_t expected = std::size_t(std::min<std::uint64_t>(o.max_new_tokens, room));
  FUZZ_CHECK(s.ids.size() <= expected, "Decoder::step()", "more tokens than the count or the context allow");
  FUZZ_CHECK(s.ids.size() == expected || (!s.ids.empty() && s.ids.back() == attn::gpt2::kEndOfText &&
                                          w.config.vocab_size > std::size_t(attn::gpt2::kEndOfText)),
             "Decoder::step()", "stopped early");
  FUZZ_CHECK(s.ids.empty() || done, "Decoder::step()", "the last token is not marked done");
  return s;
}

void check_decoder(fuzz::Input& in, const attn::gpt2::Weights& w) {
  bool valid = true;
  const std::vector<std::int32_t> prompt = ids_from(in, w.config.vocab_size, valid);
  attn::gpt2::DecodeOptions o;
  o.max_new_tokens = in.pick(31);
  valid &= o.max_new_tokens >= 1 && o.max_new_tokens <= w.config.context;
  const std::uint8_t t = in.byte();
  const double odd[] = {-1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  o.temperature = t < 128 ? 0.0 : t >= 250 ? odd[(t - 250) % 3] : 0.25 * double(t - 127) / 4.0;
  valid &= t < 250;
  o.top_k = in.pick(61);
  valid &= o.top_k >= 1;
  o.seed = in.pick(8) == 0 ? (std::uint64_t(1) << 32) + in.byte() : in.u64() & 0xFFFFFFFFu;
  valid &= o.seed <= 0xFFFFFFFFu;
  o.cache = in.pick(2);
  Steps got;
  try {
    got = generate(w, prompt, o);
  } catch (const attn::Error& e) {
    FUZZ_CHECK(!valid, "Decoder()", std::string("refused valid arguments: ") + e.what());
    return;
  }
  FUZZ_CHECK(valid, "Decoder()", "accepted an argument out of range");
  // The other mode reads the same text: the same logits at every step while the texts agree.
  o.cache = !o.cache;
  const Steps other = generate(w, prompt, o);
  for (std::size_t s = 0; s < std::min(got.ids.size(), other.ids.size()); ++s) {
    double worst = 0;
    for (std::size_t i = 0; i < got.logits[s].size(); ++i) {
      worst = std::max(worst, double(std::abs(got.logits[s][i] - other.logits[s][i])));
    }
    FUZZ_CHECK(worst <= 1e-4, "Decoder", "the cache's logits differ from re-reading the text");
    if (got.ids[s] != other.ids[s]) break;  // a draw at a boundary the last bits moved: the texts part
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  fuzz::Input in(data + 1, size - 1);
  const attn::gpt2::Weights& w = model(data[0] % 2);
  if ((data[0] / 2) % 2 == 0) {
    check_run(in, w);
  } else {
    check_decoder(in, w);
  }
  return 0;
}
