#pragma once
// FlashAttention's online softmax, step by step (the flash lab, issue 40 §2): each query row meets
// the keys and values one tile of B at a time, keeping only a running max m, a running sum ℓ and
// a running output, never the n×m matrix. After the last tile the output is softmax(QKᵀ/√d_k)·V:
// the same Z as the plain path (attention.hpp), to float32 rounding. Written plainly, step by step,
// for the lab to show every state; the fast fused kernel is kernels/streaming_attention.*.
//
// The floats each path holds at once are counted by the allocator the path's buffers use
// (CountingAllocator), not by a formula: the plain path's scores and output, and the tiled path's
// one tile of scores, running m and ℓ, and output.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "matrix.hpp"

namespace attn {

struct TileStep {
  std::size_t row = 0;             // the query row
  std::size_t start = 0, end = 0;  // the keys of this tile: [start, end)
  std::vector<float> scores;       // their scaled scores q·kᵀ/√d_k (the causal mask's hidden ones left out)
  float max = 0.0f;                // the running max m after this tile
  float rescale = 0.0f;            // e^(m_old − m_new): what the sum and output so far were multiplied by
  float sum = 0.0f;                // the running ℓ = Σ e^(s − m) after this tile
  std::vector<float> output;       // the running output divided by ℓ: Z's row had the row ended here
};

struct TiledResult {
  Matrix output;                    // n×d_v
  std::vector<TileStep> tiles;      // for each query row in order, its tiles in order
  std::size_t skipped = 0;          // tiles a causal mask never reads (every key after the row)
  std::size_t peak_floats = 0;      // the most floats the tiled path held at once
  std::size_t full_peak_floats = 0; // the most the plain path (the n×m scores, then Z) held at once
};

// q n×d_k, k m×d_k, v m×d_v; tile from 1 to m. causal hides keys j > i (self-attention: n = m).
// Throws attn::Error in words for a tile out of range, mismatched shapes, non-finite entries,
// and sizes over limits:: (the steps are kept for at most limits::kMaxScoreEntries scores).
TiledResult tiled_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v, std::size_t tile,
                            bool causal);

// The flash lab's memory curve: the most floats each path held at once, counted by the allocator.
struct PeakFloats {
  std::size_t tiled = 0;  // one tile of scores, m and ℓ per row, and the output
  std::size_t plain = 0;  // the n×n scores, then Z
};

// Both paths, self-attention over n tokens of seeded N(0, 1) queries and keys (d) and values
// (d_v), the tiled one in tiles of `tile` keys without keeping its steps. Throws attn::Error in
// words for n over limits::kMaxPeakTokens, d or d_v over limits::kMaxCols, a tile out of 1 … n.
PeakFloats attention_peak_floats(std::size_t n, std::size_t d, std::size_t dv, std::size_t tile, bool causal,
                                 std::uint64_t seed);

}  // namespace attn
