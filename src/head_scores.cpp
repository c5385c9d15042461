#include "head_scores.hpp"

namespace attn {

HeadScores head_scores(const float* a, std::size_t n, const int* tokens) {
  HeadScores s;
  if (n < 2) return s;
  for (std::size_t i = 1; i < n; ++i) {
    s.previous_token += a[i * n + i - 1];
    s.first_token += a[i * n];
    for (std::size_t j = i; j-- > 0;) {
      if (tokens[j] == tokens[i]) {
        s.induction += a[i * n + j + 1];
        ++s.induction_positions;
        break;
      }
    }
  }
  s.previous_token /= double(n - 1);
  s.first_token /= double(n - 1);
  if (s.induction_positions) s.induction /= double(s.induction_positions);
  return s;
}

}  // namespace attn
