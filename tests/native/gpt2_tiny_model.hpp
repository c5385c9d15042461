#pragma once
// Tiny random GPT-2s for the forward pass's and the decoder's tests: Hugging Face's layout, the
// scales making attention peaked, and ids whose second half repeats the first.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpt2/model.hpp"
#include "support/random.hpp"

namespace gpt2test {

struct Shape {
  std::size_t layers, d, heads, vocab, context;
};

inline void fill(testsupport::Random& rng, attn::AlignedVector<float>& v, std::size_t n, float lo, float hi) {
  v.resize(n);
  for (float& x : v) x = rng.uniform(lo, hi);
}

// Random weights in Hugging Face's layout. c_attn's scale makes the scores q·k/√d_head spread
// over several units, so each row's softmax is peaked.
inline attn::gpt2::Weights tiny_model(testsupport::Random& rng, const Shape& s) {
  attn::gpt2::Weights w;
  attn::gpt2::Config& c = w.config;
  c.layers = s.layers;
  c.heads = s.heads;
  c.d_model = s.d;
  c.context = s.context;
  c.vocab_size = s.vocab;
  const std::size_t d = s.d;
  fill(rng, w.wte, s.vocab * d, -1.0f, 1.0f);
  fill(rng, w.wpe, s.context * d, -0.5f, 0.5f);
  const float attn_scale = 3.0f / std::sqrt(float(d));
  w.blocks.resize(s.layers);
  for (auto& b : w.blocks) {
    fill(rng, b.ln1_weight, d, 0.7f, 1.3f);
    fill(rng, b.ln1_bias, d, -0.1f, 0.1f);
    fill(rng, b.attn_weight, d * 3 * d, -attn_scale, attn_scale);
    fill(rng, b.attn_bias, 3 * d, -0.2f, 0.2f);
    fill(rng, b.proj_weight, d * d, -0.2f, 0.2f);
    fill(rng, b.proj_bias, d, -0.1f, 0.1f);
    fill(rng, b.ln2_weight, d, 0.7f, 1.3f);
    fill(rng, b.ln2_bias, d, -0.1f, 0.1f);
    fill(rng, b.fc_weight, d * 4 * d, -0.4f, 0.4f);
    fill(rng, b.fc_bias, 4 * d, -0.3f, 0.3f);
    fill(rng, b.mlp_proj_weight, 4 * d * d, -0.15f, 0.15f);
    fill(rng, b.mlp_proj_bias, d, -0.1f, 0.1f);
  }
  fill(rng, w.lnf_weight, d, 0.7f, 1.3f);
  fill(rng, w.lnf_bias, d, -0.1f, 0.1f);
  c.parameters = w.wte.size() + w.wpe.size() + 2 * d + s.layers * (4 * d + 12 * d * d + 9 * d);
  return w;
}

// n ids: the first half random, then the same again (so induction has positions to score).
inline std::vector<std::int32_t> ids_with_repeats(testsupport::Random& rng, std::size_t n, std::size_t vocab) {
  std::vector<std::int32_t> ids(n);
  const std::size_t half = (n + 1) / 2;
  for (std::size_t i = 0; i < n; ++i) ids[i] = i < half ? std::int32_t(rng.index(vocab)) : ids[i - half];
  return ids;
}

}  // namespace gpt2test
