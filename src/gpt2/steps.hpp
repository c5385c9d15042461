#pragma once
// The boxes of GPT-2's diagram that the forward pass (forward.cpp) and the decoder (decode.cpp)
// share, named as llm.c names them (encoder_forward → embed, layernorm_forward, matmul_forward →
// linear, residual_forward → residual), and the workspace they run in. Internal to src/gpt2/:
// plain arrays in, the kernels inside, no checks (the callers check at the door).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../aligned_vector.hpp"
#include "../error.hpp"
#include "../kernels/finite.hpp"
#include "../kernels/gelu.hpp"
#include "../kernels/layernorm.hpp"
#include "../kernels/matmul.hpp"
#include "../kernels/softmax.hpp"
#include "model.hpp"

namespace attn::gpt2::steps {

// The floats of each buffer of a workspace for `rows` positions at a time, `score_floats` of
// attention scores, in the order Activations carves them.
struct Layout {
  std::size_t x, a, z, big, packed, block, scores, logits;
  std::size_t total() const { return x + a + z + big + packed + block + scores + logits; }
};

inline Layout layout(const Config& c, std::size_t rows, std::size_t score_floats) {
  const std::size_t d = c.d_model;
  return {rows * d,        rows * d, rows * d, rows * 4 * d, kernels::packed_rows_size(rows, 4 * d), kernels::kWeightBlockFloats,
          score_floats, c.vocab_size};
}

struct AlignedDelete {
  void operator()(float* p) const { ::operator delete(p, std::align_val_t{64}); }
};

// The workspace, as llm.c's activation tensors: one allocation sized once, carved into named
// buffers; nothing is allocated inside the loop over layers. Not zeroed: every float is written
// before it is read.
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
  float* x;       // the residual stream, rows×d
  float* a;       // a LayerNorm's output, rows×d
  float* z;       // the heads' outputs side by side, rows×d (the columns before c_proj)
  float* big;     // q|k|v (rows×3d), then the MLP's hidden layer (rows×4d)
  float* packed;  // the packed copy of a product's left operand
  float* block;   // the block of a weight matrix a product is using
  float* scores;  // attention scores
  float* logits;  // the last row's, one per token of the vocabulary
};

inline void check_finite(const float* x, std::size_t count, const std::string& where) {
  if (!kernels::all_finite(x, count)) {
    throw Error("GPT-2's numbers grew past float32's range " + where +
                ": these weights do not behave like a trained model's.");
  }
}

// c += a·w, with a n×k (row stride k) and w [k, p] row-major (a Conv1D weight, read in place).
inline void add_product(const float* a, std::size_t n, std::size_t k, const float* w, std::size_t p, float* c,
                        Activations& act) {
  if (n == 1) return kernels::matvec_add(a, w, p, c, k, p);  // a decoding step: w streams once
  kernels::pack_rows(a, k, n, k, act.packed);
  kernels::matmul_packed_ab_add_blocked(act.packed, w, p, c, p, n, k, p, act.block);
}

// c (n×p) = a·w + bias: a Conv1D (llm.c's matmul_forward).
inline void linear(const float* a, std::size_t n, std::size_t k, const float* w, const float* bias, std::size_t p,
                   float* c, Activations& act) {
  for (std::size_t i = 0; i < n; ++i) std::copy(bias, bias + p, c + i * p);
  add_product(a, n, k, w, p, c, act);
}

// x = wte[ids] + wpe[first..first+n): the token and position embeddings of positions from
// `first` on (llm.c's encoder_forward).
inline void embed(const Weights& w, const std::int32_t* ids, std::size_t n, std::size_t first, float* x) {
  const std::size_t d = w.config.d_model;
  for (std::size_t i = 0; i < n; ++i) {
    const float* te = w.wte.data() + std::size_t(ids[i]) * d;
    const float* pe = w.wpe.data() + (first + i) * d;
    for (std::size_t j = 0; j < d; ++j) x[i * d + j] = te[j] + pe[j];
  }
}

// y = LN(x) for each of the n rows of d.
inline void layernorm_forward(const float* x, const AlignedVector<float>& gamma, const AlignedVector<float>& beta,
                              float* y, std::size_t n, std::size_t d) {
  for (std::size_t i = 0; i < n; ++i) kernels::layernorm(x + i * d, gamma.data(), beta.data(), y + i * d, d);
}

// One row of attention scores turned into weights in place: row[0..m) = softmax(row·scale),
// the keys after m (the causal mask's) never computed.
inline void softmax_row(float* row, std::size_t m, float scale, std::size_t layer) {
  const float mx = kernels::reduce_max(row, m);
  if (!std::isfinite(mx)) check_finite(row, m, "in layer " + std::to_string(layer) + "'s attention scores");
  const float sum = kernels::exp_scaled_minus_max_sum(row, mx, scale, row, m);
  kernels::scale(row, 1.0f / sum, m);
}

// The MLP's hidden layer on act.a (ln_2's output): act.big = gelu_tanh(a·W_fc + b_fc), n×4d.
inline void mlp_forward(const Block& b, std::size_t n, std::size_t d, Activations& act) {
  linear(act.a, n, d, b.fc_weight.data(), b.fc_bias.data(), 4 * d, act.big, act);
  kernels::gelu_tanh(act.big, act.big, n * 4 * d);
}

// x += a·w + bias: a sublayer's projection written into the residual stream (llm.c's
// residual_forward, fused with the projection before it). x + bias comes first, then a·w is
// added into x block by block, so the projection never needs a buffer of its own.
inline void residual(float* x, const float* a, std::size_t n, std::size_t k, const float* w, const float* bias,
                     std::size_t d, Activations& act) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) x[i * d + j] += bias[j];
  }
  add_product(a, n, k, w, d, x, act);
}

// act.logits = ln_f(x_row)·wteᵀ: the unembedding of one row of the residual stream (tied to wte).
// Uses act.a's first row.
inline void unembed(const Weights& w, const float* x_row, Activations& act) {
  const std::size_t d = w.config.d_model, vocab = w.config.vocab_size;
  kernels::layernorm(x_row, w.lnf_weight.data(), w.lnf_bias.data(), act.a, d);
  kernels::matvec_abt_streams<8>(act.a, w.wte.data(), d, act.logits, vocab, d);
  check_finite(act.logits, vocab, "in the next token's scores");
}

}  // namespace attn::gpt2::steps
