// The native half of the benchmark (run by tools/bench.mjs): this machine's FMA peak, measured
// with the same xsimd code as the kernels, and the streaming attention path, dense and causal,
// one thread, d = 64: the median of 7 rounds and their spread. Prints one JSON object.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string_view>
#include <vector>

#include "kernels/peak.hpp"
#include "kernels/simd.hpp"
#include "kernels/streaming_attention.hpp"
#include "timing.hpp"

using bench::Timing;

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string_view(argv[1]) == "--quick";
  volatile float sink = 0.0f;  // keeps the peak loop's result alive
  const std::size_t iterations = 20'000'000;
  // A peak is the best the loop can do: its fastest round, so that a busy moment cannot make it
  // look low and a kernel look above it.
  const double peak_ms = bench::time_ms([&] { sink = sink + attn::kernels::peak_mul_add(iterations); }, 50.0).fastest_ms;
  const double peak = double(iterations * attn::kernels::kPeakChains * attn::kernels::kLanes * 2) / peak_ms / 1e6;

  std::printf("{\"arch\": \"%s\", \"lanes\": %zu, \"peak\": %.3f, \"rows\": [", attn::kernels::arch_name(),
              attn::kernels::kLanes, peak);
  const std::size_t d = 64;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  bool first = true;
  for (std::size_t n : {64, 256, 1024, 2048, 4096}) {
    if (quick && n > 1024) break;
    std::vector<float> q(n * d), k(n * d), v(n * d), out(n * d);
    for (auto* x : {&q, &k, &v}) std::generate(x->begin(), x->end(), [&] { return uniform(rng); });
    attn::StreamingWorkspace ws;
    for (bool causal : {false, true}) {
      const Timing t = bench::time_ms([&] { attn::attention_output(q.data(), k.data(), v.data(), {n, n, d, d}, causal, out.data(), ws); }, 50.0);
      std::printf("%s{\"n\": %zu, \"causal\": %s, \"ms\": %.6f, \"spread\": %.4f}", first ? "" : ", ", n,
                  causal ? "true" : "false", t.median_ms, t.spread);
      first = false;
    }
  }
  std::printf("]}\n");
  return 0;
}
