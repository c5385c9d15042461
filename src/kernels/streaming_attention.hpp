#pragma once
// Output-only attention at any length: FlashAttention-style online softmax over blocks of keys.
// A running max and sum per query replace the n×m matrix, so the extra memory is Kᵀ (m·d
// floats, packed once) plus O(kBlockRows · (kBlockKeys + d_v)) whatever n and m are. With a causal mask the key
// blocks that lie wholly after a query block are never computed: about half the work.
// The explaining path (attention.hpp) keeps every intermediate for the calculator; this one
// returns Z = softmax(QKᵀ/√d + mask)·V alone, equal to it within float32 rounding.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "aligned_vector.hpp"

namespace attn {

inline constexpr std::size_t kBlockRows = 64;  // queries per block: each K/V panel loaded serves 64 rows
inline constexpr std::size_t kBlockKeys = 64;  // keys per block: a 64×64 score tile is 16 KiB

// Scratch space the streaming path reuses between calls: after the first call of a size, a
// call allocates nothing.
// The matrices are cache-line aligned (aligned_vector.hpp).
struct StreamingWorkspace {
  AlignedVector<float> keys_t;  // Kᵀ in panels of d × kBlockKeys: packed once per call
  AlignedVector<float> queries; // one block of Q, packed for the micro-kernel (kernels::pack_rows)
  AlignedVector<float> scores;  // kBlockRows × kBlockKeys
  AlignedVector<float> acc;     // kBlockRows × d_v: the unnormalized output rows
  std::vector<float> row_max;   // running max per query of the block
  std::vector<float> row_sum;   // running Σ exp(score − max) per query of the block
};

struct OutputShape {
  std::size_t n = 0;   // queries
  std::size_t m = 0;   // keys
  std::size_t d = 0;   // d_k
  std::size_t dv = 0;  // d_v
};

// The sizes alone: n and m from 1 to limits::kMaxRows, d and d_v from 1 to limits::kMaxCols
// (validate_range's words), and n·(d + d_v) + m·(d + d_v) within limits::kMaxStreamingFloats.
// Throws attn::Error.
void validate_output_shape(OutputShape shape);

// The same checks on sizes as a caller gives them, 64-bit so that none can wrap before it is
// checked (2³² + 1 rows on wasm32), then the shape.
OutputShape output_shape(std::uint64_t n, std::uint64_t m, std::uint64_t d, std::uint64_t dv);

// Sizes within limits:: and every value finite; throws attn::Error naming the matrix, the
// position and the rule, as the explaining path does.
void validate_output_inputs(const float* q, const float* k, const float* v, OutputShape shape);

// out (n×dv, row-major) = attention of q (n×d), k (m×d), v (m×dv), all row-major, with the
// causal mask (key j hidden from query i when j > i) if asked. Validates first. float32
// overflow follows the range rule shared with the explaining path (float_checks.hpp): the same
// inputs are accepted, with the same results within float32 rounding, or refused with the
// same attn::Error.
void attention_output(const float* q, const float* k, const float* v, OutputShape shape,
                      bool causal, float* out, StreamingWorkspace& workspace);

// One step of the online softmax, between the two products of a block: exposed so that the
// benchmark's profile (tools/bench/profile.cpp) times this very code apart from QKᵀ and P·V.
namespace streaming_detail {

// A tile of scores: rows queries from first_query on, keys keys from first_key on, row stride
// kBlockKeys. Raw QKᵀ in; exp((s − max)·scale) out, 0 for every hidden key.
struct ScoreTile {
  float* scores;
  std::size_t rows, keys, first_query, first_key;
};

// The running state of the tile's queries: max (unscaled score), Σ exp and the unnormalized
// output rows acc (rows × dv), rescaled whenever a row's max grows.
struct RunningRows {
  float* max;
  float* sum;
  float* acc;
  std::size_t dv;
};

// Applies the range rule to the tile's scores (q, k and d recompute a suspect one in double),
// the causal mask, and the online softmax update. Returns false when a score is outside
// float32's range: the caller reports the first such score of the whole call.
bool softmax_tile(ScoreTile tile, bool causal, float scale, const float* q, const float* k,
                  std::size_t d, RunningRows running);

}  // namespace streaming_detail

}  // namespace attn
