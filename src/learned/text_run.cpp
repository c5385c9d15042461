#include "text_run.hpp"

#include <utility>

#include "vocabulary.hpp"

namespace attn::learned {

TextRun run_text(const ModelConfig& c, const float* params, std::string_view text) {
  TextRun r;
  r.tokens = encode(text, c.context);
  const std::size_t n = r.tokens.size();
  Activations a;
  forward(c, params, r.tokens.data(), 1, n, a);
  const std::vector<int> targets = next_token_targets(r.tokens.data(), 1, n);
  std::vector<float> probs;
  r.loss.resize(n);
  r.mean_loss = loss(a, targets.data(), r.loss.data(), probs);
  r.loss.pop_back();  // the last position predicts nothing
  r.weights = std::move(a.weights);  // batch 1: layers × heads × n × n
  for (std::size_t h = 0; h < c.layers * c.heads; ++h) {
    r.heads.push_back(head_scores(r.head_weights(h), n, r.tokens.data()));
  }
  return r;
}

}  // namespace attn::learned
