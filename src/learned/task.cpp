#include "task.hpp"

#include <algorithm>

#include "../error.hpp"
#include "vocabulary.hpp"

namespace attn::learned {

namespace {

std::size_t uniform_int(Rng& rng, std::size_t lo, std::size_t hi) {  // inclusive
  return lo + std::size_t(rng.next_u64() % (hi - lo + 1));
}

// Lengths and offsets: s's length uniform in the task's range, the prefix uniform in what is left.
Sequence layout(Rng& rng, std::size_t context, const TaskConfig& task) {
  TaskConfig t = task.max_length ? task : task_for(context);
  t.distinct_share = task.distinct_share;
  if (t.min_length < 2 || t.min_length > t.max_length || 1 + 2 * t.max_length > context) {
    throw Error("the task's string lengths do not fit the context of " + std::to_string(context));
  }
  Sequence s;
  s.tokens.assign(context, kBos);
  s.length = uniform_int(rng, t.min_length, t.max_length);
  const std::size_t room = context - 1 - 2 * s.length;
  s.first = 1 + uniform_int(rng, 0, room);
  s.second = s.first + s.length;
  return s;
}

}  // namespace

TaskConfig task_for(std::size_t context) {
  TaskConfig t;
  t.max_length = (context - 1) / 2;
  const std::size_t symbols = kSymbols.size();
  t.min_length = std::max<std::size_t>(3, context - 1 > symbols ? context - 1 - symbols : 0);
  t.min_length = std::min(t.min_length, t.max_length);
  return t;
}

Sequence training_sequence(Rng& rng, std::size_t context, const TaskConfig& task) {
  if (task.distinct_share > 0.0 && rng.uniform() < task.distinct_share) {
    return distinct_sequence(rng, context, task);
  }
  Sequence s = layout(rng, context, task);
  for (std::size_t i = 1; i < context; ++i) {
    if (i >= s.second && i < s.second + s.length) {
      s.tokens[i] = s.tokens[i - s.length];
    } else {
      s.tokens[i] = int(rng.next_u64() % kSymbols.size());
    }
  }
  return s;
}

Sequence distinct_sequence(Rng& rng, std::size_t context, const TaskConfig& task) {
  Sequence s = layout(rng, context, task);
  if (context - 1 - s.length > kSymbols.size()) {
    throw Error("a sequence of distinct letters needs a longer string for a context of " +
                std::to_string(context));
  }
  // A Fisher–Yates shuffle of the symbols, dealt in order to every position but the repeat.
  std::vector<int> deck(kSymbols.size());
  for (std::size_t i = 0; i < deck.size(); ++i) deck[i] = int(i);
  for (std::size_t i = deck.size() - 1; i > 0; --i) std::swap(deck[i], deck[std::size_t(rng.next_u64() % (i + 1))]);
  std::size_t next = 0;
  for (std::size_t i = 1; i < context; ++i) {
    if (i >= s.second && i < s.second + s.length) {
      s.tokens[i] = s.tokens[i - s.length];
    } else {
      s.tokens[i] = deck[next++];
    }
  }
  return s;
}

std::vector<int> copy_roles(const Sequence& s) {
  std::vector<int> role(s.tokens.size(), 0);
  // Position i predicts token i + 1.
  for (std::size_t k = 1; k < s.length; ++k) {
    role[s.first + k - 1] = 1;
    role[s.second + k - 1] = 2;
  }
  return role;
}

}  // namespace attn::learned
