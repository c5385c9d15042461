// GPT-2's forward pass, one function per box of the model's diagram, named as llm.c names them
// (embed, layernorm_forward, attention_forward, mlp_forward, residual), then run(), which reads
// top to bottom as the diagram does. The checks on the inputs are made once, at the door
// (validate_run.cpp).
#include "forward.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <string>

#include "../aligned_vector.hpp"
#include "../error.hpp"
#include "../kernels/finite.hpp"
#include "../kernels/gelu.hpp"
#include "../kernels/layernorm.hpp"
#include "../kernels/matmul.hpp"
#include "../kernels/softmax.hpp"

namespace attn::gpt2 {

static_assert(sizeof(int) == sizeof(std::int32_t), "head_scores reads the ids as int");

namespace {

constexpr std::size_t kTopTokens = 5;

// The floats of each buffer of run()'s workspace, in the order Activations carves them (see
// forward.hpp).
struct Layout {
  std::size_t x, a, z, big, packed, block, scores, logits;
  std::size_t total() const { return x + a + z + big + packed + block + scores + logits; }
};

Layout layout(const Config& c, std::size_t n) {
  const std::size_t d = c.d_model;
  return {n * d, n * d, n * d, n * 4 * d, kernels::packed_rows_size(n, 4 * d), kernels::kWeightBlockFloats, n * n,
          c.vocab_size};
}

struct AlignedDelete {
  void operator()(float* p) const { ::operator delete(p, std::align_val_t{64}); }
};

// run()'s workspace, as llm.c's activation tensors: one allocation sized once from the config and
// n, carved into named buffers; nothing is allocated inside the loop over layers. Not zeroed:
// every float is written before it is read.
struct Activations {
  explicit Activations(const Layout& sizes)
      : memory(static_cast<float*>(::operator new(sizes.total() * sizeof(float), std::align_val_t{64}))),
        x(memory.get()),
        a(x + sizes.x),
        z(a + sizes.a),
        big(z + sizes.z),
        packed(big + sizes.big),
        block(packed + sizes.packed),
        scores(block + sizes.block),
        logits(scores + sizes.scores) {}

  std::unique_ptr<float[], AlignedDelete> memory;
  float* x;       // the residual stream, n×d
  float* a;       // a LayerNorm's output, n×d
  float* z;       // the heads' outputs side by side, n×d
  float* big;     // q|k|v (n×3d), then the MLP's hidden layer (n×4d)
  float* packed;  // the packed copy of a product's left operand
  float* block;   // the block of a weight matrix a product is using
  float* scores;  // one head's n×n when its layer's weights are not kept
  float* logits;  // the last row's, one per token of the vocabulary
};

void check_finite(const float* x, std::size_t count, const std::string& where) {
  if (!kernels::all_finite(x, count)) {
    throw Error("GPT-2's numbers grew past float32's range " + where +
                ": these weights do not behave like a trained model's.");
  }
}

// c += a·w, with a n×k (row stride k) and w [k, p] row-major (a Conv1D weight, read in place).
void add_product(const float* a, std::size_t n, std::size_t k, const float* w, std::size_t p, float* c,
                 Activations& act) {
  kernels::pack_rows(a, k, n, k, act.packed);
  kernels::matmul_packed_ab_add_blocked(act.packed, w, p, c, p, n, k, p, act.block);
}

// c (n×p) = a·w + bias: a Conv1D (llm.c's matmul_forward).
void linear(const float* a, std::size_t n, std::size_t k, const float* w, const float* bias, std::size_t p, float* c,
            Activations& act) {
  for (std::size_t i = 0; i < n; ++i) std::copy(bias, bias + p, c + i * p);
  add_product(a, n, k, w, p, c, act);
}

// x = wte[ids] + wpe[0..n): the token and position embeddings (llm.c's encoder_forward).
void embed(const Weights& w, const std::int32_t* ids, std::size_t n, float* x) {
  const std::size_t d = w.config.d_model;
  for (std::size_t i = 0; i < n; ++i) {
    const float* te = w.wte.data() + std::size_t(ids[i]) * d;
    const float* pe = w.wpe.data() + i * d;
    for (std::size_t j = 0; j < d; ++j) x[i * d + j] = te[j] + pe[j];
  }
}

// y = LN(x) for each of the n rows of d.
void layernorm_forward(const float* x, const AlignedVector<float>& gamma, const AlignedVector<float>& beta, float* y,
                       std::size_t n, std::size_t d) {
  for (std::size_t i = 0; i < n; ++i) kernels::layernorm(x + i * d, gamma.data(), beta.data(), y + i * d, d);
}

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
      const float mx = kernels::reduce_max(row, m);
      if (!std::isfinite(mx)) check_finite(row, m, "in layer " + std::to_string(layer) + "'s attention scores");
      const float sum = kernels::exp_scaled_minus_max_sum(row, mx, scale, row, m);
      kernels::scale(row, 1.0f / sum, m);
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

// The MLP's hidden layer on act.a (ln_2's output): act.big = gelu_tanh(a·W_fc + b_fc), n×4d.
void mlp_forward(const Block& b, std::size_t n, std::size_t d, Activations& act) {
  linear(act.a, n, d, b.fc_weight.data(), b.fc_bias.data(), 4 * d, act.big, act);
  kernels::gelu_tanh(act.big, act.big, n * 4 * d);
}

// x += a·w + bias: a sublayer's projection written into the residual stream (llm.c's
// residual_forward, fused with the projection before it). x + bias comes first, then a·w is
// added into x block by block, so the projection never needs a buffer of its own.
void residual(float* x, const float* a, std::size_t n, std::size_t k, const float* w, const float* bias, std::size_t d,
              Activations& act) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) x[i * d + j] += bias[j];
  }
  add_product(a, n, k, w, d, x, act);
}

