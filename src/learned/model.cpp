#include "model.hpp"

#include <algorithm>
#include <cmath>

#include "../error.hpp"
#include "../limits.hpp"
#include "../validate.hpp"
#include "../kernels/matmul.hpp"
#include "head.hpp"
#include "kernels/backward.hpp"
#include "vocabulary.hpp"

namespace attn::learned {

namespace {

constexpr std::size_t V = std::size_t(kVocabulary);

}  // namespace

ScaleMode scale_mode(std::string_view name) {
  if (name == "sqrt") return ScaleMode::sqrt_d_k;
  if (name == "none") return ScaleMode::none;
  throw Error("scale must be 'sqrt' (1/√d_k) or 'none' (got " + quoted(name) + ")");
}

const char* scale_name(ScaleMode s) { return s == ScaleMode::none ? "none" : "sqrt"; }

float ModelConfig::scale_factor() const {
  return scale == ScaleMode::none ? 1.0f : 1.0f / std::sqrt(float(d_head()));
}

void validate(const ModelConfig& c) {
  using namespace limits;
  validate_range("layers", c.layers, 1, kMaxLearnedLayers);
  validate_range("heads", c.heads, 1, kMaxLearnedHeads);
  validate_range("dModel", c.d_model, kMinLearnedDModel, kMaxLearnedDModel);
  if (c.d_model % c.heads != 0) {
    throw Error("dModel (" + std::to_string(c.d_model) + ") must be a multiple of heads (" +
                std::to_string(c.heads) + "): each head gets dModel / heads dimensions");
  }
  validate_range("context", c.context, kMinLearnedContext, kMaxLearnedContext);
}

Layout::Layout(const ModelConfig& c) {
  const std::size_t d = c.d_model;
  std::size_t at = 0;
  embed = at, at += V * d;
  position = at, at += c.context * d;
  for (std::size_t l = 0; l < c.layers; ++l) {
    qkv.push_back(at), at += d * 3 * d;
    out.push_back(at), at += d * d;
  }
  unembed = at, at += d * V;
  total = at;
}

std::vector<int> next_token_targets(const int* tokens, std::size_t batch, std::size_t n) {
  std::vector<int> t(batch * n, -1);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t i = 0; i + 1 < n; ++i) t[b * n + i] = tokens[b * n + i + 1];
  }
  return t;
}

void forward(const ModelConfig& c, const float* params, const int* tokens, std::size_t batch, std::size_t n,
             Activations& a) {
  const Layout lay(c);
  const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), rows = batch * n;
  a.batch = batch, a.n = n;
  a.residual.resize((c.layers + 1) * rows * d);
  a.qkv.resize(c.layers * rows * 3 * d);
  a.weights.resize(c.layers * batch * H * n * n);
  a.mixed.resize(c.layers * rows * d);
  a.logits.resize(rows * V);
  if (a.causal.size() != n * n) {
    a.causal.assign(n * n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) a.causal[i * n + j] = 1;
    }
  }

  float* h0 = a.residual.data();
  for (std::size_t r = 0; r < rows; ++r) {
    const float* e = params + lay.embed + std::size_t(tokens[r]) * d;
    const float* p = params + lay.position + (r % n) * d;
    for (std::size_t t = 0; t < d; ++t) h0[r * d + t] = e[t] + p[t];
  }
  const HeadShape shape{n, n, dh, dh, c.scale_factor()};
  for (std::size_t l = 0; l < c.layers; ++l) {
    const float* h = a.residual.data() + l * rows * d;
    float* next = a.residual.data() + (l + 1) * rows * d;
    float* qkv = a.qkv.data() + l * rows * 3 * d;
    float* mixed = a.mixed.data() + l * rows * d;
    attn::kernels::matmul_ab(h, d, params + lay.qkv[l], 3 * d, qkv, 3 * d, rows, d, 3 * d);
    for (std::size_t b = 0; b < batch; ++b) {
      const float* base = qkv + b * n * 3 * d;
      for (std::size_t hd = 0; hd < H; ++hd) {
        float* p = a.weights.data() + (((l * batch + b) * H + hd) * n * n);
        head_forward(shape, base + hd * dh, 3 * d, base + d + hd * dh, 3 * d, base + 2 * d + hd * dh, 3 * d,
                     a.causal.data(), p, mixed + b * n * d + hd * dh, d);
      }
    }
    // h_{l+1} = h_l + mixed · W_O
    for (std::size_t i = 0; i < rows * d; ++i) next[i] = h[i];
    attn::kernels::matmul_ab_add(mixed, d, params + lay.out[l], d, next, d, rows, d, d);
  }
  attn::kernels::matmul_ab(a.residual.data() + c.layers * rows * d, d, params + lay.unembed, V,
                           a.logits.data(), V, rows, d, V);
}

