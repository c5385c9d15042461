#pragma once
// Times attention on seeded random inputs, for the cost panel's "measured in your own browser":
// the explaining path (attention.hpp, which materialises every n×n matrix) or the fused
// streaming kernel (kernels/streaming_attention.hpp, FlashAttention's online softmax, which holds
// one tile of scores). Both do the same arithmetic, so their times grow alike; what differs is
// the memory. Timed in C++ with the monotonic clock behind std::chrono::steady_clock
// (performance.now() under Emscripten).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "limits.hpp"

namespace attn {

enum class TimedPath { explaining, streaming };

// 'explaining' or 'streaming'; throws attn::Error naming the choices otherwise.
TimedPath timed_path_from_string(std::string_view name);

// Counts are 64-bit, as a caller gives them, so that the range checks see the value itself.
struct TimingOptions {
  std::uint64_t n = 64;        // tokens, 1..limits::kMaxTimingN (n×n must fit the explaining path)
  std::uint64_t d = 64;        // d_k = d_v, 1..limits::kMaxCols
  std::uint64_t repeats = 1;   // 1..limits::kMaxTimingRepeats
  std::uint64_t seed = 0;
  TimedPath path = TimedPath::explaining;
};

struct TimingResult {
  // The fastest of `repeats` timed runs, in seconds per attention call. A run is `iterations`
  // back-to-back calls, as many as make it last kMinRunSeconds (one call when it is longer), so
  // a coarse clock (browsers round performance.now()) still gives a positive, useful time.
  double seconds = 0.0;
  std::size_t iterations = 1;
  // The attention scores the path holds at once, in float32: the explaining path's n×n matrix
  // (4·n²), the streaming kernel's score tile (4·kBlockRows·kBlockKeys, whatever n is).
  double attention_bytes = 0.0;
};

inline constexpr double kMinRunSeconds = 1e-3;

// Q, K, V are n×d normals from Rng(seed) (random.hpp), no mask. Throws attn::Error for options
// out of range.
TimingResult time_attention(const TimingOptions& options);

}  // namespace attn
