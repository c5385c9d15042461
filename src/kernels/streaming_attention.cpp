#include "streaming_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"
#include "kernels/float_checks.hpp"
#include "kernels/matmul.hpp"
#include "kernels/transpose.hpp"
#include "kernels/softmax.hpp"
#include "limits.hpp"
#include "validate.hpp"

namespace attn {

OutputShape output_shape(std::uint64_t n, std::uint64_t m, std::uint64_t d, std::uint64_t dv) {
  // Each size within its range first, so the total below cannot wrap around.
  validate_range("n", n, 1, limits::kMaxRows);
  validate_range("m", m, 1, limits::kMaxRows);
  validate_range("d", d, 1, limits::kMaxCols);
  validate_range("dv", dv, 1, limits::kMaxCols);
  const std::uint64_t floats = n * (d + dv) + m * (d + dv);
  if (floats > limits::kMaxStreamingFloats) {
    throw Error("Q, K, V and the output hold " + std::to_string(floats) +
                " numbers together, over the limit of " + std::to_string(limits::kMaxStreamingFloats));
  }
  // Within limits, so each fits a size_t.
  return {std::size_t(n), std::size_t(m), std::size_t(d), std::size_t(dv)};
}

void validate_output_shape(OutputShape s) { output_shape(s.n, s.m, s.d, s.dv); }

namespace {

// The range rule's error for rows [i0, i0 + rows): the first score in row-major order whose
// value in double is outside float32's range, as the explaining path would report it.
[[noreturn]] void throw_first_score_overflow(const float* q, const float* k, std::size_t i0,
                                             std::size_t rows, std::size_t m, std::size_t d) {
  for (std::size_t i = i0; i < i0 + rows; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      if (!std::isfinite(float(dot_in_double(q + i * d, k + j * d, d)))) throw_score_overflow(i, j);
    }
  }
  throw Error("internal error: a score overflow could not be located");  // settle_scores found one
}

// |q_i·k_j| <= d·max|q|·max|k|: with every entry of Q and K under √(kRecomputeAbove / d) no
// score can reach the range rule, so the keys a causal block skips need no look. Two vector
// passes over Q and K.
bool scores_bounded(const float* q, const float* k, OutputShape s) {
  const float limit = float(std::sqrt(double(kRecomputeAbove) / double(s.d)));
  return kernels::all_magnitudes_below(q, s.n * s.d, limit) &&
         kernels::all_magnitudes_below(k, s.m * s.d, limit);
}

}  // namespace

void validate_output_inputs(const float* q, const float* k, const float* v, OutputShape s) {
  // Sizes first: the value scans below must not run past buffers of absurd declared sizes.
  validate_output_shape(s);
  validate_matrix("Q", {q, s.n, s.d, s.d});
  validate_matrix("K", {k, s.m, s.d, s.d});
  validate_matrix("V", {v, s.m, s.dv, s.dv});
}

namespace streaming_detail {

bool softmax_tile(ScoreTile t, bool causal, float scale, const float* q, const float* k, std::size_t d,
                  RunningRows running) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (std::size_t r = 0; r < t.rows; ++r) {
    float* row = t.scores + r * kBlockKeys;
    const std::size_t query = t.first_query + r;
    // Causal: keys after the query are hidden, so only a prefix of the row is visible.
    const std::size_t visible =
        !causal ? t.keys : query + 1 <= t.first_key ? 0 : std::min(t.keys, query + 1 - t.first_key);
    // The range rule's fast check over every score, hidden or not, and the max of the visible
    // ones, in one pass over the visible part.
    float block_max = kNegInf;
    bool in_range = true;
    if (visible != 0) {
      const kernels::MaxInRange visible_part = kernels::reduce_max_in_range(row, visible, kRecomputeAbove);
      block_max = visible_part.max;
      in_range = visible_part.in_range;
    }
    in_range = in_range && kernels::all_magnitudes_below(row + visible, t.keys - visible, kRecomputeAbove);
    if (!in_range) {
      if (settle_scores(row, q + query * d, k + t.first_key * d, d, t.keys, d) < t.keys) return false;
      if (visible != 0) block_max = kernels::reduce_max(row, visible);
    }
    std::fill(row + visible, row + t.keys, 0.0f);  // exp(−inf): hidden keys weigh exactly 0
    if (visible == 0) continue;                      // every key of this tile is hidden from the query
    // The online softmax: when the running max grows, rescale what was summed under the old
    // one. After the first few tiles it rarely does, so most rows skip the scalar exp.
    const float old_max = running.max[r];
    if (block_max > old_max) {
      if (old_max != kNegInf) {  // on the row's first tile there is nothing to rescale
        const float correction = std::exp((old_max - block_max) * scale);
        running.sum[r] *= correction;
        kernels::scale(running.acc + r * running.dv, correction, running.dv);
      }
      running.max[r] = block_max;
    }
    running.sum[r] += kernels::exp_scaled_minus_max_sum(row, running.max[r], scale, row, visible);
  }
  return true;
}

}  // namespace streaming_detail

