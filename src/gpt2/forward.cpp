// GPT-2's forward pass, one function per box of the model's diagram, named as llm.c names them
// (embed, layernorm_forward, attention_forward, mlp_forward, residual; steps.hpp holds those the
// decoder shares), then run(), which reads top to bottom as the diagram does, each intervention
// (an ablated head, a lens readout, an attribution) one line at the step it reads or changes.
// The checks on the inputs are made once, at the door (validate_run.cpp).
#include "forward.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attribution.hpp"
#include "lens.hpp"
#include "steps.hpp"

namespace attn::gpt2 {

static_assert(sizeof(int) == sizeof(std::int32_t), "head_scores reads the ids as int");

namespace {

using namespace steps;

constexpr std::size_t kTopTokens = 5;

// run()'s workspace: n rows at once, one head's n×n scores.
Layout run_layout(const Config& c, std::size_t n) { return layout(c, n, n * n); }

// Layer `layer`'s attention on act.a (ln_1's output): q|k|v = a·W + b, each head's rows a column
// slice of them; each head's weights softmax(q kᵀ/√d_head + causal) go to heads[h].weights when the
// layer is kept (else to act.scores), its scores to heads[h].scores, and its output P·V to its
// columns of act.z.
void attention_forward(const Block& b, const Config& c, std::size_t layer, const std::int32_t* ids, std::size_t n,
                       bool kept, std::vector<HeadResult>& heads, Activations& act) {
  const std::size_t d = c.d_model, dh = c.head_size(), d3 = 3 * d;
  linear(act.a, n, d, b.attn_weight.data(), b.attn_bias.data(), d3, act.big, act);
  const float scale = float(1.0 / std::sqrt(double(dh)));
  for (std::size_t h = 0; h < c.heads; ++h) {
    HeadResult& out = heads[h];
    float* p = kept ? out.weights.data() : act.scores;
    const float* q = act.big + h * dh;
    const float* k = act.big + d + h * dh;
    const float* v = act.big + 2 * d + h * dh;
    for (std::size_t i = 0; i < n; ++i) {
      // Row i: the causal mask leaves keys 0..i; the masked ones are never computed, and are
      // exactly 0 after the softmax, as −inf before it would make them.
      float* row = p + i * n;
      const std::size_t m = i + 1;
      kernels::matmul_abt(q + i * d3, d3, k, d3, row, n, 1, m, dh);
      softmax_row(row, m, scale, layer);
      std::fill(row + m, row + n, 0.0f);
    }
    out.scores = head_scores(p, n, reinterpret_cast<const int*>(ids));
    // z[:, head's columns] = P·V, four rows at a time over the keys those rows can see.
    for (std::size_t i0 = 0; i0 < n; i0 += 4) {
      const std::size_t rows = std::min<std::size_t>(4, n - i0);
      kernels::matmul_ab(p + i0 * n, n, v, d3, act.z + i0 * d + h * dh, d, rows, i0 + rows, dh);
    }
  }
}

// The ablated heads of `layer` in z (n×d, the heads side by side before c_proj): each one's
// d_head columns set to 0 (zero) or to their mean over the n positions (mean), in double.
void ablate_heads(const std::vector<AblatedHead>& ablate, std::size_t layer, const Config& c, std::size_t n,
                  float* z) {
  const std::size_t d = c.d_model, dh = c.head_size();
  for (const AblatedHead& head : ablate) {
    if (head.layer != layer) continue;
    for (std::size_t j = std::size_t(head.head) * dh; j < std::size_t(head.head + 1) * dh; ++j) {
      double mean = 0.0;
      if (head.mode == Ablation::mean) {
        for (std::size_t i = 0; i < n; ++i) mean += double(z[i * d + j]);
        mean /= double(n);
      }
      for (std::size_t i = 0; i < n; ++i) z[i * d + j] = float(mean);
    }
  }
}

// The likeliest token, the lower id first among equals (as top_tokens orders them).
std::size_t likeliest(const float* logits, std::size_t vocab) {
  std::size_t best = 0;
  for (std::size_t t = 1; t < vocab; ++t) {
    if (logits[t] > logits[best]) best = t;
  }
  return best;
}

// The five likeliest next tokens from act.logits (the lower id first among equals), with their
// probabilities from a stable softmax over the whole vocabulary. Overwrites act.logits.
std::vector<NextToken> top_tokens(std::size_t vocab, Activations& act) {
  float* logits = act.logits;
  const std::size_t top = std::min(kTopTokens, vocab);
  std::vector<std::size_t> best;
  best.reserve(top + 1);
  for (std::size_t t = 0; t < vocab; ++t) {
    if (best.size() == top && !(logits[t] > logits[best.back()])) continue;
    auto at = std::upper_bound(best.begin(), best.end(), t,
                               [&](std::size_t u, std::size_t e) { return logits[u] > logits[e]; });
    best.insert(at, t);
    if (best.size() > top) best.pop_back();
  }
  const float mx = logits[best.front()];
  std::vector<float> chosen;
  for (std::size_t t : best) chosen.push_back(logits[t]);
  const double sum = double(kernels::exp_minus_max_sum(logits, mx, logits, vocab));
  std::vector<NextToken> next;
  for (std::size_t r = 0; r < best.size(); ++r) {
    next.push_back({std::int32_t(best[r]), float(std::exp(double(chosen[r]) - double(mx)) / sum)});
  }
  return next;
}

}  // namespace

RunResult run(const Weights& w, const std::int32_t* ids, std::size_t n, const RunOptions& options) {
  validate_run(w, ids, n, options);
  const Config& c = w.config;
  const std::size_t d = c.d_model;
  const std::vector<bool> kept = kept_layers(c, options);

  RunResult result;
  result.tokens = n;
  result.layers.assign(c.layers, std::vector<HeadResult>(c.heads));
  for (std::size_t l = 0; l < c.layers; ++l) {
    if (!kept[l]) continue;
    for (HeadResult& h : result.layers[l]) h.weights.assign(n * n, 0.0f);
  }
  Activations act(run_layout(c, n));
  // The attribution's inputs, the last position's rows, are kept and attributed after the
  // logits: so the token may be the run's own likeliest (attribute_top), found only at the end.
  const bool attributed = options.attribute.has_value() || options.attribute_top;
  AttributionRows rows(attributed ? c : Config{});
  float* x_last = act.x + (n - 1) * d;
  std::vector<float> lens_rows(options.lens ? (c.layers - 1) * d : 0);  // ln_f after each block but the last

  embed(w, ids, n, 0, act.x);
  if (attributed) rows.keep_embeddings(x_last);
  for (std::size_t l = 0; l < c.layers; ++l) {
    const Block& b = w.blocks[l];
    layernorm_forward(act.x, b.ln1_weight, b.ln1_bias, act.a, n, d);
    attention_forward(b, c, l, ids, n, kept[l], result.layers[l], act);
    ablate_heads(options.ablate, l, c, n, act.z);
    if (attributed) rows.keep_heads(l, act.z + (n - 1) * d);
    residual(act.x, act.z, n, d, b.proj_weight.data(), b.proj_bias.data(), d, act);
    layernorm_forward(act.x, b.ln2_weight, b.ln2_bias, act.a, n, d);
    mlp_forward(b, n, d, act);
    if (attributed) rows.keep_mlp(l, act.big + (n - 1) * 4 * d);
    residual(act.x, act.big, n, 4 * d, b.mlp_proj_weight.data(), b.mlp_proj_bias.data(), d, act);
    check_finite(act.x, n * d, "after layer " + std::to_string(l));
    if (options.lens && l + 1 < c.layers) {
      kernels::layernorm(x_last, w.lnf_weight.data(), w.lnf_bias.data(), lens_rows.data() + l * d, d);
    }
  }
  unembed(w, x_last, act);
  if (attributed) {
    const std::size_t token = options.attribute ? std::size_t(*options.attribute) : likeliest(act.logits, c.vocab_size);
    result.attribution = rows.attribute(w, std::int32_t(token), x_last, act.logits[token]);
  }
  result.next = top_tokens(c.vocab_size, act);
  if (options.lens) {
    result.lens = lens_readout(w, lens_rows.data(), c.layers - 1);
    result.lens.push_back(result.next);  // after the last block the lens is the model
  }
  return result;
}

std::size_t run_bytes(const Config& config, std::size_t n, std::size_t kept) {
  const std::size_t per_head = sizeof(HeadResult), per_layer = sizeof(std::vector<HeadResult>);
  const std::size_t lens = lens_bytes(config);
  return run_layout(config, n).total() * sizeof(float) + kept * config.heads * n * n * sizeof(float) +
         config.layers * (per_layer + config.heads * per_head) + kTopTokens * sizeof(NextToken) + lens +
         LogitAttribution::bytes(config) + AttributionRows::bytes(config);
}

double run_flops(const Config& c, std::size_t n) {
  const double d = double(c.d_model), nn = double(n);
  const double per_layer = 2.0 * nn * 12.0 * d * d      // c_attn 3d², c_proj d², c_fc and mlp.c_proj 4d² each
                           + 2.0 * d * nn * (nn + 1.0);  // QKᵀ and P·V over the causal half, all heads
  return double(c.layers) * per_layer + 2.0 * double(c.vocab_size) * d;  // + the last row's logits
}

}  // namespace attn::gpt2
