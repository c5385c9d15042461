#include "timing.hpp"

#include <ctime>
#include <string>

#include "attention.hpp"
#include "error.hpp"
#include "kernels/streaming_attention.hpp"
#include "limits.hpp"
#include "random.hpp"
#include "validate.hpp"

namespace attn {

namespace {

Matrix normals(std::size_t rows, std::size_t cols, Rng& rng) {
  Matrix m(rows, cols);
  fill_normal(m.data.data(), m.data.size(), rng);
  return m;
}

// The monotonic clock that std::chrono::steady_clock reads in both libstdc++ and libc++
// (performance.now() under Emscripten). Read directly: libc++'s steady_clock::now() can throw
// std::system_error, which links strerror's message table (2 KB) into the wasm builds.
double monotonic_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

}  // namespace

TimedPath timed_path_from_string(std::string_view name) {
  if (name == "explaining") return TimedPath::explaining;
  if (name == "streaming") return TimedPath::streaming;
  throw Error("path must be 'explaining' or 'streaming' (got " + quoted(name) + ")");
}

TimingResult time_attention(const TimingOptions& options) {
  validate_range("n", options.n, 1, limits::kMaxTimingN);
  validate_range("d", options.d, 1, limits::kMaxCols);
  validate_range("repeats", options.repeats, 1, limits::kMaxTimingRepeats);
  const auto n = std::size_t(options.n), d = std::size_t(options.d);  // in range, so each fits a size_t
  Rng rng(options.seed);
  const Matrix q = normals(n, d, rng);
  const Matrix k = normals(n, d, rng);
  const Matrix v = normals(n, d, rng);

  const bool streaming = options.path == TimedPath::streaming;
  // The streaming kernel's output and workspace, sized by the first call: the timed calls
  // allocate nothing, as in the flat output call the page uses.
  AlignedVector<float> out(streaming ? n * d : 0);
  StreamingWorkspace workspace;
  const OutputShape shape{n, n, d, d};
  const auto run = [&](std::size_t iterations) {
    const double start = monotonic_seconds();
    for (std::size_t i = 0; i < iterations; ++i) {
      if (streaming) {
        attention_output(q.data.data(), k.data.data(), v.data.data(), shape, false, out.data(), workspace);
      } else {
        const AttentionResult r = attention(q, k, v);
        // Keep the result observable so no call is optimised away.
        if (r.output.data.empty()) throw Error("attention returned nothing");
      }
    }
    return monotonic_seconds() - start;
  };

  TimingResult result;
  // Calibrate: double the calls per run until a run lasts kMinRunSeconds.
  double elapsed = run(1);
  while (elapsed < kMinRunSeconds) {
    result.iterations *= 2;
    elapsed = run(result.iterations);
  }
  double best = elapsed;
  for (std::uint64_t r = 1; r < options.repeats; ++r) {
    const double t = run(result.iterations);
    if (t > 0.0 && t < best) best = t;
  }
  result.seconds = best / double(result.iterations);
  // The streaming kernel's score tile as its workspace holds it, not a formula.
  result.attention_bytes = streaming ? 4.0 * double(workspace.scores.size()) : 4.0 * double(n) * double(n);
  return result;
}

}  // namespace attn
