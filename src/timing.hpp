#pragma once
// Times the explaining attention path (attention.hpp, which materialises every n×n matrix) on
// seeded random inputs, for the cost panel's "measured in your own browser". Timed in C++ with
// the monotonic clock behind std::chrono::steady_clock (performance.now() under Emscripten).
#include <cstddef>
#include <cstdint>

#include "limits.hpp"

namespace attn {

// Counts are 64-bit, as a caller gives them, so that the range checks see the value itself.
struct TimingOptions {
  std::uint64_t n = 64;        // tokens, 1..limits::kMaxTimingN (n×n must fit the explaining path)
  std::uint64_t d = 64;        // d_k = d_v, 1..limits::kMaxCols
  std::uint64_t repeats = 1;   // 1..limits::kMaxTimingRepeats
  std::uint64_t seed = 0;
};

struct TimingResult {
  // The fastest of `repeats` timed runs, in seconds per attention call. A run is `iterations`
  // back-to-back calls, as many as make it last kMinRunSeconds (one call when it is longer), so
  // a coarse clock (browsers round performance.now()) still gives a positive, useful time.
  double seconds = 0.0;
  std::size_t iterations = 1;
  double attention_bytes = 0.0;  // one n×n float32 attention matrix: 4·n²
};

inline constexpr double kMinRunSeconds = 1e-3;

// Q, K, V are n×d normals from Rng(seed) (random.hpp), no mask. Throws attn::Error for options
// out of range.
TimingResult time_attention(const TimingOptions& options);

}  // namespace attn
