#pragma once
// Documented size limits of the core. They keep one call of the explaining path (which stores
// every n×m intermediate) within a few hundred MiB, and turn absurd sizes into a clear error
// instead of an out-of-memory abort.
#include <cstddef>

namespace attn::limits {

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

}  // namespace attn::limits