// The five likeliest next tokens after x_last, the residual stream's last row: logits =
// ln_f(x_last)·wteᵀ, the five largest (the lower id first among equals), and their probabilities
// from a stable softmax over the whole vocabulary.
std::vector<NextToken> next_tokens(const Weights& w, const float* x_last, Activations& act) {
  const std::size_t d = w.config.d_model, vocab = w.config.vocab_size;
  float* logits = act.logits;
  kernels::layernorm(x_last, w.lnf_weight.data(), w.lnf_bias.data(), act.a, d);
  kernels::matmul_abt(act.a, d, w.wte.data(), d, logits, vocab, 1, vocab, d);
  check_finite(logits, vocab, "in the next token's scores");

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
  Activations act(layout(c, n));

  embed(w, ids, n, act.x);
  for (std::size_t l = 0; l < c.layers; ++l) {
    const Block& b = w.blocks[l];
    layernorm_forward(act.x, b.ln1_weight, b.ln1_bias, act.a, n, d);
    attention_forward(b, c, l, ids, n, kept[l], result.layers[l], act);
    residual(act.x, act.z, n, d, b.proj_weight.data(), b.proj_bias.data(), d, act);
    layernorm_forward(act.x, b.ln2_weight, b.ln2_bias, act.a, n, d);
    mlp_forward(b, n, d, act);
    residual(act.x, act.big, n, 4 * d, b.mlp_proj_weight.data(), b.mlp_proj_bias.data(), d, act);
    check_finite(act.x, n * d, "after layer " + std::to_string(l));
  }
  result.next = next_tokens(w, act.x + (n - 1) * d, act);
  return result;
}

std::size_t run_bytes(const Config& config, std::size_t n, std::size_t kept) {
  const std::size_t per_head = sizeof(HeadResult), per_layer = sizeof(std::vector<HeadResult>);
  return layout(config, n).total() * sizeof(float) + kept * config.heads * n * n * sizeof(float) +
         config.layers * (per_layer + config.heads * per_head) + kTopTokens * sizeof(NextToken);
}

double run_flops(const Config& c, std::size_t n) {
  const double d = double(c.d_model), nn = double(n);
  const double per_layer = 2.0 * nn * 12.0 * d * d      // c_attn 3d², c_proj d², c_fc and mlp.c_proj 4d² each
                           + 2.0 * d * nn * (nn + 1.0);  // QKᵀ and P·V over the causal half, all heads
  return double(c.layers) * per_layer + 2.0 * double(c.vocab_size) * d;  // + the last row's logits
}

}  // namespace attn::gpt2
