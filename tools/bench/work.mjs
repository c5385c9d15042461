// The floating-point work each benchmarked call actually does, for honest GFLOP/s and % of peak.
// A multiply-add counts 2: QKᵀ and P·V are 2·n·m·d each.

// Queries and keys per block of the streaming path (kBlockRows, kBlockKeys in
// src/kernels/streaming_attention.hpp; tools/bench/profile.cpp reports them and bench.mjs checks).
export const STREAMING_BLOCK = 64;

export const denseFlops = (n, d) => 4 * n * n * d;

// The causal streaming call: each block of queries computes every key block up to its last
// query, the diagonal block in full (its hidden half is masked, not skipped): about
// 4·n²·d/2 plus half of the diagonal blocks.
export function streamingCausalFlops(n, d, block = STREAMING_BLOCK) {
  let pairs = 0;
  for (let i0 = 0; i0 < n; i0 += block) {
    const rows = Math.min(block, n - i0);
    pairs += rows * Math.min(n, i0 + rows);
  }
  return 4 * pairs * d;
}
