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

// 50257 → "50,257": the numbers a learner reads in a message.
std::string grouped(std::size_t v) {
  std::string s = std::to_string(v);
  for (std::size_t i = s.size(); i > 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

struct AlignedDelete {
  void operator()(float* p) const { ::operator delete(p, std::align_val_t{64}); }
};

std::string tokens(std::size_t count) { return grouped(count) + (count == 1 ? " token" : " tokens"); }

// The floats of run()'s workspace, in the order run() carves it (see forward.hpp).
struct Layout {
  std::size_t x, a, z, big, packed, block, scores, logits;
  std::size_t total() const { return x + a + z + big + packed + block + scores + logits; }
};

Layout layout(const Config& c, std::size_t n) {
  const std::size_t d = c.d_model;
  return {n * d, n * d, n * d, n * 4 * d, kernels::packed_rows_size(n, 4 * d), kernels::kWeightBlockFloats, n * n,
          c.vocab_size};
}

// c (n×p) = bias + a·w, or c += bias + a·w; a is n×k (row stride k), w is [k, p] row-major
// (a Conv1D weight, read in place). packed holds packed_rows_size(n, k) floats, block
// kWeightBlockFloats.
void linear(const float* a, std::size_t n, std::size_t k, const float* w, const float* bias, std::size_t p, float* c,
            bool accumulate, float* packed, float* block) {
  kernels::pack_rows(a, k, n, k, packed);
  for (std::size_t i = 0; i < n; ++i) {
    float* ci = c + i * p;
    if (accumulate) {
      for (std::size_t j = 0; j < p; ++j) ci[j] += bias[j];
    } else {
      std::copy(bias, bias + p, ci);
    }
  }
  kernels::matmul_packed_ab_add_blocked(packed, w, p, c, p, n, k, p, block);
}

void check_finite(const float* x, std::size_t count, const std::string& where) {
  if (!kernels::all_finite(x, count)) {
    throw Error("GPT-2's numbers grew past float32's range " + where +
                ": these weights do not behave like a trained model's.");
  }
}

void check_size(std::size_t got, std::size_t want, const char* what) {
  if (got != want) {
    throw Error(std::string("The model's ") + what + " has " + grouped(got) + " numbers where its shape needs " +
                grouped(want) + ": the weights were not loaded completely.");
  }
}

std::vector<bool> kept_layers(const Config& config, const RunOptions& options) {
  std::vector<bool> kept(config.layers, !options.layers.has_value());
  if (options.layers) {
    for (std::size_t l : *options.layers) {
      if (l >= config.layers) {
        throw Error("There is no layer " + std::to_string(l) + ": this model has " + std::to_string(config.layers) +
                    " layers, numbered 0 to " + std::to_string(config.layers - 1) + ".");
      }
      kept[l] = true;
    }
  }
  return kept;
}

}  // namespace

std::size_t kept_layer_count(const Config& config, const RunOptions& options) {
  const std::vector<bool> kept = kept_layers(config, options);
  return std::size_t(std::count(kept.begin(), kept.end(), true));
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

void validate_run(const Weights& w, const std::int32_t* ids, std::size_t n, const RunOptions& options) {
  const Config& c = w.config;
  if (c.layers == 0 || c.d_model == 0 || c.heads == 0 || c.d_model % c.heads != 0 || c.vocab_size == 0 ||
      c.context == 0) {
    throw Error("The model's shape is not usable: " + std::to_string(c.layers) + " layers, width " +
                std::to_string(c.d_model) + ", " + std::to_string(c.heads) +
                " heads (the width must split evenly into the heads).");
  }
  const std::size_t d = c.d_model;
  check_size(w.wte.size(), c.vocab_size * d, "token embedding (wte)");
  check_size(w.wpe.size(), c.context * d, "position embedding (wpe)");
  check_size(w.blocks.size(), c.layers, "list of layers");
  for (const Block& b : w.blocks) {
    check_size(b.ln1_weight.size(), d, "ln_1 weight");
    check_size(b.ln1_bias.size(), d, "ln_1 bias");
    check_size(b.attn_weight.size(), d * 3 * d, "c_attn weight");
    check_size(b.attn_bias.size(), 3 * d, "c_attn bias");
    check_size(b.proj_weight.size(), d * d, "attn.c_proj weight");
    check_size(b.proj_bias.size(), d, "attn.c_proj bias");
    check_size(b.ln2_weight.size(), d, "ln_2 weight");
    check_size(b.ln2_bias.size(), d, "ln_2 bias");
    check_size(b.fc_weight.size(), d * 4 * d, "c_fc weight");
    check_size(b.fc_bias.size(), 4 * d, "c_fc bias");
    check_size(b.mlp_proj_weight.size(), 4 * d * d, "mlp.c_proj weight");
    check_size(b.mlp_proj_bias.size(), d, "mlp.c_proj bias");
  }
  check_size(w.lnf_weight.size(), d, "ln_f weight");
  check_size(w.lnf_bias.size(), d, "ln_f bias");

  if (n == 0) throw Error("There is no text to run: GPT-2 needs at least one token.");
  if (n > c.context) {
    throw Error("The text is " + tokens(n) + " long, but this model reads at most " + tokens(c.context) +
                " at a time (its context). Shorten the text by " + tokens(n - c.context) + ".");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || std::size_t(ids[i]) >= c.vocab_size) {
      throw Error("Token " + std::to_string(i) + " has id " + std::to_string(ids[i]) + ", but this model's vocabulary has " +
                  grouped(c.vocab_size) + " tokens, numbered 0 to " + grouped(c.vocab_size - 1) + ".");
    }
  }
  kept_layers(c, options);
}

RunResult run(const Weights& w, const std::int32_t* ids, std::size_t n, const RunOptions& options) {
  validate_run(w, ids, n, options);
  const Config& c = w.config;
  const std::vector<bool> kept = kept_layers(c, options);
  const std::size_t d = c.d_model, heads = c.heads, dh = c.head_size(), d3 = 3 * d, d4 = 4 * d;

  RunResult result;
  result.tokens = n;
  result.layers.assign(c.layers, std::vector<HeadResult>(heads));
  for (std::size_t l = 0; l < c.layers; ++l) {
    if (!kept[l]) continue;
    for (HeadResult& h : result.layers[l]) h.weights.assign(n * n, 0.0f);
  }

  const Layout sizes = layout(c, n);
  // Not zeroed: every float is written before it is read.
  const std::unique_ptr<float[], AlignedDelete> workspace(
      static_cast<float*>(::operator new(sizes.total() * sizeof(float), std::align_val_t{64})));
  float* x = workspace.get();
  float* a = x + sizes.x;
  float* z = a + sizes.a;
  float* big = z + sizes.z;  // q|k|v (n×3d), then the MLP's hidden layer (n×4d)
  float* packed = big + sizes.big;
  float* block = packed + sizes.packed;
  float* scratch = block + sizes.block;  // one head's n×n when its layer is not kept
  float* logits = scratch + sizes.scores;

  // x = wte[ids] + wpe[0..n)
  for (std::size_t i = 0; i < n; ++i) {
    const float* te = w.wte.data() + std::size_t(ids[i]) * d;
    const float* pe = w.wpe.data() + i * d;
    for (std::size_t j = 0; j < d; ++j) x[i * d + j] = te[j] + pe[j];
  }

  const float scale = float(1.0 / std::sqrt(double(dh)));
  for (std::size_t l = 0; l < c.layers; ++l) {
    const Block& b = w.blocks[l];
    // Attention: q|k|v = LN(x)·W + b; each head's rows are a column slice of q, k and v.
    for (std::size_t i = 0; i < n; ++i) {
      kernels::layernorm(x + i * d, b.ln1_weight.data(), b.ln1_bias.data(), a + i * d, d);
    }
    linear(a, n, d, b.attn_weight.data(), b.attn_bias.data(), d3, big, false, packed, block);
    for (std::size_t h = 0; h < heads; ++h) {
      HeadResult& out = result.layers[l][h];
      float* p = kept[l] ? out.weights.data() : scratch;
      const float* q = big + h * dh;
      const float* k = big + d + h * dh;
      const float* v = big + 2 * d + h * dh;
      for (std::size_t i = 0; i < n; ++i) {
        // Row i: the causal mask leaves keys 0..i; the masked ones are never computed, and are
        // exactly 0 after the softmax, as −inf before it would make them.
        float* row = p + i * n;
        const std::size_t m = i + 1;
        kernels::matmul_abt(q + i * d3, d3, k, d3, row, n, 1, m, dh);
        const float mx = kernels::reduce_max(row, m);
        if (!std::isfinite(mx)) check_finite(row, m, "in layer " + std::to_string(l) + "'s attention scores");
        const float sum = kernels::exp_scaled_minus_max_sum(row, mx, scale, row, m);
        kernels::scale(row, 1.0f / sum, m);
        std::fill(row + m, row + n, 0.0f);
      }
      out.scores = head_scores(p, n, reinterpret_cast<const int*>(ids));
      // z[:, head's columns] = P·V, four rows at a time over the keys those rows can see.
      for (std::size_t i0 = 0; i0 < n; i0 += 4) {
        const std::size_t rows = std::min<std::size_t>(4, n - i0);
        kernels::matmul_ab(p + i0 * n, n, v, d3, z + i0 * d + h * dh, d, rows, i0 + rows, dh);
      }
    }
    linear(z, n, d, b.proj_weight.data(), b.proj_bias.data(), d, x, true, packed, block);
    // MLP: x += gelu(LN(x)·W_fc + b_fc)·W_proj + b_proj
    for (std::size_t i = 0; i < n; ++i) {
      kernels::layernorm(x + i * d, b.ln2_weight.data(), b.ln2_bias.data(), a + i * d, d);
    }
    linear(a, n, d, b.fc_weight.data(), b.fc_bias.data(), d4, big, false, packed, block);
    kernels::gelu_tanh(big, big, n * d4);
    linear(big, n, d4, b.mlp_proj_weight.data(), b.mlp_proj_bias.data(), d, x, true, packed, block);
    check_finite(x, n * d, "after layer " + std::to_string(l));
  }

  // The next token: logits = ln_f(x_last)·wteᵀ, the last row only.
  kernels::layernorm(x + (n - 1) * d, w.lnf_weight.data(), w.lnf_bias.data(), a, d);
  const std::size_t vocab = c.vocab_size;
  kernels::matmul_abt(a, d, w.wte.data(), d, logits, vocab, 1, vocab, d);
  check_finite(logits, vocab, "in the next token's scores");

  // The five largest logits (the lower id first among equals), then a stable softmax.
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
  for (std::size_t r = 0; r < best.size(); ++r) {
    result.next.push_back({std::int32_t(best[r]), float(std::exp(double(chosen[r]) - double(mx)) / sum)});
  }
  return result;
}

}  // namespace attn::gpt2
