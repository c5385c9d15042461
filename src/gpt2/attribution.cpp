// Direct logit attribution (attribution.hpp): the sums behind each part, then the parts.
#include "attribution.hpp"

#include <algorithm>
#include <cmath>

#include "../kernels/matmul.hpp"

namespace attn::gpt2 {

LogitAttribution::LogitAttribution(const Weights& weights, std::int32_t token)
    : w_(weights), token_(token), u_(weights.config.d_model), u_and_ones_(2 * weights.config.d_model, 1.0f),
      row_sums_(8 * weights.config.d_model), heads_(weights.config.layers * weights.config.heads),
      mlps_(weights.config.layers) {
  const std::size_t d = w_.config.d_model;
  const float* e = w_.wte.data() + std::size_t(token) * d;
  for (std::size_t j = 0; j < d; ++j) {
    u_[j] = double(w_.lnf_weight[j]) * double(e[j]);
    u_and_ones_[j] = float(u_[j]);
    sum_u_ += u_[j];
  }
  for (const Block& b : w_.blocks) {
    for (std::size_t j = 0; j < d; ++j) {
      const double bias = double(b.proj_bias[j]) + double(b.mlp_proj_bias[j]);
      biases_.dot += bias * u_[j];
      biases_.sum += bias;
    }
  }
}

void LogitAttribution::add_embeddings(const float* x_row) {
  for (std::size_t j = 0; j < w_.config.d_model; ++j) {
    embeddings_.dot += double(x_row[j]) * u_[j];
    embeddings_.sum += double(x_row[j]);
  }
}

void LogitAttribution::sums_of(const float* w, std::size_t rows) {
  const std::size_t d = w_.config.d_model;
  kernels::matmul_two_rows_abt(u_and_ones_.data(), w, d, row_sums_.data(), rows, d);
}

LogitAttribution::Part LogitAttribution::project(const float* a, std::size_t first, std::size_t count) const {
  Part p;
  for (std::size_t r = first; r < first + count; ++r) {
    p.dot += double(a[r]) * double(row_sums_[2 * r]);
    p.sum += double(a[r]) * double(row_sums_[2 * r + 1]);
  }
  return p;
}

void LogitAttribution::add_heads(std::size_t layer, const float* z_row) {
  const std::size_t d = w_.config.d_model, heads = w_.config.heads, dh = w_.config.head_size();
  sums_of(w_.blocks[layer].proj_weight.data(), d);
  for (std::size_t h = 0; h < heads; ++h) heads_[layer * heads + h] = project(z_row, h * dh, dh);
}

void LogitAttribution::add_mlp(std::size_t layer, const float* hidden_row) {
  const std::size_t d = w_.config.d_model;
  sums_of(w_.blocks[layer].mlp_proj_weight.data(), 4 * d);
  mlps_[layer] = project(hidden_row, 0, 4 * d);
}

double LogitAttribution::value(const Part& p, double sigma) const {
  return (p.dot - p.sum / double(w_.config.d_model) * sum_u_) / sigma;
}

Attribution LogitAttribution::finish(const float* x_row, float logit) const {
  const std::size_t d = w_.config.d_model, heads = w_.config.heads;
  // ln_f's σ at this position, as LayerNorm computes it: the biased variance, eps 1e-5.
  double mean = 0.0, var = 0.0;
  for (std::size_t j = 0; j < d; ++j) mean += double(x_row[j]);
  mean /= double(d);
  for (std::size_t j = 0; j < d; ++j) var += (double(x_row[j]) - mean) * (double(x_row[j]) - mean);
  const double sigma = std::sqrt(var / double(d) + 1e-5);

  Attribution a;
  a.token = token_;
  a.heads.assign(w_.config.layers, std::vector<double>(heads));
  a.mlps.resize(w_.config.layers);
  for (std::size_t l = 0; l < w_.config.layers; ++l) {
    for (std::size_t h = 0; h < heads; ++h) a.heads[l][h] = value(heads_[l * heads + h], sigma);
    a.mlps[l] = value(mlps_[l], sigma);
  }
  a.embeddings = value(embeddings_, sigma);
  const float* e = w_.wte.data() + std::size_t(token_) * d;
  double lnf_bias = 0.0;
  for (std::size_t j = 0; j < d; ++j) lnf_bias += double(w_.lnf_bias[j]) * double(e[j]);
  a.biases = value(biases_, sigma) + lnf_bias;
  a.logit = double(logit);
  return a;
}

std::size_t LogitAttribution::bytes(const Config& c) {
  return sizeof(LogitAttribution) + c.d_model * sizeof(double) + 10 * c.d_model * sizeof(float) + (c.layers * (c.heads + 1)) * sizeof(Part) +
         sizeof(Attribution) + c.layers * (sizeof(std::vector<double>) + (c.heads + 1) * sizeof(double));
}

AttributionRows::AttributionRows(const Config& c)
    : d_(c.d_model), embeddings_(c.d_model), heads_(c.layers * c.d_model), mlps_(c.layers * 4 * c.d_model) {}

void AttributionRows::keep_embeddings(const float* x_row) { std::copy(x_row, x_row + d_, embeddings_.begin()); }

void AttributionRows::keep_heads(std::size_t layer, const float* z_row) {
  std::copy(z_row, z_row + d_, heads_.begin() + std::ptrdiff_t(layer * d_));
}

void AttributionRows::keep_mlp(std::size_t layer, const float* hidden_row) {
  std::copy(hidden_row, hidden_row + 4 * d_, mlps_.begin() + std::ptrdiff_t(layer * 4 * d_));
}

Attribution AttributionRows::attribute(const Weights& weights, std::int32_t token, const float* x_row, float logit) const {
  LogitAttribution a(weights, token);
  a.add_embeddings(embeddings_.data());
  for (std::size_t l = 0; l < weights.config.layers; ++l) {
    a.add_heads(l, heads_.data() + l * d_);
    a.add_mlp(l, mlps_.data() + l * 4 * d_);
  }
  return a.finish(x_row, logit);
}

std::size_t AttributionRows::bytes(const Config& c) {
  return sizeof(AttributionRows) + (1 + 5 * c.layers) * c.d_model * sizeof(float);
}

}  // namespace attn::gpt2
