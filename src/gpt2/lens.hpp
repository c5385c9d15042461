#pragma once
// The logit lens (forward.hpp, RunResult::lens): the five likeliest tokens, with their
// probabilities over the whole vocabulary, for several rows at once. ln_f's outputs are kept as
// the pass goes (one row a block) and unembedded together at the end, wte read in blocks of 64
// tokens, each block used by every row while it is in the cache: GPT-2 small's wte is 154 MB,
// and reading it once per layer cost more than the rest of a 10-token run. Each row keeps a
// running top 5 and a running softmax (its largest logit so far and the sum of exp(logit − it)).
#include <cstddef>
#include <vector>

#include "forward.hpp"
#include "model.hpp"

namespace attn::gpt2 {

inline constexpr std::size_t kLensBlock = 64;

// rows: `count` rows of d floats, each ln_f of the residual stream after a block.
std::vector<std::vector<NextToken>> lens_readout(const Weights& weights, const float* rows, std::size_t count);

// The bytes lens_readout and the rows it reads take for a model's every layer (run_bytes).
std::size_t lens_bytes(const Config& config);

}  // namespace attn::gpt2
