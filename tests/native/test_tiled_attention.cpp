// FlashAttention's online softmax step by step (tiled_attention.hpp): the output after the last
// tile is the plain softmax's, for every tile size, with and without the causal mask, on odd
// shapes; each step's running max and sum are those of the keys seen so far, in float64; and the
// floats each path held are what its buffers allocated.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "attention.hpp"
#include "error.hpp"
#include "support/compare.hpp"
#include "support/seed.hpp"
#include "tiled_attention.hpp"

using attn::Matrix;

TEST_CASE("the tiled online softmax equals the full softmax for every tile size, masked or not, on odd shapes") {
  ATTN_SEEDED_RANDOM(rng, 4101);
  for (int trial = 0; trial < 12; ++trial) {
    const std::size_t n = 1 + rng.index(9), d = 1 + rng.index(7), dv = 1 + rng.index(5);
    const bool causal = rng.coin(0.5);
    const Matrix q = rng.matrix(n, d, -3.0f, 3.0f), k = rng.matrix(n, d, -3.0f, 3.0f), v = rng.matrix(n, dv);
    attn::AttentionOptions o;
    if (causal) o.mask = attn::Mask::causal();
    const auto full = attn::attention(q, k, v, o);
    for (std::size_t tile = 1; tile <= n; ++tile) {
      CAPTURE(trial); CAPTURE(n); CAPTURE(d); CAPTURE(dv); CAPTURE(causal); CAPTURE(tile);
      const auto r = attn::tiled_attention(q, k, v, tile, causal);
      CHECK(testsupport::compare_matrix(r.output.data, std::vector<double>(full.output.data.begin(), full.output.data.end()), n, dv,
                                        {1e-6, 1e-6}, "tiled output") == "");
      // Each row's last step shows the finished row.
      for (std::size_t i = 0; i < n; ++i) {
        const attn::TileStep* last = nullptr;
        for (const auto& s : r.tiles) if (s.row == i) last = &s;
        REQUIRE(last != nullptr);
        for (std::size_t c = 0; c < dv; ++c) CHECK(last->output[c] == r.output(i, c));
      }
      // Tiles: ⌈n / tile⌉ a row, those wholly after the row skipped under the mask.
      const std::size_t per_row = (n + tile - 1) / tile;
      std::size_t skipped = 0;
      for (std::size_t i = 0; causal && i < n; ++i) skipped += per_row - ((i + 1 + tile - 1) / tile);
      CHECK(r.skipped == skipped);
      CHECK(r.tiles.size() + r.skipped == n * per_row);
      // The floats held: one tile of scores, m and ℓ and the output per row; the plain path the n×n scores and Z.
      CHECK(r.peak_floats == tile + 2 * n + n * dv);
      CHECK(r.full_peak_floats == n * n + n * dv);
    }
  }
}

TEST_CASE("each step's running max, sum and rescale are the float64 values over the keys seen so far") {
  ATTN_SEEDED_RANDOM(rng, 4102);
  const std::size_t n = 7, d = 3, dv = 2, tile = 3;
  const Matrix q = rng.matrix(n, d, -4.0f, 4.0f), k = rng.matrix(n, d, -4.0f, 4.0f), v = rng.matrix(n, dv);
  const auto r = attn::tiled_attention(q, k, v, tile, false);
  double previous_max = -INFINITY;
  std::size_t previous_row = n;
  for (const auto& s : r.tiles) {
    CAPTURE(s.row); CAPTURE(s.start);
    if (s.row != previous_row) previous_max = -INFINITY;
    double max = -INFINITY, sum = 0.0;
    std::vector<double> scores;
    for (std::size_t j = 0; j < s.end; ++j) {
      double dot = 0.0;
      for (std::size_t t = 0; t < d; ++t) dot += double(q(s.row, t)) * double(k(j, t));
      scores.push_back(dot / std::sqrt(double(d)));
      max = std::max(max, scores.back());
    }
    for (double x : scores) sum += std::exp(x - max);
    CHECK(double(s.max) == doctest::Approx(max).epsilon(1e-6));
    CHECK(double(s.sum) == doctest::Approx(sum).epsilon(1e-5));
    CHECK(double(s.rescale) == doctest::Approx(std::exp(previous_max - max)).epsilon(1e-5));
    CHECK(s.scores.size() == s.end - s.start);
    previous_max = max;
    previous_row = s.row;
  }
}

TEST_CASE("tiled attention refuses a tile out of range, in words") {
  const Matrix q(3, 2, 0.5f);
  CHECK_THROWS_WITH_AS(attn::tiled_attention(q, q, q, 0, false), "tile must be a whole number from 1 to 3 (got 0)", attn::Error);
  CHECK_THROWS_WITH_AS(attn::tiled_attention(q, q, q, 4, true), "tile must be a whole number from 1 to 3 (got 4)", attn::Error);
  const Matrix big(1024, 64, 0.01f);
  CHECK_THROWS_AS(attn::tiled_attention(big, big, big, 1, false), attn::Error);
}

TEST_CASE("the memory curve's peaks are what each path's allocator counted, as tiled_attention's on the same shape") {
  // attention_peak_floats runs both paths on seeded inputs without keeping the steps: its peaks
  // are those tiled_attention's allocator counts for inputs of the same shape, mask and tile.
  ATTN_SEEDED_RANDOM(rng, 4102);
  for (const std::size_t n : {1u, 5u, 64u}) {
    for (const std::size_t tile : {std::size_t{1}, (n + 1) / 2, n}) {
      for (const bool causal : {false, true}) {
        CAPTURE(n); CAPTURE(tile); CAPTURE(causal);
        const Matrix q = rng.matrix(n, 8), k = rng.matrix(n, 8), v = rng.matrix(n, 3);
        const auto stepped = attn::tiled_attention(q, k, v, tile, causal);
        const auto peaks = attn::attention_peak_floats(n, 8, 3, tile, causal, 7);
        CHECK(peaks.tiled == stepped.peak_floats);
        CHECK(peaks.plain == stepped.full_peak_floats);
      }
    }
  }
  // Doubling n at d = 64: the plain path's floats grow threefold and more, toward fourfold (its n²
  // scores outgrow Z's n·d_v), the tiled path's about twofold (m, ℓ and O per row).
  std::size_t last_plain = 0, last_tiled = 0;
  for (std::size_t n = 64; n <= 1024; n *= 2) {
    const auto p = attn::attention_peak_floats(n, 64, 64, 64, false, 1);
    CAPTURE(n);
    CHECK(p.tiled < p.plain);
    if (last_plain != 0) {
      CHECK(double(p.plain) / double(last_plain) >= 3.0);
      CHECK(double(p.tiled) / double(last_tiled) < 2.1);
    }
    last_plain = p.plain;
    last_tiled = p.tiled;
  }
}

TEST_CASE("the memory curve refuses what it cannot run, in words") {
  CHECK_THROWS_WITH_AS(attn::attention_peak_floats(0, 64, 64, 1, false, 1), "n must be a whole number from 1 to 4096 (got 0)", attn::Error);
  CHECK_THROWS_WITH_AS(attn::attention_peak_floats(65536, 64, 64, 64, false, 1), "n must be a whole number from 1 to 4096 (got 65536)",
                       attn::Error);
  CHECK_THROWS_WITH_AS(attn::attention_peak_floats(64, 64, 64, 65, false, 1), "tile must be a whole number from 1 to 64 (got 65)", attn::Error);
}