double loss(const Activations& a, const int* targets, float* per_position, std::vector<float>& probs) {
  const std::size_t rows = a.batch * a.n;
  probs.resize(rows * V);
  double total = 0.0;
  std::size_t count = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* z = a.logits.data() + r * V;
    float* p = probs.data() + r * V;
    float max = z[0];
    for (std::size_t j = 1; j < V; ++j) max = z[j] > max ? z[j] : max;
    double sum = 0.0;
    for (std::size_t j = 0; j < V; ++j) sum += std::exp(double(z[j]) - max);
    for (std::size_t j = 0; j < V; ++j) p[j] = float(std::exp(double(z[j]) - max) / sum);
    double l = 0.0;
    if (targets[r] >= 0) {
      // −log softmax(z)_t = log Σ exp(z − max) − (z_t − max), without taking the log of a rounded p.
      l = std::log(sum) - (double(z[targets[r]]) - max);
      total += l;
      ++count;
    }
    if (per_position) per_position[r] = float(l);
  }
  return count ? total / double(count) : 0.0;
}

void backward(const ModelConfig& c, const float* params, const int* tokens, const int* targets,
              const Activations& a, const std::vector<float>& probs, float* grads) {
  const Layout lay(c);
  const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), n = a.n, batch = a.batch, rows = batch * n;
  std::size_t count = 0;
  for (std::size_t r = 0; r < rows; ++r) count += targets[r] >= 0;
  if (count == 0) return;

  // ∂L/∂z = (softmax(z) − onehot(t)) / count on predicted rows, 0 elsewhere.
  std::vector<float> dlogits(rows * V, 0.0f);
  const float inv = 1.0f / float(count);
  for (std::size_t r = 0; r < rows; ++r) {
    if (targets[r] < 0) continue;
    for (std::size_t j = 0; j < V; ++j) dlogits[r * V + j] = probs[r * V + j] * inv;
    dlogits[r * V + std::size_t(targets[r])] -= inv;
  }
  const float* h_last = a.residual.data() + c.layers * rows * d;
  kernels::matmul_atb<true>(h_last, d, dlogits.data(), V, grads + lay.unembed, V, rows, d, V);  // dU += hᵀ dz
  std::vector<float> grad_h(rows * d);  // ∂L/∂h_l, flowing down the residual stream
  attn::kernels::matmul_abt(dlogits.data(), V, params + lay.unembed, V, grad_h.data(), d, rows, d, V);  // dz Uᵀ

  std::vector<float> grad_mixed(rows * d), grad_qkv(rows * 3 * d), scratch(n * n);
  const HeadShape shape{n, n, dh, dh, c.scale_factor()};
  for (std::size_t l = c.layers; l-- > 0;) {
    const float* h = a.residual.data() + l * rows * d;
    const float* qkv = a.qkv.data() + l * rows * 3 * d;
    const float* mixed = a.mixed.data() + l * rows * d;
    // h_{l+1} = h_l + mixed · W_O: the residual branch passes grad_h through unchanged.
    kernels::matmul_atb<true>(mixed, d, grad_h.data(), d, grads + lay.out[l], d, rows, d, d);  // dW_O
    attn::kernels::matmul_abt(grad_h.data(), d, params + lay.out[l], d, grad_mixed.data(), d, rows, d, d);
    std::fill(grad_qkv.begin(), grad_qkv.end(), 0.0f);
    for (std::size_t b = 0; b < batch; ++b) {
      const float* base = qkv + b * n * 3 * d;
      float* gbase = grad_qkv.data() + b * n * 3 * d;
      for (std::size_t hd = 0; hd < H; ++hd) {
        const float* p = a.weights.data() + (((l * batch + b) * H + hd) * n * n);
        const std::size_t q = hd * dh, k = d + hd * dh, v = 2 * d + hd * dh;
        head_backward(shape, base + q, 3 * d, base + k, 3 * d, base + v, 3 * d, p,
                      grad_mixed.data() + b * n * d + hd * dh, d, gbase + q, gbase + k, gbase + v,
                      scratch.data());
      }
    }
    // [Q K V] = h_l · W_QKV
    kernels::matmul_atb<true>(h, d, grad_qkv.data(), 3 * d, grads + lay.qkv[l], 3 * d, rows, d, 3 * d);
    // grad_h += grad_qkv · W_QKVᵀ (W_QKV is d × 3d: its rows are the 3d-long dot products)
    attn::kernels::matmul_abt(grad_qkv.data(), 3 * d, params + lay.qkv[l], 3 * d, grad_mixed.data(), d, rows,
                              d, 3 * d);
    for (std::size_t i = 0; i < rows * d; ++i) grad_h[i] += grad_mixed[i];
  }
  // h₀ = E[token] + P[position]: scatter-add into the rows used.
  for (std::size_t r = 0; r < rows; ++r) {
    float* ge = grads + lay.embed + std::size_t(tokens[r]) * d;
    float* gp = grads + lay.position + (r % n) * d;
    for (std::size_t t = 0; t < d; ++t) {
      ge[t] += grad_h[r * d + t];
      gp[t] += grad_h[r * d + t];
    }
  }
}

}  // namespace attn::learned
