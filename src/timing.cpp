#include "timing.hpp"

#include <chrono>
#include <string>

#include "attention.hpp"
#include "error.hpp"
#include "limits.hpp"
#include "random.hpp"
#include "validate.hpp"

namespace attn {

namespace {

Matrix normals(std::size_t rows, std::size_t cols, Rng& rng) {
  Matrix m(rows, cols);
  for (float& x : m.data) x = float(rng.normal());
  return m;
}

}  // namespace

TimingResult time_attention(const TimingOptions& options) {
  validate_range("n", options.n, 1, kMaxTimingN);
  validate_range("d", options.d, 1, limits::kMaxCols);
  validate_range("repeats", options.repeats, 1, kMaxTimingRepeats);
  Rng rng(options.seed);
  const Matrix q = normals(options.n, options.d, rng);
  const Matrix k = normals(options.n, options.d, rng);
  const Matrix v = normals(options.n, options.d, rng);

  using clock = std::chrono::steady_clock;
  const auto run = [&](std::size_t iterations) {
    const auto start = clock::now();
    for (std::size_t i = 0; i < iterations; ++i) {
      const AttentionResult r = attention(q, k, v);
      // Keep the result observable so no call is optimised away.
      if (r.output.data.empty()) throw Error("attention returned nothing");
    }
    return std::chrono::duration<double>(clock::now() - start).count();
  };

  TimingResult result;
  // Calibrate: double the calls per run until a run lasts kMinRunSeconds.
  double elapsed = run(1);
  while (elapsed < kMinRunSeconds) {
    result.iterations *= 2;
    elapsed = run(result.iterations);
  }
  double best = elapsed;
  for (std::size_t r = 1; r < options.repeats; ++r) {
    const double t = run(result.iterations);
    if (t > 0.0 && t < best) best = t;
  }
  result.seconds = best / double(result.iterations);
  result.attention_bytes = 4.0 * double(options.n) * double(options.n);
  return result;
}

}  // namespace attn
