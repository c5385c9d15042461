// GPT-2's forward pass at GPT-2 small's shape (12 layers, 12 heads, d 768, vocabulary 50,257,
// context 1,024) with random weights: the median ms of a run at 10, 64 and 256 tokens (wall clock
// and this thread's CPU time), its GFLOP/s and the share of this core's measured mul+add peak
// (kernels/peak.hpp, in CPU time too), one thread.
// Not a test: timings are reported, never asserted. Built on the portable core (SSE2, the 4
// lanes of wasm SIMD) as attn_bench_gpt2 and on -march=native as attn_bench_gpt2_native.
//   attn_bench_gpt2 [--layers all] [--tokens N]   (default: no attention weights kept; 10, 64, 256)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "gpt2/forward.hpp"
#include "kernels/peak.hpp"
#include "kernels/simd.hpp"

namespace {

void fill(std::mt19937& rng, attn::AlignedVector<float>& v, std::size_t n, float scale) {
  std::uniform_real_distribution<float> u(-scale, scale);
  v.resize(n);
  for (float& x : v) x = u(rng);
}

// The median over `rounds` runs of the wall-clock ms and of this thread's CPU ms: on a machine
// that other work shares, the CPU time counts only the time this thread ran.
struct Times {
  double wall_ms, cpu_ms, fastest_wall_ms;
};
template <class F>
Times measure(F&& f, int rounds) {
  f();
  std::vector<double> wall, cpu;
  for (int r = 0; r < rounds; ++r) {
    timespec c0{}, c1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
#if defined(__EMSCRIPTEN__)
    cpu.push_back(wall.back());  // no thread CPU clock under Node: the wall clock
#else
    cpu.push_back(double(c1.tv_sec - c0.tv_sec) * 1e3 + double(c1.tv_nsec - c0.tv_nsec) / 1e6);
#endif
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2], wall.front()};
}

}  // namespace

int main(int argc, char** argv) {
  bool keep_all = false;
  std::vector<std::size_t> sizes = {10, 64, 256};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--layers") == 0) keep_all = std::strcmp(argv[i + 1], "all") == 0;
    if (std::strcmp(argv[i], "--tokens") == 0) sizes = {std::size_t(std::strtoul(argv[i + 1], nullptr, 10))};
  }
  attn::gpt2::Weights w;
  auto& c = w.config;
  c.layers = 12;
  c.heads = 12;
  c.d_model = 768;
  c.context = 1024;
  c.vocab_size = 50257;
  const std::size_t d = c.d_model;
  std::mt19937 rng(26);
  fill(rng, w.wte, c.vocab_size * d, 0.1f);
  fill(rng, w.wpe, c.context * d, 0.02f);
  w.blocks.resize(c.layers);
  for (auto& b : w.blocks) {
    fill(rng, b.ln1_weight, d, 1.0f);
    fill(rng, b.ln1_bias, d, 0.1f);
    fill(rng, b.attn_weight, 3 * d * d, 0.05f);
    fill(rng, b.attn_bias, 3 * d, 0.1f);
    fill(rng, b.proj_weight, d * d, 0.03f);
    fill(rng, b.proj_bias, d, 0.1f);
    fill(rng, b.ln2_weight, d, 1.0f);
    fill(rng, b.ln2_bias, d, 0.1f);
    fill(rng, b.fc_weight, 4 * d * d, 0.05f);
    fill(rng, b.fc_bias, 4 * d, 0.1f);
    fill(rng, b.mlp_proj_weight, 4 * d * d, 0.02f);
    fill(rng, b.mlp_proj_bias, d, 0.1f);
  }
  fill(rng, w.lnf_weight, d, 1.0f);
  fill(rng, w.lnf_bias, d, 0.1f);

  volatile float sink = 0.0f;
  const std::size_t iterations = 20'000'000;
  const double peak_ms = measure([&] { sink = sink + attn::kernels::peak_mul_add(iterations); }, 7).cpu_ms;
  const double peak = double(iterations * attn::kernels::kPeakChains * attn::kernels::kLanes * 2) / peak_ms / 1e6;
  std::printf("kernels: %s, %zu lanes; mul+add peak %.1f GFLOP/s; attention weights kept: %s\n",
              attn::kernels::arch_name(), attn::kernels::kLanes, peak, keep_all ? "all layers" : "none");
  attn::gpt2::RunOptions options;
  if (!keep_all) options.layers = std::vector<std::uint64_t>{};
  for (std::size_t n : sizes) {
    std::vector<std::int32_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = std::int32_t((i * 7919) % c.vocab_size);
    const Times t = measure([&] { sink = sink + attn::gpt2::run(w, ids, options).next[0].probability; }, n < 100 ? 9 : 5);
    const double flops = attn::gpt2::run_flops(c, n);
    std::printf("n %4zu: %8.2f ms wall (fastest %.2f), %8.2f ms CPU  %6.1f GFLOP/s (CPU)  %5.1f%% of peak  run_bytes %.1f MB\n",
                n, t.wall_ms, t.fastest_wall_ms, t.cpu_ms, flops / t.cpu_ms / 1e6, 100.0 * flops / t.cpu_ms / 1e6 / peak,
                double(attn::gpt2::run_bytes(c, n, keep_all ? c.layers : 0)) / 1e6);
  }
  return 0;
}
