#include "goals.hpp"

#include <algorithm>

namespace attn::learned {

std::size_t goal_max_steps() { return recipe().decay_steps; }

Evaluation evaluate_goals(const ModelConfig& c, const float* params, const TaskConfig& task) {
  return evaluate(c, params, kGoalSeed, kGoalSequences, task);
}

GoalScores goal_scores(const ModelConfig& c, const Evaluation& e) {
  GoalScores g;
  for (std::size_t l = 0; l < c.layers; ++l) {
    for (std::size_t h = 0; h < c.heads; ++h) {
      const HeadScores& s = e.heads[l * c.heads + h];
      if (l == 0) g.previous_token = std::max(g.previous_token, s.previous_token);
      if (l == 1) g.induction = std::max(g.induction, s.induction);
      g.first_token = std::max(g.first_token, s.first_token);
    }
  }
  g.loss_first_copy = e.loss_first_copy;
  g.loss_second_copy = e.loss_second_copy;
  g.loss_ratio = e.loss_second_copy / e.loss_first_copy;
  return g;
}

bool met(const GoalScores& g, const GoalThresholds& t) {
  return g.previous_token >= t.previous_token && g.induction >= t.induction && g.first_token >= t.first_token &&
         g.loss_ratio <= t.loss_ratio;
}

}  // namespace attn::learned
