#pragma once
// GPT-2 generating text one token at a time (issue 38), with a KV cache: the prompt is read once,
// keeping every layer's keys and values; each step then runs ONE position through the layers,
// its query against the cached keys. Without the cache (cache = false) each step re-reads the
// whole text, what a model without one must do: the panel's comparison.
//
// A Decoder is driven a step at a time, so its caller can report and time each token and stop
// between steps. Greedy by default (temperature 0, the lower id first among equal logits); with a
// temperature, it samples from the top K of softmax(logits / temperature) with a seeded
// attn::Rng, so the same seed gives the same text (within one build: float32 logits may differ
// in their last bits between builds, and a draw right at a boundary with them).
//
// Memory: the cache, 2 × layers × positions × d_model floats for every position the text can
// reach (prompt + max_new_tokens, at most the context), allocated when the decoder opens (without
// the cache the same buffers hold the text's K and V during each re-read, as run()'s q|k|v
// buffer does); and a workspace as run()'s for the prompt's n rows (cache) or the longest text
// (no cache), without kept weights. decoder_bytes() gives the total.
//
// Timing: the prompt is read when the decoder opens, so the first step only chooses; each later
// step reads one position (the token chosen before it) and chooses: every weight once, through
// one-row products (kernels/matmul.hpp: matvec_add, and matvec_abt_streams<8> for the unembedding). GPT-2 small in wasm SIMD on a
// 2-core Intel Xeon: about 45 ms a step at 64 and 256 tokens with the cache, 0.32 and 1.2 s
// without (tools/bench/gpt2-decode.mjs).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../random.hpp"
#include "model.hpp"
#include "steps.hpp"

namespace attn::gpt2 {

// GPT-2's <|endoftext|>: generation stops after it, where the vocabulary holds it (a model whose
// vocabulary is smaller than GPT-2's has no such token, and stops only at the count or the context).
inline constexpr std::int32_t kEndOfText = 50256;

struct DecodeOptions {
  std::uint64_t max_new_tokens = 1;  // >= 1; may reach past the context: generation stops there
  double temperature = 0.0;          // 0: greedy; else finite > 0
  std::uint64_t top_k = UINT64_MAX;  // >= 1, clamped to the vocabulary (the default: all of it)
  std::uint64_t seed = 0;            // 0 .. 2^32 − 1
  bool cache = true;
  bool end_of_text_first = false;    // prompt[0] is the <|endoftext|> the caller put first (messages)
};

struct DecodedToken {
  std::int32_t id = 0;
  float probability = 0.0f;       // the chosen token's under softmax(logits), temperature 1
  std::size_t cache_bytes = 0;    // K and V held after this step: 2 × layers × positions × d × 4; 0 without the cache
  bool done = false;              // the last token: <|endoftext|>, the count, or the context reached
};

class Decoder {
 public:
  // Checks the prompt and options (attn::Error in a learner's words, as run() does) and reads the
  // prompt: with the cache, its K and V are kept.
  Decoder(const Weights& weights, std::vector<std::int32_t> prompt, const DecodeOptions& options);

  // The next token, or nothing when generation has ended (after a step with done, or when the
  // prompt fills the context). Each step first reads the token the step before chose (one
  // position with the cache, the whole text without), then chooses from the last position's logits.
  std::optional<DecodedToken> step();

  // The logits the last step chose from (vocab floats): the tests compare them with and without
  // the cache. Before the first step, the prompt's.
  const std::vector<float>& logits() const { return logits_; }
  const std::vector<std::int32_t>& ids() const { return ids_; }  // the prompt and the tokens so far
  std::size_t cache_bytes() const;

 private:
  void read(std::size_t from);                  // positions [from, ids_.size()) → logits_
  void attention(std::size_t layer, std::size_t from, std::size_t rows);
  std::int32_t choose();

  const Weights& w_;
  DecodeOptions options_;
  std::vector<std::int32_t> ids_;
  std::size_t prompt_ = 0, capacity_ = 0, read_ = 0;  // positions the cache can hold, positions read
  AlignedVector<float> keys_, values_;                 // [layer][position][d]
  steps::Activations act_;
  std::vector<float> logits_;
  std::vector<std::int32_t> order_;  // the token ids by logit, when sampling
  Rng rng_;
  bool finished_ = false;
};

// The bytes a Decoder holds for a prompt of n tokens (its cache and its workspace).
std::size_t decoder_bytes(const Config& config, std::size_t n, const DecodeOptions& options);

// Checks a decoder's prompt and options, as the Decoder does: the prompt as run() checks its ids,
// max_new_tokens >= 1, the temperature finite and >= 0, top_k >= 1, the seed 0 .. 2^32 − 1.
void validate_decode(const Weights& weights, const std::vector<std::int32_t>& prompt, const DecodeOptions& options);

}  // namespace attn::gpt2
