#pragma once
// GPT-2's forward pass on the project's kernels (issue 26), as Hugging Face computes it with
// attn_implementation="eager": the attention weights of the layers asked for, the role scores
// of every head, and the five likeliest next tokens after the last position. In the same pass,
// when asked (issue 38): heads switched off (ablation), each layer's guess (the logit lens) and
// each component's direct contribution to one token's logit (direct logit attribution), as
// TransformerLens defines them (docs: gpt2.md, "Interventions").
//
// Memory. run() allocates run_bytes() bytes (and a few hundred more for small locals), all
// freed on return:
//   activations   ≈ 11·n·d floats: the residual stream x, a LayerNorm output, the heads' output
//                 (n×d each), one buffer of n×4d for q|k|v and then the MLP's hidden layer, and
//                 the packed copy of a product's left operand (at most ⌈n/4⌉·4 × 4d);
//   a weight block 790 KB: the products copy each block of a weight matrix there while they use it
//                 (kernels/matmul.hpp, matmul_packed_ab_add_blocked);
//   scores        one head's n×n at a time (the kept heads' are written in place);
//   logits        vocab floats (the last row only);
//   kept weights  kept layers × heads × n × n floats, the result itself (at most kMaxKeptWeights);
//   role scores   layers × heads HeadScores;
//   the options'  counted whether asked or not: the lens's layers × 5 tokens, its ln_f rows
//                 (layers × d floats) and its block of logits (layers × 64); the attribution's
//                 layers × (heads + 1) parts, about 12·d floats of its weights' sums and the last
//                 position's rows it keeps, (1 + 5·layers)·d floats (240 KB in all for GPT-2 small).
// The weights are read where they are, never copied whole or repacked. GPT-2 small at 1,024
// tokens: 35 MB of activations and 4 MB of scores, plus 50 MB per kept layer (604 MB for all 12);
// at 10 tokens, about 1.6 MB.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../head_scores.hpp"
#include "model.hpp"

