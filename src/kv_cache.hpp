#pragma once
// Decoding with a KV cache and grouped K/V heads (the kvcache lab, issue 40 §3), on the
// explaining path (attention.hpp), so every intermediate is the calculator's own:
// - decode_step: one new token attends to the cached keys and values plus its own, and the cache
//   comes back one row longer. Its output row is the last row of the causal attention over the
//   whole text, which is why a decoder never recomputes the earlier rows;
// - grouped_attention: h query heads share h_kv K/V heads (MHA h_kv = h, GQA, MQA h_kv = 1), query
//   head i reading K/V head ⌊i / (h / h_kv)⌋, as Llama's repeat_kv does;
// - kv_cache_bytes: the cache a model holds, 2 (K and V) × layers × h_kv × d_head × tokens × bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention.hpp"
#include "matrix.hpp"

namespace attn {

struct DecodeStepResult {
  float scale = 0.0f;           // 1/√d_k
  std::vector<float> scores;    // q·k_jᵀ for the m cached keys and the new one: m + 1
  std::vector<float> weights;   // softmax(scores · scale): m + 1, summing to 1
  std::vector<float> output;    // Σ_j weights_j v_j: the new row of Z, d_v
  Matrix k, v;                  // the cache with k_new and v_new appended: (m + 1)×d_k, (m + 1)×d_v
};

// k (m×d_k) and v (m×d_v) are the cache; m may be 0 (both empty: the first token). q and k_new
// hold d_k entries, v_new d_v. Throws attn::Error on mismatched lengths, non-finite entries and
// sizes over limits::, in words.
DecodeStepResult decode_step(const MatrixView& k, const MatrixView& v, const std::vector<float>& q,
                             const std::vector<float>& k_new, const std::vector<float>& v_new);

struct GroupedHead {
  AttentionResult attention;  // query head i against its K/V head, every intermediate
  std::size_t kv_head = 0;    // ⌊i / (h / h_kv)⌋
};

struct GroupedResult {
  std::vector<GroupedHead> heads;          // h of them
  Matrix output;                           // the heads' outputs side by side, n×d (before W_O)
  std::uint64_t parameters = 0;            // W_Q, W_O (d×d each), W_K, W_V (d × d·h_kv/h each)
  std::uint64_t cache_bytes_per_token = 0; // one layer in float32: 2 × h_kv × d_head × 4
};

// q is n×d (d = d_model, divisible by heads); k and v are n×(d·kv_heads/heads), kv_heads dividing
// heads. Throws attn::Error when a size does not fit, in words ("3 K/V heads do not divide 4 heads").
GroupedResult grouped_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v,
                                std::uint64_t heads, std::uint64_t kv_heads, bool causal);

// 2 × layers × kv_heads × d_head × tokens × bytes_per_value, exact: throws attn::Error past 2⁵³ − 1
// (what a JS number holds exactly) and for an argument out of its range.
std::uint64_t kv_cache_bytes(std::uint64_t layers, std::uint64_t kv_heads, std::uint64_t d_head,
                             std::uint64_t tokens, std::uint64_t bytes_per_value);

}  // namespace attn
