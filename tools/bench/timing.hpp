#pragma once
// The benchmark programs' one timer: the median of 7 rounds, each of enough calls to last at
// least min_ms (the call count doubles until one round does), with the rounds' fastest and spread.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace bench {

struct Timing {
  double median_ms;
  double fastest_ms;
  double spread;  // (slowest − fastest) / median over the 7 rounds
};

template <class F>
Timing time_ms(F&& f, double min_ms) {
  using Clock = std::chrono::steady_clock;
  f();
  std::size_t reps = 1;
  for (;;) {
    const auto t = Clock::now();
    for (std::size_t r = 0; r < reps; ++r) f();
    if (std::chrono::duration<double, std::milli>(Clock::now() - t).count() >= min_ms || reps >= (1u << 16)) break;
    reps *= 2;
  }
  std::vector<double> rounds;
  for (int k = 0; k < 7; ++k) {
    const auto t = Clock::now();
    for (std::size_t r = 0; r < reps; ++r) f();
    rounds.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count() / double(reps));
  }
  std::sort(rounds.begin(), rounds.end());
  const double median = rounds[rounds.size() / 2];
  return {median, rounds.front(), (rounds.back() - rounds.front()) / median};
}

}  // namespace bench
