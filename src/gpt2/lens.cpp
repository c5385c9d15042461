// The logit lens's readout (lens.hpp).
#include "lens.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "../aligned_vector.hpp"
#include "../kernels/matmul.hpp"
#include "../kernels/softmax.hpp"
#include "steps.hpp"

namespace attn::gpt2 {

namespace {

constexpr std::size_t kTop = 5;

// One row's running state over the blocks of the vocabulary seen so far.
struct Running {
  float max = -INFINITY;
  double sum = 0.0;                     // Σ exp(logit − max)
  std::vector<std::size_t> best;        // ids, likeliest first (the lower id first among equals)
  std::vector<float> best_logits;
};

}  // namespace

std::vector<std::vector<NextToken>> lens_readout(const Weights& w, const float* rows, std::size_t count) {
  const std::size_t d = w.config.d_model, vocab = w.config.vocab_size, top = std::min(kTop, vocab);
  if (count == 0) return {};
  std::vector<Running> state(count);
  AlignedVector<float> logits(count * kLensBlock), exps(kLensBlock);
  for (std::size_t j0 = 0; j0 < vocab; j0 += kLensBlock) {
    const std::size_t jb = std::min(kLensBlock, vocab - j0);
    kernels::matmul_abt_row_pairs<4>(rows, d, w.wte.data() + j0 * d, d, logits.data(), kLensBlock, count, jb, d);
    for (std::size_t r = 0; r < count; ++r) {
      const float* l = logits.data() + r * kLensBlock;
      steps::check_finite(l, jb, "in the logit lens's scores");
      Running& s = state[r];
      const float block_max = kernels::reduce_max(l, jb);
      if (block_max > s.max) {
        s.sum *= std::exp(double(s.max) - double(block_max));
        s.max = block_max;
      }
      s.sum += double(kernels::exp_minus_max_sum(l, s.max, exps.data(), jb));
      for (std::size_t t = 0; t < jb; ++t) {
        if (s.best.size() == top && !(l[t] > s.best_logits.back())) continue;
        const auto at = std::upper_bound(s.best_logits.begin(), s.best_logits.end(), l[t], std::greater<float>());
        const auto k = at - s.best_logits.begin();
        s.best.insert(s.best.begin() + k, j0 + t);
        s.best_logits.insert(at, l[t]);
        if (s.best.size() > top) {
          s.best.pop_back();
          s.best_logits.pop_back();
        }
      }
    }
  }
  std::vector<std::vector<NextToken>> out(count);
  for (std::size_t r = 0; r < count; ++r) {
    for (std::size_t k = 0; k < state[r].best.size(); ++k) {
      out[r].push_back({std::int32_t(state[r].best[k]),
                        float(std::exp(double(state[r].best_logits[k]) - double(state[r].max)) / state[r].sum)});
    }
  }
  return out;
}

std::size_t lens_bytes(const Config& c) {
  return (c.layers * c.d_model + c.layers * kLensBlock + kLensBlock) * sizeof(float) +
         c.layers * (sizeof(Running) + 2 * kTop * sizeof(std::size_t) + sizeof(std::vector<NextToken>) + kTop * sizeof(NextToken));
}

}  // namespace attn::gpt2
