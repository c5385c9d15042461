#pragma once
// The training task, generated and never downloaded: BOS, a random prefix of random length, a
// random string s of random length, s again, random filler up to the context. The second copy
// is predictable only by finding the previous occurrence of the current token and copying what
// followed it (an induction head); the offset between the copies varies, so no fixed positional
// shortcut predicts it.
#include <cstddef>
#include <vector>

#include "../random.hpp"

namespace attn::learned {

struct TaskConfig {
  std::size_t min_length = 0;  // of s; 0 = choose from the context (task_for)
  std::size_t max_length = 0;
  // The share of training sequences drawn without repeated letters (distinct_sequence). In fully
  // random letters, accidental repeats in the prefix and filler make copying the token after a
  // previous occurrence wrong as often as right there, so an induction head learns to hedge
  // (half its attention on BOS); sequences without accidental repeats teach it to commit.
  double distinct_share = 0.0;
};

// The string lengths used for a context: at most (context − 1)/2, and long enough that a
// sequence of distinct letters apart from the repeat fits in 27 symbols.
TaskConfig task_for(std::size_t context);

struct Sequence {
  std::vector<int> tokens;  // context ids, BOS first
  std::size_t first = 0;    // position of s's first token
  std::size_t second = 0;   // position of the second copy's first token
  std::size_t length = 0;   // |s|
};

// A training sequence: with probability task.distinct_share a distinct_sequence, otherwise every
// letter uniform over the 27 symbols (accidental repeats happen).
Sequence training_sequence(Rng& rng, std::size_t context, const TaskConfig& task);

// An evaluation sequence whose letters are all distinct apart from the repeat, so that "occurred
// earlier" means the second copy. Needs context − 1 − length ≤ 27.
Sequence distinct_sequence(Rng& rng, std::size_t context, const TaskConfig& task);

// Marks the positions whose next token is s[1..] of the first copy (1) or of the second copy (2),
// else 0: the predictions the copy losses average. The second copy's first token is not
// predictable, so neither copy counts its first token.
std::vector<int> copy_roles(const Sequence& s);

}  // namespace attn::learned