namespace attn::gpt2 {

// The attention weights one run may return, over all kept heads: 2^24 numbers (the JS arrays
// take about 134 MB). GPT-2 small keeps every layer up to 341 tokens, one layer up to 1,024.
inline constexpr std::uint64_t kMaxKeptWeights = std::uint64_t{1} << 24;

// A head switched off: its z (its d_head columns of the concatenated heads, before c_proj) set to
// 0 at every position (zero: Hugging Face's head_mask, TransformerLens' hook_z = 0), or to its
// mean over this text's positions (mean).
enum class Ablation { zero, mean };
struct AblatedHead {
  std::uint64_t layer = 0, head = 0;  // 64-bit: an index a 32-bit size_t would wrap is refused as given
  Ablation mode = Ablation::zero;
};

struct RunOptions {
  // The layers (0-based) whose heads' attention weights come back: every layer when not given
  // (std::nullopt), none for an empty list. Duplicates are allowed; an index past the last layer
  // is refused. 64-bit, so that an index a 32-bit size_t would wrap reaches that check as given.
  std::optional<std::vector<std::uint64_t>> layers;
  // Whether ids[0] is the <|endoftext|> the caller put before the text: the messages that count
  // the text's tokens then say so.
  bool end_of_text_first = false;
  // Heads switched off. Everything downstream sees the changed residual stream (later layers'
  // weights, next, lens, attribution); an ablated head's own weights are still its pattern.
  // A layer or head out of range, or a head named twice, is refused.
  std::vector<AblatedHead> ablate;
  // The logit lens: RunResult::lens.
  bool lens = false;
  // Direct logit attribution to this token id (refused outside the vocabulary): RunResult::attribution.
  std::optional<std::uint64_t> attribute;
  // Or to this run's likeliest next token (next[0]), known only once the logits are: the panel's
  // default, in one pass. Refused together with attribute.
  bool attribute_top = false;
};

struct NextToken {
  std::int32_t id = 0;
  float probability = 0.0f;  // from a softmax over the whole vocabulary
};

struct HeadResult {
  // n×n row-major: row i is the distribution of position i over positions 0..i (zeros after i).
  // Empty for a layer that was not asked for.
  std::vector<float> weights;
  // attn::head_scores of this head's weights, position 0 playing the first (BOS) token;
  // computed for every head, kept or not. previous_token and first_token mean nothing when n < 2,
  // induction when induction_positions is 0.
  HeadScores scores;
};

// Direct logit attribution at the last position (TransformerLens' apply_ln_to_stack): each
// component's write c into the residual stream, centred (its mean over d_model removed), divided
// by ln_f's σ = √(var + eps) of the full residual there, dotted with ln_f.weight ⊙ wte[token].
// The parts sum to logit (within float32's rounding of the pass: 1e-3 at GPT-2's scales).
struct Attribution {
  std::int32_t token = 0;
  std::vector<std::vector<double>> heads;  // [layer][head]: z_h · W_O[h], no bias
  std::vector<double> mlps;                // [layer]: the MLP's output, no bias
  double embeddings = 0.0;                 // wte[id] + wpe[pos] of the last position
  double biases = 0.0;                     // every c_proj bias (attention and MLP), plus ln_f.bias · wte[token]
  double logit = 0.0;                      // the model's logit for token (this run's, float32)
};

struct RunResult {
  std::size_t tokens = 0;                       // n
  std::vector<std::vector<HeadResult>> layers;  // [layer][head], every layer and head
  std::vector<NextToken> next;                  // the 5 likeliest (fewer if the vocabulary is smaller), likeliest first
  // The logit lens, when asked: lens[l] is next as ln_f and the unembedding read the residual
  // stream after block l; lens[layers − 1] equals next. Empty when not asked.
  std::vector<std::vector<NextToken>> lens;
  std::optional<Attribution> attribution;       // when asked
};

// The bytes run() needs for n tokens with `kept_layers` layers' weights kept (count each layer
// once): the binding refuses a run that would not fit before starting it.
std::size_t run_bytes(const Config& config, std::size_t n, std::size_t kept_layers);

// Which layers keep their weights (kept[l]), and how many distinct layers that is; both refuse a
// layer that does not exist, as run() does. Defined in validate_run.cpp.
std::vector<bool> kept_layers(const Config& config, const RunOptions& options);
std::size_t kept_layer_count(const Config& config, const RunOptions& options);

// Checks ids, n and the options against the model and throws attn::Error in a learner's words:
// a layer that does not exist, no tokens, more tokens than the context, more attention weights
// kept than kMaxKeptWeights, an id outside the vocabulary, an ablated layer or head that does not
// exist or is named twice, a token to attribute outside the vocabulary. Also checks that the weights have the
// sizes their config says (a programming error of the caller, reported the same way).
// Defined in validate_run.cpp: the checks happen once, at the door, before the forward pass.
void validate_run(const Weights& weights, const std::int32_t* ids, std::size_t n, const RunOptions& options);

// The forward pass over ids[0..n). Throws what validate_run() throws, and attn::Error if the
// activations overflow float32 (weights no trained model has). One thread; the work is
// 24·layers·n·d² + 2·vocab·d flops (the blocks' products and the last row's logits), plus
// 2·layers·d·n·(n + 1) for attention over the causal half (run_flops). GPT-2 small in wasm SIMD
// on a 2-core Intel Xeon: about 100 ms at 10 tokens, 0.3 s at 64, 1.2 s at 256
// (tools/bench-gpt2.mjs).
RunResult run(const Weights& weights, const std::int32_t* ids, std::size_t n, const RunOptions& options = {});
inline RunResult run(const Weights& weights, const std::vector<std::int32_t>& ids, const RunOptions& options = {}) {
  return run(weights, ids.data(), ids.size(), options);
}

// The floating-point operations of one run (multiply-adds count 2), for the benchmark.
double run_flops(const Config& config, std::size_t n);

}  // namespace attn::gpt2
