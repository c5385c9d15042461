#pragma once
// The whole learned model's loss in double, written plainly from its definition (model.hpp):
// the oracle of the gradient checks (central differences of this function) and of the float32
// forward. Scalar loops only; the causal mask is built in.
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "../model.hpp"
#include "../vocabulary.hpp"

namespace attn::learned::reference {

// softmax(scale·q kᵀ + mask) v for one head, in double; hidden[i*m + j] != 0 hides key j from
// query i; a fully masked row gives weights 0 and output 0. q n×dk, k m×dk, v m×dv (dense).
inline void head_forward_ref(const double* q, const double* k, const double* v, const unsigned char* hidden,
                             std::size_t n, std::size_t m, std::size_t dk, std::size_t dv, double scale,
                             double* p, double* o) {
  for (std::size_t i = 0; i < n; ++i) {
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < m; ++j) {
      double s = 0.0;
      for (std::size_t t = 0; t < dk; ++t) s += q[i * dk + t] * k[j * dk + t];
      p[i * m + j] = hidden[i * m + j] ? -std::numeric_limits<double>::infinity() : scale * s;
      if (p[i * m + j] > max) max = p[i * m + j];
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      p[i * m + j] = max == -std::numeric_limits<double>::infinity() ? 0.0 : std::exp(p[i * m + j] - max);
      sum += p[i * m + j];
    }
    for (std::size_t j = 0; j < m; ++j) p[i * m + j] = sum > 0.0 ? p[i * m + j] / sum : 0.0;
    for (std::size_t t = 0; t < dv; ++t) {
      double acc = 0.0;
      for (std::size_t j = 0; j < m; ++j) acc += p[i * m + j] * v[j * dv + t];
      o[i * dv + t] = acc;
    }
  }
}

// Mean softmax cross-entropy over the positions with targets[r] >= 0 of batch × n sequences.
inline double model_loss_ref(const ModelConfig& c, const double* w, const int* tokens, const int* targets,
                             std::size_t batch, std::size_t n) {
  const Layout lay(c);
  const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), V = std::size_t(kVocabulary);
  const double scale = c.scale == ScaleMode::none ? 1.0 : 1.0 / std::sqrt(double(dh));
  std::vector<unsigned char> causal(n * n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) causal[i * n + j] = 1;
  }
  double total = 0.0;
  std::size_t count = 0;
  std::vector<double> h(n * d), q(n * dh), k(n * dh), v(n * dh), p(n * n), o(n * dh), mixed(n * d);
  for (std::size_t b = 0; b < batch; ++b) {
    const int* tok = tokens + b * n;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t t = 0; t < d; ++t) {
        h[i * d + t] = w[lay.embed + std::size_t(tok[i]) * d + t] + w[lay.position + i * d + t];
      }
    }
    for (std::size_t l = 0; l < c.layers; ++l) {
      const double* wqkv = w + lay.qkv[l];
      for (std::size_t hd = 0; hd < H; ++hd) {
        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t t = 0; t < dh; ++t) {
            double sq = 0, sk = 0, sv = 0;
            for (std::size_t u = 0; u < d; ++u) {
              sq += h[i * d + u] * wqkv[u * 3 * d + hd * dh + t];
              sk += h[i * d + u] * wqkv[u * 3 * d + d + hd * dh + t];
              sv += h[i * d + u] * wqkv[u * 3 * d + 2 * d + hd * dh + t];
            }
            q[i * dh + t] = sq, k[i * dh + t] = sk, v[i * dh + t] = sv;
          }
        }
        head_forward_ref(q.data(), k.data(), v.data(), causal.data(), n, n, dh, dh, scale, p.data(), o.data());
        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t t = 0; t < dh; ++t) mixed[i * d + hd * dh + t] = o[i * dh + t];
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t t = 0; t < d; ++t) {
          double s = 0.0;
          for (std::size_t u = 0; u < d; ++u) s += mixed[i * d + u] * w[lay.out[l] + u * d + t];
          h[i * d + t] += s;
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const int target = targets[b * n + i];
      if (target < 0) continue;
      std::vector<double> z(V);
      double max = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < V; ++j) {
        double s = 0.0;
        for (std::size_t u = 0; u < d; ++u) s += h[i * d + u] * w[lay.unembed + u * V + j];
        z[j] = s;
        max = s > max ? s : max;
      }
      double sum = 0.0;
      for (std::size_t j = 0; j < V; ++j) sum += std::exp(z[j] - max);
      total += std::log(sum) - (z[std::size_t(target)] - max);
      ++count;
    }
  }
  return count ? total / double(count) : 0.0;
}

}  // namespace attn::learned::reference