void attention_output(const float* q, const float* k, const float* v, OutputShape s, bool causal,
                      float* out, StreamingWorkspace& ws) {
  validate_output_inputs(q, k, v, s);
  const std::size_t n = s.n, m = s.m, d = s.d, dv = s.dv;
  const float scale = 1.0f / std::sqrt(float(d));
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  // Kᵀ packed in panels of kBlockKeys columns, each d × kBlockKeys and contiguous. One Kᵀ with
  // rows m floats apart would put the d rows a block reads 4 KiB apart (m = 1024), all in the
  // same L1 set; panels keep them 256 bytes apart.
  const std::size_t blocks = (m + kBlockKeys - 1) / kBlockKeys;
  ws.keys_t.resize(blocks * d * kBlockKeys);  // a short last panel's unused columns are never read
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t keys = std::min(kBlockKeys, m - b * kBlockKeys);
    kernels::transpose(k + b * kBlockKeys * d, d, ws.keys_t.data() + b * d * kBlockKeys, kBlockKeys, keys, d);
  }
  ws.scores.resize(kBlockRows * kBlockKeys);
  ws.acc.resize(kBlockRows * dv);
  ws.queries.resize(kernels::packed_rows_size(kBlockRows, d));
  ws.row_max.resize(kBlockRows);
  ws.row_sum.resize(kBlockRows);
  float* scores = ws.scores.data();
  float* acc = ws.acc.data();
  float* queries = ws.queries.data();
  // The range rule covers every score, hidden or not: a causal call checks the skipped ones
  // only when their size could matter.
  const bool check_skipped = causal && !scores_bounded(q, k, s);
  std::size_t bad_row = n, bad_column = 0;  // the first output the range rule refuses
  std::vector<std::uint8_t> hidden;           // one query's flags, for a row redone in double

  for (std::size_t i0 = 0; i0 < n; i0 += kBlockRows) {
    const std::size_t rows = std::min(kBlockRows, n - i0);
    // The block's queries packed once for the micro-kernel, which then reads each panel of Kᵀ.
    kernels::pack_rows(q + i0 * d, d, rows, d, queries);
    std::fill(acc, acc + rows * dv, 0.0f);
    std::fill(ws.row_max.begin(), ws.row_max.begin() + std::ptrdiff_t(rows), kNegInf);
    std::fill(ws.row_sum.begin(), ws.row_sum.begin() + std::ptrdiff_t(rows), 0.0f);
    // Causal: keys after the block's last query are hidden from all of its queries. Skip them.
    const std::size_t key_end = causal ? std::min(m, i0 + rows) : m;

    for (std::size_t j0 = 0; j0 < key_end; j0 += kBlockKeys) {
      const std::size_t keys = std::min(kBlockKeys, key_end - j0);
      // S = Q_block · (Kᵀ)[:, j0 : j0 + keys], from the block's panel
      const float* panel = ws.keys_t.data() + (j0 / kBlockKeys) * d * kBlockKeys;
      kernels::matmul_packed_ab(queries, panel, kBlockKeys, scores, kBlockKeys, rows, d, keys);
      // The scores stay unscaled (and so do row_max); 1/√d is applied inside the exp pass.
      if (!streaming_detail::softmax_tile({scores, rows, keys, i0, j0}, causal, scale, q, k, d,
                                          {ws.row_max.data(), ws.row_sum.data(), acc, dv})) {
        throw_first_score_overflow(q, k, i0, rows, m, d);
      }
      kernels::matmul_fixed_stride_ab_add<kBlockKeys>(scores, v + j0 * dv, dv, acc, dv, rows, keys, dv);
    }

    for (std::size_t i = i0; check_skipped && i < i0 + rows; ++i) {
      for (std::size_t j = key_end; j < m; ++j) {
        if (!std::isfinite(float(dot_in_double(q + i * d, k + j * d, d)))) {
          throw_first_score_overflow(q, k, i0, rows, m, d);
        }
      }
    }

    for (std::size_t r = 0; r < rows; ++r) {
      // row_sum >= 1: the max contributes e^0, and every query sees key 1 at least.
      const float inv = 1.0f / ws.row_sum[r];
      float* z = out + (i0 + r) * dv;
      std::copy(acc + r * dv, acc + (r + 1) * dv, z);
      kernels::scale(z, inv, dv);
      // acc sums exp·V before the division, so it can overflow where the output does not
      // (v = [2e38, 2e38]): the range rule redoes such a row in double. An error waits until
      // every score is checked, since a bad score anywhere is reported first.
      if (kernels::all_magnitudes_below(z, dv, kRecomputeAbove)) continue;
      const std::size_t i = i0 + r;
      hidden.assign(m, 0);
      for (std::size_t j = i + 1; causal && j < m; ++j) hidden[j] = 1;
      const std::size_t t = output_row_in_double({q + i * d, 1, d, d}, {k, m, d, d}, {v, m, dv, dv},
                                                 hidden.data(), scale, false, z);
      if (t < dv && bad_row == n) bad_row = i, bad_column = t;
    }
  }
  if (bad_row < n) throw_output_overflow(bad_row, bad_column);
}

}  // namespace attn
