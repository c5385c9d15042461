#pragma once
// Direct logit attribution (forward.hpp, Attribution), gathered during the forward pass at the
// last position. A component's part is (c·u − mean(c)·Σu) / σ with u = ln_f.weight ⊙ wte[token]:
// centring c and dotting it with u in one, so each component keeps two numbers (c·u and Σc), not
// its d_model-wide write, and σ (ln_f's, of the full residual) can come at the end. For a write
// c = a·W (W [k, d], a Conv1D) those are a·(W·u) and a·(W·1): the weights' row sums with u and
// with 1 are taken once per matrix (one float32 pass over it, 768 terms a sum: 1e-6 relative,
// far inside the tests' 1e-3), and the parts gathered in double.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../aligned_vector.hpp"
#include "forward.hpp"
#include "model.hpp"

namespace attn::gpt2 {

class LogitAttribution {
 public:
  // The biases' part (every c_proj bias, attention and MLP) is gathered here: it does not depend
  // on the text. Allocates d doubles, 2d + 8d floats and the parts (bytes(): run_bytes counts them).
  LogitAttribution(const Weights& weights, std::int32_t token);

  // x_row: the residual stream's last row right after the embeddings.
  void add_embeddings(const float* x_row);
  // z_row: the last row of the heads' outputs side by side (d floats, before c_proj), as changed
  // by any ablation: each head's z_h · W_O[h].
  void add_heads(std::size_t layer, const float* z_row);
  // hidden_row: the last row of the MLP's hidden layer (4d floats, after the GELU).
  void add_mlp(std::size_t layer, const float* hidden_row);

  // x_row: the residual stream's last row after the last block; logit: the model's logit for the
  // token from this run.
  Attribution finish(const float* x_row, float logit) const;

  static std::size_t bytes(const Config& config);

 private:
  struct Part {
    double dot = 0.0, sum = 0.0;  // c·u and Σc
  };
  // Part of a = a·W for rows [first, first + count) of W [k, d]: needs row_dot_ / row_sum_ of W.
  Part project(const float* a, std::size_t first, std::size_t count) const;
  void sums_of(const float* w, std::size_t rows);  // row_dot_, row_sum_ of W's first `rows` rows
  double value(const Part& p, double sigma) const;

  const Weights& w_;
  std::int32_t token_;
  std::vector<double> u_;                  // ln_f.weight ⊙ wte[token]
  double sum_u_ = 0.0;
  AlignedVector<float> u_and_ones_;        // 2×d: u in float32, then d ones
  AlignedVector<float> row_sums_;          // W·u and W·1 of the matrix in use, 2 a row (up to 4d rows)
  std::vector<Part> heads_;                // [layer · heads + head]
  std::vector<Part> mlps_;
  Part embeddings_, biases_;
};

// The last position's rows a run keeps for the attribution (the embeddings' write, each layer's
// heads side by side before c_proj and its MLP's hidden layer), attributed once the token is
// known: (1 + 5·layers)·d floats, 61 × 768 for GPT-2 small.
class AttributionRows {
 public:
  explicit AttributionRows(const Config& config);  // a default Config: nothing kept
  void keep_embeddings(const float* x_row);
  void keep_heads(std::size_t layer, const float* z_row);
  void keep_mlp(std::size_t layer, const float* hidden_row);
  Attribution attribute(const Weights& weights, std::int32_t token, const float* x_row, float logit) const;
  static std::size_t bytes(const Config& config);

 private:
  std::size_t d_;
  std::vector<float> embeddings_, heads_, mlps_;
};

}  // namespace attn::gpt2
