#pragma once
// The learned-heads model: a decoder-only, attention-only transformer (Elhage et al., 2021).
//   h₀ = E[token] + P[position]
//   h_{l+1} = h_l + concat_heads(softmax(s·Q_h K_hᵀ + causal) V_h) · W_O,   [Q K V] = h_l · W_QKV
//   logits = h_L · U
// No LayerNorm and no MLP: the induction circuit needs neither, and each would add a layer of
// gradients for a learner to follow. Parameters are one float array in the order of Layout.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::learned {

enum class ScaleMode { sqrt_d_k, none };

// The API's names for a scale, "sqrt" and "none". scale_mode throws attn::Error for any other.
ScaleMode scale_mode(std::string_view name);
const char* scale_name(ScaleMode s);

struct ModelConfig {
  std::size_t layers = 2;
  std::size_t heads = 4;
  std::size_t d_model = 32;
  std::size_t context = 33;  // tokens, BOS included
  ScaleMode scale = ScaleMode::sqrt_d_k;

  std::size_t d_head() const { return d_model / heads; }
  float scale_factor() const;
};

// Throws attn::Error with a message in the user's terms unless every size is in range and
// heads divides d_model.
void validate(const ModelConfig& c);

// Offsets (in floats) of each weight matrix inside the parameter array.
struct Layout {
  std::size_t embed = 0;     // E: vocabulary × d_model
  std::size_t position = 0;  // P: context × d_model
  std::vector<std::size_t> qkv;  // per layer, W_QKV: d_model × 3·d_model, columns [Q | K | V], head h at h·d_head
  std::vector<std::size_t> out;  // per layer, W_O: d_model × d_model
  std::size_t unembed = 0;   // U: d_model × vocabulary
  std::size_t total = 0;

  explicit Layout(const ModelConfig& c);
};

// Everything the backward pass needs from the forward pass of `batch` sequences of n tokens.
struct Activations {
  std::size_t batch = 0, n = 0;
  std::vector<float> residual;  // (layers + 1) × rows × d_model: h₀ … h_L
  std::vector<float> qkv;       // layers × rows × 3·d_model
  std::vector<float> weights;   // layers × batch × heads × n × n: the attention weights P
  std::vector<float> mixed;     // layers × rows × d_model: the heads' outputs, concatenated
  std::vector<float> logits;    // rows × vocabulary (softmax probabilities after loss())
  std::vector<std::uint8_t> causal;  // n × n hidden flags
};

// Runs the model on batch × n token ids (row-major; n ≤ context).
void forward(const ModelConfig& c, const float* params, const int* tokens, std::size_t batch, std::size_t n,
             Activations& a);

// Softmax cross-entropy of the logits against targets (batch × n; −1 = not predicted), averaged
// over predicted positions. Turns a.logits into probabilities; per_position (if not null, batch × n)
// receives each position's loss (0 where not predicted). Returns the mean loss.
double loss(const Activations& a, const int* targets, float* per_position, std::vector<float>& probs);

// Adds ∂loss/∂params to grads (Layout order), given the forward pass and the probabilities
// loss() returned. tokens and targets as passed to forward() and loss().
void backward(const ModelConfig& c, const float* params, const int* tokens, const int* targets,
              const Activations& a, const std::vector<float>& probs, float* grads);

// The next-token targets of sequences whose every position predicts the next one.
std::vector<int> next_token_targets(const int* tokens, std::size_t batch, std::size_t n);

}  // namespace attn::learned
