#pragma once
// Every documented limit of the core, in one place. The core checks every value against them.
// The calculator's binding exports them (limits() in bindings/embind.cpp), so the JS API
// (web/attention.js, web/api/) can check a size before it copies anything, without a copy of a
// number. They keep one call of the explaining path (which stores every n×m intermediate) within
// a few hundred MiB, and turn absurd sizes into a clear error instead of an out-of-memory abort.
#include <cstddef>
#include <cstdint>

namespace attn::limits {

// --- attention and multi-head attention

// Rows of Q, K, V or X (tokens n, keys m).
inline constexpr std::size_t kMaxRows = 65536;
// Columns: d_k, d_v, d_model.
inline constexpr std::size_t kMaxCols = 4096;
// Heads of multi-head attention (also bounded by d_model, since d_model must divide by h).
inline constexpr std::size_t kMaxHeads = 256;
// Entries of each n×m matrix the explaining path keeps (scores, scaled, exp, weights...):
// 2048×2048. Summed over heads for multi-head attention. Five such float matrices are
// 80 MiB at the limit.
inline constexpr std::size_t kMaxScoreEntries = std::size_t{1} << 22;
// Numbers in Q, K, V and the output together for the streaming path (kernels/streaming_attention.hpp): 256 MiB.
// n = m = 16,384 with d = d_v = 64 takes 4,194,304 of them.
inline constexpr std::size_t kMaxStreamingFloats = std::size_t{1} << 26;

// --- counts handed to JavaScript (cost.hpp, the bindings)

// Every count leaves the core as a double (a JavaScript number), which holds each whole number
// exactly only up to 2^53 − 1. Larger counts are refused, not rounded.
inline constexpr std::uint64_t kMaxExactCount = (std::uint64_t{1} << 53) - 1;

// --- the labs

// rows and cols of normal_matrix (random.hpp).
inline constexpr std::size_t kMaxNormalSide = 256;
// The √d_k experiment (scaling.hpp): d_k, sampled pairs, histogram bins, scores in the softmax row.
inline constexpr std::size_t kMaxScalingDk = 1024;
inline constexpr std::size_t kMaxScalingPairs = 100000;
inline constexpr std::size_t kMaxScalingBins = 200;
inline constexpr std::size_t kMaxScalingRow = 256;
// Rows of the √d_k row study (scaling_row_study): its gradients and entropies.
inline constexpr std::size_t kMaxScalingRows = 100000;
// time_attention (timing.hpp): n (n×n must fit the explaining path) and timed runs.
inline constexpr std::size_t kMaxTimingN = 2048;
inline constexpr std::size_t kMaxTimingRepeats = 1000;
// Rounds of the benchmark's peak loop (kernels/peak.hpp): the most a 32-bit size_t holds, so the
// limit is the same in every build (the benchmark runs 2·10⁷).
inline constexpr std::uint64_t kMaxPeakIterations = (std::uint64_t{1} << 32) - 1;
// Words of a constructed head's sentence (construct.hpp).
inline constexpr std::size_t kMaxConstructTokens = 16;
// The longest n the flash lab's memory curve runs (attention_peak_floats, tiled_attention.hpp):
// the plain path's n² scores are then 64 MiB, and both paths' n²·d products take about a
// second in a browser's wasm.
inline constexpr std::size_t kMaxPeakTokens = 4096;

// --- the learned heads (src/learned/): a model's sizes, a trainer's batch and context

inline constexpr std::size_t kMaxLearnedLayers = 4;
inline constexpr std::size_t kMaxLearnedHeads = 8;
inline constexpr std::size_t kMinLearnedDModel = 4;
inline constexpr std::size_t kMaxLearnedDModel = 128;
// Tokens a model reads, BOS included.
inline constexpr std::size_t kMinLearnedContext = 2;
inline constexpr std::size_t kMaxLearnedContext = 128;
// A trainer's context on the copy task: BOS, a prefix, a string of at least 2 letters, the
// string again and filler need 7 tokens. Its sequences of distinct letters (task.hpp) repeat
// one string and use each of the 27 symbols at most once elsewhere: context − 1 − |s| ≤ 27 with
// 2·|s| ≤ context − 1, so context ≤ 1 + 27 + 27 = 55.
inline constexpr std::size_t kMinTrainingContext = 7;
inline constexpr std::size_t kMaxTrainingContext = 55;
inline constexpr std::size_t kMaxTrainingBatch = 256;
// Optimisation steps in one call of Trainer::step (a page runs them between frames).
inline constexpr std::size_t kMaxStepsPerCall = 100000;

}  // namespace attn::limits
