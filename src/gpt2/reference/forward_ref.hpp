#pragma once
// GPT-2's forward pass in plain double loops, from the facts in the project's gpt2.md and
// nothing of the kernels: the oracle the float32 forward pass (forward.hpp) is tested against.
// Slow (no blocking, no vectors) and meant for tiny models. It lives beside the model it reads
// (model.hpp), as the learned model's does (learned/reference/): src/reference/ holds the
// kernels' references, which know no model.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../model.hpp"

namespace attn::gpt2::reference {

struct ForwardReference {
  std::vector<std::vector<std::vector<double>>> weights;  // [layer][head], n×n row-major
  std::vector<double> probabilities;                      // the next token's, over the whole vocabulary
};

namespace detail {

using Rows = std::vector<std::vector<double>>;

inline Rows layer_norm(const Rows& x, const AlignedVector<float>& g, const AlignedVector<float>& b) {
  Rows y = x;
  for (auto& row : y) {
    const double dn = double(row.size());
    double mean = 0.0, var = 0.0;
    for (double v : row) mean += v;
    mean /= dn;
    for (double v : row) var += (v - mean) * (v - mean);
    var /= dn;
    for (std::size_t j = 0; j < row.size(); ++j) row[j] = (row[j] - mean) / std::sqrt(var + 1e-5) * g[j] + b[j];
  }
  return y;
}

// x·W + b with W [in, out] row-major (Conv1D).
inline Rows conv1d(const Rows& x, const AlignedVector<float>& w, const AlignedVector<float>& b, std::size_t out) {
  Rows y(x.size(), std::vector<double>(out));
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < out; ++j) {
      double s = b[j];
      for (std::size_t t = 0; t < x[i].size(); ++t) s += x[i][t] * double(w[t * out + j]);
      y[i][j] = s;
    }
  }
  return y;
}

}  // namespace detail

inline ForwardReference forward_ref(const Weights& w, const std::vector<std::int32_t>& ids) {
  using namespace detail;
  const std::size_t n = ids.size(), d = w.config.d_model, heads = w.config.heads, dh = d / heads;
  ForwardReference r;
  Rows x(n, std::vector<double>(d));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) x[i][j] = double(w.wte[std::size_t(ids[i]) * d + j]) + double(w.wpe[i * d + j]);
  }
  for (const Block& b : w.blocks) {
    const Rows qkv = conv1d(layer_norm(x, b.ln1_weight, b.ln1_bias), b.attn_weight, b.attn_bias, 3 * d);
    Rows z(n, std::vector<double>(d, 0.0));
    std::vector<std::vector<double>> layer;
    for (std::size_t h = 0; h < heads; ++h) {
      std::vector<double> p(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        // softmax(q·kᵀ/√d_head + mask), the mask −inf after i, applied before the softmax.
        std::vector<double> s(n, -INFINITY);
        double mx = -INFINITY;
        for (std::size_t j = 0; j <= i; ++j) {
          double dot = 0.0;
          for (std::size_t t = 0; t < dh; ++t) dot += qkv[i][h * dh + t] * qkv[j][d + h * dh + t];
          s[j] = dot / std::sqrt(double(dh));
          mx = std::max(mx, s[j]);
        }
        double sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) sum += (p[i * n + j] = std::exp(s[j] - mx));
        for (std::size_t j = 0; j < n; ++j) p[i * n + j] /= sum;
        for (std::size_t j = 0; j < n; ++j) {
          for (std::size_t t = 0; t < dh; ++t) z[i][h * dh + t] += p[i * n + j] * qkv[j][2 * d + h * dh + t];
        }
      }
      layer.push_back(std::move(p));
    }
    r.weights.push_back(std::move(layer));
    const Rows attn = conv1d(z, b.proj_weight, b.proj_bias, d);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d; ++j) x[i][j] += attn[i][j];
    }
    Rows hidden = conv1d(layer_norm(x, b.ln2_weight, b.ln2_bias), b.fc_weight, b.fc_bias, 4 * d);
    const double c = std::sqrt(2.0 / 3.14159265358979323846);
    for (auto& row : hidden) {
      for (double& v : row) v = 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
    }
    const Rows mlp = conv1d(hidden, b.mlp_proj_weight, b.mlp_proj_bias, d);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d; ++j) x[i][j] += mlp[i][j];
    }
  }
  const Rows last = layer_norm(Rows{x.back()}, w.lnf_weight, w.lnf_bias);
  const std::size_t vocab = w.config.vocab_size;
  std::vector<double> logits(vocab);
  double mx = -INFINITY;
  for (std::size_t t = 0; t < vocab; ++t) {
    double s = 0.0;
    for (std::size_t j = 0; j < d; ++j) s += last[0][j] * double(w.wte[t * d + j]);
    logits[t] = s;
    mx = std::max(mx, s);
  }
  double sum = 0.0;
  for (double& v : logits) sum += (v = std::exp(v - mx));
  for (double& v : logits) v /= sum;
  r.probabilities = std::move(logits);
  return r;
}

}  // namespace attn::gpt2::reference
