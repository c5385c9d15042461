#pragma once
// The head scores of one sequence's n×n causal attention weights A, shared by the two models
// whose heads the page labels (learned/ and gpt2/), so they live below both:
//   previousToken: mean over i ≥ 1 of A[i][i−1];
//   firstToken:    mean over i ≥ 1 of A[i][0] (position 0 is BOS);
//   induction:     mean over positions i whose token occurred earlier, at the latest such j,
//                  of A[i][j+1]. Undefined (count 0) when no token repeats.
#include <cstddef>

namespace attn {

struct HeadScores {
  double previous_token = 0.0;
  double first_token = 0.0;
  double induction = 0.0;
  std::size_t induction_positions = 0;  // how many positions the induction mean is over
};

HeadScores head_scores(const float* weights, std::size_t n, const int* tokens);

}  // namespace attn
