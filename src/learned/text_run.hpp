#pragma once
// One forward pass over BOS + text, and what a reader looks at: each predicted position's loss,
// every head's attention weights and its scores. The binding (learnedModelRun) and the trainer
// tool's lesson sentence both show this; they only convert it.
#include <cstddef>
#include <string_view>
#include <vector>

#include "model.hpp"
#include "../head_scores.hpp"

namespace attn::learned {

struct TextRun {
  std::vector<int> tokens;         // n ids, BOS first
  std::vector<float> loss;         // n − 1: position i's loss predicting token i + 1
  double mean_loss = 0.0;          // their mean
  std::vector<float> weights;      // layers × heads × n × n, row-major, causal
  std::vector<HeadScores> heads;   // layers × heads, on these tokens
  std::size_t n() const { return tokens.size(); }
  const float* head_weights(std::size_t index) const { return weights.data() + index * n() * n(); }
};

// Throws attn::Error for text the model cannot read (see encode()).
TextRun run_text(const ModelConfig& c, const float* params, std::string_view text);

}  // namespace attn::learned
