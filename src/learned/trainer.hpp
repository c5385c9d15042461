#pragma once
// Training from a seeded initialisation with AdamW, and the evaluation the goals use.
// Deterministic: the same options and build give bit-identical weights (one thread, a fixed
// order of every sum, xoshiro256** for the data and the initialisation).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../random.hpp"
#include "model.hpp"
#include "../head_scores.hpp"
#include "task.hpp"

namespace attn::learned {

struct TrainerOptions {
  ModelConfig model;
  std::uint64_t seed = 1;
  std::size_t batch = 32;
  float learning_rate = 3e-3f;
  std::size_t warmup = 100;        // steps of linear warm-up
  std::size_t decay_steps = 0;     // cosine decay to 10 % over this many steps; 0 = constant after warm-up
  float weight_decay = 0.01f;      // on W_QKV, W_O and U; never on the embeddings
  float beta1 = 0.9f, beta2 = 0.98f, eps = 1e-8f;
  float init_sigma = 0.5f;         // of the embeddings; matrices get 1/√fan_in
  TaskConfig task;
  // A curriculum: task.distinct_share applies from this step on. Before it, letters are all
  // random, the data in which the induction circuit forms first (on distinct letters alone the
  // model settles for "a letter not seen yet"); after it, distinct sequences sharpen it.
  std::size_t distinct_from = 0;
};

// The shipped checkpoint's recipe (npm run train), and createTrainer's defaults.
TrainerOptions recipe();

// Throws attn::Error unless the options are usable, with a message in the API's terms.
void validate(const TrainerOptions& o);

// The seeded initial weights, Layout order.
std::vector<float> initial_parameters(const ModelConfig& c, std::uint64_t seed, float init_sigma);

struct StepReport {
  std::size_t step = 0;
  double loss = 0.0;              // mean over every predicted position of the last batch
  double loss_first_copy = 0.0;   // over s[1..] of the first copy
  double loss_second_copy = 0.0;  // over s[1..] of the second copy
};

class Trainer {
 public:
  explicit Trainer(const TrainerOptions& options);
  // Runs k steps. Throws attn::Error once the loss or a weight stops being a finite number (a
  // learning rate too large for the model diverges), then at every later call: the weights of the
  // step that diverged are never trained on or shown.
  StepReport step(std::size_t k = 1);
  // The current weights; throws attn::Error after a divergence (see step()).
  const std::vector<float>& parameters() const;
  std::size_t steps() const { return step_; }
  const TrainerOptions& options() const { return o_; }

 private:
  TrainerOptions o_;
  Rng data_;
  std::vector<float> params_, grads_, m_, v_, probs_, per_position_;
  std::vector<int> tokens_, targets_, roles_;
  Activations acts_;
  std::size_t step_ = 0;
  bool diverged_ = false;

  void check_diverged() const;
};

struct Evaluation {
  double loss_first_copy = 0.0, loss_second_copy = 0.0;
  std::vector<HeadScores> heads;  // layers × heads, means over the sequences
};

// The goals' measurement: `count` fresh distinct-letter sequences from Rng(seed).
Evaluation evaluate(const ModelConfig& c, const float* params, std::uint64_t seed, std::size_t count,
                    const TaskConfig& task = {});

}  // namespace attn::learned
