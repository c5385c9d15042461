// Where the streaming attention's time goes (issue #16): the QKᵀ product, the softmax step
// between the products (range check, row max, online rescale, exp) and the P·V product, each
// timed alone over the same tiles a dense call at n works through, with the same code the call
// runs (kernels::pack_rows and matmul_packed_ab, streaming_detail::softmax_tile,
// kernels::matmul_fixed_stride_ab_add), and
// the whole call for comparison. Built natively and, under Emscripten, as a Node program
// (tools/bench/bench.cmake); tools/bench.mjs runs both. Prints one JSON object.
//   attn_profile [n [d]]     n = 1024, d = 64 by default
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/matmul.hpp"
#include "kernels/simd.hpp"
#include "kernels/streaming_attention.hpp"
#include "kernels/transpose.hpp"
#include "timing.hpp"

using bench::Timing;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const std::size_t d = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 64;
  if (n == 0 || d == 0 || n > 16384 || d > 1024) {
    std::fprintf(stderr, "usage: attn_profile [n (1 to 16384) [d (1 to 1024)]]\n");
    return 2;
  }
  const std::size_t dv = d, B = attn::kBlockKeys, R = attn::kBlockRows;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> q(n * d), k(n * d), v(n * dv), out(n * dv);
  for (auto* x : {&q, &k, &v}) std::generate(x->begin(), x->end(), [&] { return uniform(rng); });

  // Kᵀ packed in panels of B keys, as the call packs it.
  const std::size_t blocks = (n + B - 1) / B;
  attn::AlignedVector<float> keys_t(blocks * d * B), scores(R * B), weights(R * B), acc(R * dv),
      queries(attn::kernels::packed_rows_size(R, d));
  for (std::size_t b = 0; b < blocks; ++b) {
    attn::kernels::transpose(k.data() + b * B * d, d, keys_t.data() + b * d * B, B, std::min(B, n - b * B), d);
  }
  const float scale = 1.0f / std::sqrt(float(d));
  std::vector<float> row_max(R), row_sum(R);
  volatile float sink = 0.0f;

  // Each phase over every (query block, key block) tile of a dense call.
  const auto each_tile = [&](auto&& body) {
    for (std::size_t i0 = 0; i0 < n; i0 += R) {
      for (std::size_t j0 = 0; j0 < n; j0 += B) body(i0, std::min(R, n - i0), j0, std::min(B, n - j0));
    }
  };
  const Timing qkt = bench::time_ms([&] {
    each_tile([&](std::size_t i0, std::size_t rows, std::size_t j0, std::size_t keys) {
      if (j0 == 0) attn::kernels::pack_rows(q.data() + i0 * d, d, rows, d, queries.data());
      attn::kernels::matmul_packed_ab(queries.data(), keys_t.data() + (j0 / B) * d * B, B, scores.data(), B, rows, d, keys);
    });
    sink = sink + scores[0];
  }, 40.0);
  // The softmax step on real scores (one tile's, kept): each tile starts from a copy of them,
  // whose cost is timed apart and taken off.
  const std::vector<float> tile(scores.begin(), scores.end());
  const auto softmax_pass = [&](bool softmax) {
    std::fill(row_max.begin(), row_max.end(), -std::numeric_limits<float>::infinity());
    std::fill(row_sum.begin(), row_sum.end(), 0.0f);
    each_tile([&](std::size_t i0, std::size_t rows, std::size_t j0, std::size_t keys) {
      std::copy(tile.begin(), tile.end(), weights.begin());
      if (softmax) {
        attn::streaming_detail::softmax_tile({weights.data(), rows, keys, i0, j0}, false, scale, q.data(), k.data(), d,
                                             {row_max.data(), row_sum.data(), acc.data(), dv});
      }
    });
    sink = sink + weights[0] + row_sum[0];
  };
  const Timing softmax_and_copy = bench::time_ms([&] { softmax_pass(true); }, 40.0);
  const Timing copy = bench::time_ms([&] { softmax_pass(false); }, 40.0);
  const Timing pv = bench::time_ms([&] {
    each_tile([&](std::size_t, std::size_t rows, std::size_t j0, std::size_t keys) {
      attn::kernels::matmul_fixed_stride_ab_add<attn::kBlockKeys>(weights.data(), v.data() + j0 * dv, dv, acc.data(), dv,
                                                                rows, keys, dv);
    });
    sink = sink + acc[0];
  }, 40.0);
  attn::StreamingWorkspace ws;
  const Timing whole = bench::time_ms([&] {
    attn::attention_output(q.data(), k.data(), v.data(), {n, n, d, dv}, false, out.data(), ws);
  }, 40.0);

  const double softmax_ms = std::max(0.0, softmax_and_copy.median_ms - copy.median_ms);
  const double parts = qkt.median_ms + softmax_ms + pv.median_ms;
  std::printf(
      "{\"arch\": \"%s\", \"lanes\": %zu, \"n\": %zu, \"d\": %zu, \"block\": %zu, "
      "\"qkt\": {\"ms\": %.6f, \"spread\": %.4f, \"share\": %.4f}, "
      "\"softmax\": {\"ms\": %.6f, \"spread\": %.4f, \"share\": %.4f}, "
      "\"pv\": {\"ms\": %.6f, \"spread\": %.4f, \"share\": %.4f}, "
      "\"whole\": {\"ms\": %.6f, \"spread\": %.4f}, \"rest\": {\"ms\": %.6f}}\n",
      attn::kernels::arch_name(), attn::kernels::kLanes, n, d, B, qkt.median_ms, qkt.spread, qkt.median_ms / parts,
      softmax_ms, softmax_and_copy.spread, softmax_ms / parts, pv.median_ms, pv.spread, pv.median_ms / parts,
      whole.median_ms, whole.spread, whole.median_ms - parts);
  return sink == 12345.0f ? 1 : 0;  // reads sink, so no timed loop is optimised away
}
