#pragma once
// The goals a learned-heads model is trained to (issue 13), defined once: their thresholds, the
// sequences they are measured on and met(). The trainer tool (tools/train.cpp), the native
// training test and the in-browser trainer (through the binding's learnedGoals) all use these.
#include <cstddef>
#include <cstdint>

#include "model.hpp"
#include "task.hpp"
#include "trainer.hpp"

namespace attn::learned {

// A layer-1 previous-token head, a layer-2 induction head, an attention sink in any layer, and
// the second copy's loss at most `loss_ratio` of the first copy's.
struct GoalThresholds {
  double previous_token = 0.7;
  double induction = 0.7;
  double first_token = 0.3;
  double loss_ratio = 0.15;
};
inline constexpr GoalThresholds kGoalThresholds{};

// The evaluation set: kGoalSequences distinct-letter sequences (distinct_sequence) from
// Rng(kGoalSeed), never the training data. The trainer tool's set before there was one set: the
// checkpoint's record (web/learned-heads.json) reports its numbers, and it was the largest.
inline constexpr std::uint64_t kGoalSeed = 20261201;
inline constexpr std::size_t kGoalSequences = 256;
// Training steps between measurements of the goals.
inline constexpr std::size_t kGoalCheckEvery = 250;
// Training that has not met the goals gives up here: the end of recipe()'s cosine decay, after
// which the learning rate stays at its floor.
std::size_t goal_max_steps();

struct GoalScores {
  double previous_token = 0.0;  // the best layer-1 head's mean
  double induction = 0.0;       // the best layer-2 head's mean (0 for a one-layer model)
  double first_token = 0.0;     // the best head's mean, any layer
  double loss_ratio = 0.0;      // loss_second_copy / loss_first_copy
  double loss_first_copy = 0.0, loss_second_copy = 0.0;  // nats, means over the set's positions
};

// The evaluation on the goals' set. task: the string lengths (default task_for(context)).
Evaluation evaluate_goals(const ModelConfig& c, const float* params, const TaskConfig& task = {});

// The goals' reduction of an evaluation: the best head of each kind.
GoalScores goal_scores(const ModelConfig& c, const Evaluation& e);

// Every score at least its threshold, the loss ratio at most its.
bool met(const GoalScores& g, const GoalThresholds& t = kGoalThresholds);

}  // namespace attn::learned
