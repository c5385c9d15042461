// GPT-2's decoder (decode.hpp): read() runs positions through the layers against the KV cache,
// step() reads the token chosen last and chooses the next. The boxes are forward.cpp's
// (steps.hpp); only attention differs, its keys and values coming from the cache.
#include "decode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "../error.hpp"
#include "../portable_math.hpp"
#include "forward.hpp"
#include "grouped.hpp"

namespace attn::gpt2 {

namespace {

using namespace steps;

constexpr std::uint64_t kMaxSeed = 0xFFFFFFFFu;

// The positions a decoder's text can reach: the prompt and max_new_tokens, at most the context.
std::size_t capacity_of(const Config& c, std::size_t n, const DecodeOptions& o) {
  return std::size_t(std::min<std::uint64_t>(c.context, std::uint64_t(n) + std::min<std::uint64_t>(o.max_new_tokens, c.context)));
}

// The workspace: the prompt's rows at once (read once), or with no cache the longest text; one
// row of scores against every position.
Layout decoder_layout(const Config& c, std::size_t n, const DecodeOptions& o) {
  const std::size_t capacity = capacity_of(c, n, o);
  return layout(c, o.cache ? n : capacity, capacity);
}

const DecodeOptions& checked(const Weights& w, const std::vector<std::int32_t>& prompt, const DecodeOptions& o) {
  validate_decode(w, prompt, o);
  return o;
}

}  // namespace

void validate_decode(const Weights& w, const std::vector<std::int32_t>& prompt, const DecodeOptions& o) {
  RunOptions run_options;
  run_options.layers = std::vector<std::uint64_t>{};
  run_options.end_of_text_first = o.end_of_text_first;
  validate_run(w, prompt.data(), prompt.size(), run_options);
  if (o.max_new_tokens < 1) throw Error("maxNewTokens must be at least 1: the number of tokens to generate");
  // Past the context no text could hold them; a prompt plus maxNewTokens past it just stops there.
  if (o.max_new_tokens > w.config.context) {
    throw Error("maxNewTokens must be at most this model's context, " + grouped(std::uint64_t(w.config.context)) + " tokens (got " +
                grouped(o.max_new_tokens) + ")");
  }
  if (!(std::isfinite(o.temperature) && o.temperature >= 0.0)) {
    char got[32];
    std::snprintf(got, sizeof got, "%g", o.temperature);
    throw Error(std::string("temperature must be a finite number, 0 (greedy) or more (got ") + got + ")");
  }
  if (o.top_k < 1) throw Error("topK must be at least 1: sampling keeps the K likeliest tokens");
  if (o.seed > kMaxSeed) {
    throw Error("seed must be a whole number from 0 to " + grouped(kMaxSeed) + " (got " + grouped(o.seed) + ")");
  }
}

Decoder::Decoder(const Weights& weights, std::vector<std::int32_t> prompt, const DecodeOptions& options)
    : w_(weights),
      options_(checked(weights, prompt, options)),
      ids_(std::move(prompt)),
      prompt_(ids_.size()),
      capacity_(capacity_of(weights.config, ids_.size(), options)),
      keys_(weights.config.layers * capacity_ * weights.config.d_model),
      values_(keys_.size()),
      act_(decoder_layout(weights.config, ids_.size(), options)),
      logits_(weights.config.vocab_size),
      rng_(options.seed) {
  finished_ = ids_.size() >= w_.config.context;  // a prompt filling the context leaves no room
  if (!finished_) read(0);                         // (and nothing to read it for)
}

std::size_t Decoder::cache_bytes() const {
  return options_.cache ? 2 * w_.config.layers * read_ * w_.config.d_model * sizeof(float) : 0;
}

std::optional<DecodedToken> Decoder::step() {
  if (finished_) return std::nullopt;
  if (read_ < ids_.size()) read(options_.cache ? read_ : 0);  // without the cache: the whole text again
  const std::int32_t id = choose();
  // The chosen token's probability under the model's own softmax (temperature 1), its sum taken
  // as run()'s next tokens take it (the SIMD exp kernel; act_.logits is free until the next read).
  const float mx = *std::max_element(logits_.begin(), logits_.end());
  const double sum = double(kernels::exp_minus_max_sum(logits_.data(), mx, act_.logits, logits_.size()));
  const float probability = float(std::exp(double(logits_[std::size_t(id)]) - double(mx)) / sum);
  ids_.push_back(id);
  const bool end_of_text = id == kEndOfText && w_.config.vocab_size > std::size_t(kEndOfText);
  finished_ = end_of_text || ids_.size() - prompt_ >= options_.max_new_tokens || ids_.size() >= w_.config.context;
  return DecodedToken{id, probability, cache_bytes(), finished_};
}

void Decoder::read(std::size_t from) {
  const Config& c = w_.config;
  const std::size_t d = c.d_model, rows = ids_.size() - from;
  embed(w_, ids_.data() + from, rows, from, act_.x);
  for (std::size_t l = 0; l < c.layers; ++l) {
    const Block& b = w_.blocks[l];
    layernorm_forward(act_.x, b.ln1_weight, b.ln1_bias, act_.a, rows, d);
    linear(act_.a, rows, d, b.attn_weight.data(), b.attn_bias.data(), 3 * d, act_.big, act_);
    attention(l, from, rows);
    residual(act_.x, act_.z, rows, d, b.proj_weight.data(), b.proj_bias.data(), d, act_);
    layernorm_forward(act_.x, b.ln2_weight, b.ln2_bias, act_.a, rows, d);
    mlp_forward(b, rows, d, act_);
    residual(act_.x, act_.big, rows, 4 * d, b.mlp_proj_weight.data(), b.mlp_proj_bias.data(), d, act_);
    check_finite(act_.x, rows * d, "after layer " + std::to_string(l));
  }
  unembed(w_, act_.x + (rows - 1) * d, act_);
  std::copy(act_.logits, act_.logits + c.vocab_size, logits_.begin());
  read_ = ids_.size();
}

// Layer `layer`'s attention for positions [from, from + rows), whose q|k|v are in act_.big: their
// k and v join the cache, then each position's query meets the cached keys 0..itself (the causal
// mask), and its weights mix the cached values into its heads' columns of act_.z.
void Decoder::attention(std::size_t layer, std::size_t from, std::size_t rows) {
  const Config& c = w_.config;
  const std::size_t d = c.d_model, dh = c.head_size(), d3 = 3 * d;
  float* keys = keys_.data() + layer * capacity_ * d;
  float* values = values_.data() + layer * capacity_ * d;
  for (std::size_t i = 0; i < rows; ++i) {
    std::copy(act_.big + i * d3 + d, act_.big + i * d3 + 2 * d, keys + (from + i) * d);
    std::copy(act_.big + i * d3 + 2 * d, act_.big + i * d3 + 3 * d, values + (from + i) * d);
  }
  const float scale = float(1.0 / std::sqrt(double(dh)));
  for (std::size_t h = 0; h < c.heads; ++h) {
    for (std::size_t i = 0; i < rows; ++i) {
      const std::size_t m = from + i + 1;
      kernels::matmul_abt(act_.big + i * d3 + h * dh, d3, keys + h * dh, d, act_.scores, m, 1, m, dh);
      softmax_row(act_.scores, m, scale, layer);
      kernels::matmul_ab(act_.scores, m, values + h * dh, d, act_.z + i * d + h * dh, d, 1, m, dh);
    }
  }
}

// Greedy: the largest logit, the lower id first among equals. Else a draw from the top K of
// softmax(logits / temperature) (ties in order of id), in double with portable_exp, so the draw
// depends on the seed and the logits only.
std::int32_t Decoder::choose() {
  const std::size_t vocab = logits_.size();
  if (options_.temperature == 0.0) {
    return std::int32_t(std::max_element(logits_.begin(), logits_.end()) - logits_.begin());
  }
  const std::size_t k = std::size_t(std::min<std::uint64_t>(options_.top_k, vocab));
  order_.resize(vocab);
  for (std::size_t t = 0; t < vocab; ++t) order_[t] = std::int32_t(t);
  const auto before = [&](std::int32_t a, std::int32_t b) {
    return logits_[std::size_t(a)] > logits_[std::size_t(b)] || (logits_[std::size_t(a)] == logits_[std::size_t(b)] && a < b);
  };
  std::partial_sort(order_.begin(), order_.begin() + std::ptrdiff_t(k), order_.end(), before);
  const double top = double(logits_[std::size_t(order_[0])]);
  double sum = 0.0;
  for (std::size_t r = 0; r < k; ++r) sum += portable_exp((double(logits_[std::size_t(order_[r])]) - top) / options_.temperature);
  double u = rng_.uniform() * sum;
  for (std::size_t r = 0; r + 1 < k; ++r) {
    u -= portable_exp((double(logits_[std::size_t(order_[r])]) - top) / options_.temperature);
    if (u < 0.0) return order_[r];
  }
  return order_[k - 1];
}

std::size_t decoder_bytes(const Config& c, std::size_t n, const DecodeOptions& o) {
  const std::size_t cache = 2 * c.layers * capacity_of(c, n, o) * c.d_model * sizeof(float);
  const std::size_t order = o.temperature > 0.0 ? c.vocab_size * sizeof(std::int32_t) : 0;
  return cache + decoder_layout(c, n, o).total() * sizeof(float) + c.vocab_size * sizeof(float) + order +
         (n + std::size_t(std::min<std::uint64_t>(o.max_new_tokens, c.context))) * sizeof(std::int32_t) + sizeof(Decoder);
}

}  // namespace attn::gpt2
