#include "tiled_attention.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "attention.hpp"
#include "error.hpp"
#include "limits.hpp"
#include "random.hpp"
#include "validate.hpp"

namespace attn {

namespace {

// The floats a path holds now and at most, as its buffers allocate and free them.
struct FloatCount {
  std::size_t now = 0, peak = 0;
};

// std::allocator, counting into a FloatCount: the paths' buffers are vectors of it, so a peak is
// what the path really allocated.
template <class T>
struct CountingAllocator {
  using value_type = T;
  FloatCount* count;
  explicit CountingAllocator(FloatCount* c) : count(c) {}
  template <class U>
  CountingAllocator(const CountingAllocator<U>& other) : count(other.count) {}  // NOLINT: rebinding, as allocators do
  T* allocate(std::size_t n) {
    count->now += n;
    count->peak = std::max(count->peak, count->now);
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) {
    count->now -= n;
    std::allocator<T>().deallocate(p, n);
  }
  friend bool operator==(const CountingAllocator& a, const CountingAllocator& b) { return a.count == b.count; }
};

using Counted = std::vector<float, CountingAllocator<float>>;

float dot(const float* a, const float* b, std::size_t d) {
  float s = 0.0f;
  for (std::size_t t = 0; t < d; ++t) s += a[t] * b[t];
  return s;
}

// The keys query i reads: all of them, or 0..i under the causal mask.
std::size_t visible_keys(std::size_t i, std::size_t m, bool causal) { return causal ? std::min(m, i + 1) : m; }

// The plain path: every score of a row at once (the n×m matrix), softmax in place, then Z. Only
// its peak is kept: the lab compares the floats it needs with the tiled path's.
std::size_t plain_peak(const MatrixView& q, const MatrixView& k, const MatrixView& v, float scale, bool causal) {
  FloatCount count;
  {
    const std::size_t n = q.rows, m = k.rows;
    Counted scores(n * m, 0.0f, CountingAllocator<float>(&count));
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t seen = visible_keys(i, m, causal);
      float* row = scores.data() + i * m;
      for (std::size_t j = 0; j < seen; ++j) row[j] = dot(q.row(i), k.row(j), q.cols) * scale;
      const float max = *std::max_element(row, row + seen);
      float sum = 0.0f;
      for (std::size_t j = 0; j < seen; ++j) sum += (row[j] = std::exp(row[j] - max));
      for (std::size_t j = 0; j < seen; ++j) row[j] /= sum;
    }
    Counted z(n * v.cols, 0.0f, CountingAllocator<float>(&count));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < visible_keys(i, m, causal); ++j) {
        for (std::size_t c = 0; c < v.cols; ++c) z[i * v.cols + c] += scores[i * m + j] * v(j, c);
      }
    }
  }
  return count.peak;
}

// The tiled path over every row: r gets the output, the skipped tiles and the peak, and each step's
// state when record is set (the lab's stepper); without it, only what the path itself holds.
void tiled_run(const MatrixView& q, const MatrixView& k, const MatrixView& v, std::size_t tile, bool causal, float scale,
               bool record, TiledResult& r) {
  const std::size_t n = q.rows, m = k.rows, dv = v.cols;
  FloatCount count;
  {
    // What the tiled path holds: one tile of scores, and a running max, sum and output per row.
    Counted scores(tile, 0.0f, CountingAllocator<float>(&count));
    Counted max(n, -INFINITY, CountingAllocator<float>(&count)), sum(n, 0.0f, CountingAllocator<float>(&count));
    Counted out(n * dv, 0.0f, CountingAllocator<float>(&count));
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t seen = visible_keys(i, m, causal);
      float* o = out.data() + i * dv;
      for (std::size_t start = 0; start < m; start += tile) {
        const std::size_t end = std::min(m, start + tile);
        if (start >= seen) {  // every key of the tile is after the row: never read
          ++r.skipped;
          continue;
        }
        const std::size_t last = std::min(end, seen);
        float tile_max = -INFINITY;
        for (std::size_t j = start; j < last; ++j) tile_max = std::max(tile_max, scores[j - start] = dot(q.row(i), k.row(j), q.cols) * scale);
        const float m_new = std::max(max[i], tile_max);
        const float rescale = std::exp(max[i] - m_new);  // 0 at the first tile (m_old = −∞, nothing to rescale)
        sum[i] *= rescale;
        for (std::size_t c = 0; c < dv; ++c) o[c] *= rescale;
        for (std::size_t j = start; j < last; ++j) {
          const float e = std::exp(scores[j - start] - m_new);
          sum[i] += e;
          for (std::size_t c = 0; c < dv; ++c) o[c] += e * v(j, c);
        }
        max[i] = m_new;
        if (!record) continue;
        TileStep step;
        step.row = i;
        step.start = start;
        step.end = end;
        step.scores.assign(scores.begin(), scores.begin() + std::ptrdiff_t(last - start));
        step.max = m_new;
        step.rescale = rescale;
        step.sum = sum[i];
        step.output.resize(dv);
        for (std::size_t c = 0; c < dv; ++c) step.output[c] = o[c] / sum[i];
        r.tiles.push_back(std::move(step));
      }
    }
    r.output = Matrix(n, dv);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < dv; ++c) r.output(i, c) = out[i * dv + c] / sum[i];
    }
  }
  r.peak_floats = count.peak;
}

}  // namespace

TiledResult tiled_attention(const MatrixView& q, const MatrixView& k, const MatrixView& v, std::size_t tile, bool causal) {
  validate_attention_inputs(q, k, v);
  const std::size_t n = q.rows, m = k.rows, dv = v.cols;
  validate_range("tile", tile, 1, m);
  // Every step keeps its scores and its running output for the lab: at most as many floats as
  // one n×m matrix may hold, so a tile of 1 at a long length is refused rather than kept.
  const std::uint64_t kept = std::uint64_t(n) * ((m + tile - 1) / tile) * (dv + 4) + std::uint64_t(n) * m;
  if (kept > limits::kMaxScoreEntries) {
    throw Error("the steps of " + count(n, "query row", "query rows") + " over tiles of " + std::to_string(tile) + " keys would keep " +
                std::to_string(kept) + " numbers, over the limit of " + std::to_string(limits::kMaxScoreEntries) +
                ": use a larger tile or fewer tokens");
  }
  const float scale = 1.0f / std::sqrt(float(q.cols));  // as attention()'s

  TiledResult r;
  tiled_run(q, k, v, tile, causal, scale, true, r);
  r.full_peak_floats = plain_peak(q, k, v, scale, causal);
  return r;
}

PeakFloats attention_peak_floats(std::size_t n, std::size_t d, std::size_t dv, std::size_t tile, bool causal, std::uint64_t seed) {
  validate_range("n", n, 1, limits::kMaxPeakTokens);
  validate_range("d", d, 1, limits::kMaxCols);
  validate_range("d_v", dv, 1, limits::kMaxCols);
  validate_range("tile", tile, 1, n);
  // Seeded N(0, 1) inputs: the peaks do not depend on the numbers, but the paths run on real ones.
  Rng rng(seed);
  Matrix q(n, d), k(n, d), v(n, dv);
  fill_normal(q.data.data(), q.data.size(), rng);
  fill_normal(k.data.data(), k.data.size(), rng);
  fill_normal(v.data.data(), v.data.size(), rng);
  const float scale = 1.0f / std::sqrt(float(d));
  TiledResult r;
  tiled_run(q, k, v, tile, causal, scale, false, r);
  return {r.peak_floats, plain_peak(q, k, v, scale, causal)};
}

}  // namespace attn
