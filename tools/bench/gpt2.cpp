// GPT-2's forward pass at GPT-2 small's shape (12 layers, 12 heads, d 768, vocabulary 50,257,
// context 1,024) with random weights: the median ms of a run at 10, 64 and 256 tokens (wall clock
// and this thread's CPU time), its GFLOP/s and the share of this core's measured mul+add peak
// (kernels/peak.hpp, in CPU time too), one thread.
// Then (issue 38): a run with a head switched off at 10 tokens (and with the lens and an
// attribution too); decoding, ms per token with the KV cache at 64 and 256 tokens of context
// against re-reading the whole text each step; and this module's own read bandwidth over a 500 MB
// buffer (the fastest of 1, 2, 4 and 8 streams read side by side), with decoding's weight stream
// (every weight once per token) as a share of it.
// Not a test: timings are reported, never asserted. Built on the portable core (SSE2, the 4
// lanes of wasm SIMD) as attn_bench_gpt2 and on -march=native as attn_bench_gpt2_native.
//   attn_bench_gpt2 [--layers all] [--tokens N] [--only run,interventions,decode,bandwidth]
//   (default: no attention weights kept; 10, 64, 256; every part)
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "gpt2/decode.hpp"
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

// The median ms of one decoding step at about `context` tokens: a prompt of context − 1 tokens,
// one step to take the prompt's own guess, then `steps` timed steps, each reading one position
// (with the cache) or the whole text again (without).
double decode_ms(const attn::gpt2::Weights& w, std::size_t context, bool cache, int steps) {
  std::vector<std::int32_t> prompt(context - 1);
  for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = std::int32_t((i * 7919) % w.config.vocab_size);
  attn::gpt2::DecodeOptions o;
  o.max_new_tokens = std::uint64_t(steps) + 1;
  o.cache = cache;
  attn::gpt2::Decoder decoder(w, prompt, o);
  decoder.step();
  std::vector<double> ms;
  for (int s = 0; s < steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!decoder.step()) break;
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Reads every float of x once, as S sequential streams side by side (x cut into S parts, a vector
// of each read in turn into its own accumulator): the module's read bandwidth in GB/s, the
// fastest of `rounds`. One stream alone leaves the memory system idle between the prefetcher's
// requests; a product reading four rows of a weight matrix at once keeps more of them in flight,
// so the limit it is measured against must do the same.
template <std::size_t S>
double read_bandwidth(const attn::AlignedVector<float>& x, int rounds, volatile float& sink) {
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    float total = 0;
#if ATTN_SIMD
    using batch = xsimd::batch<float>;
    constexpr std::size_t L = batch::size;
    const std::size_t part = x.size() / S / L * L;
    std::array<batch, S> s;
    s.fill(batch(0.0f));
    for (std::size_t i = 0; i < part; i += L) {
      for (std::size_t q = 0; q < S; ++q) s[q] += batch::load_aligned(x.data() + q * part + i);
    }
    batch all(0.0f);
    for (const batch& v : s) all += v;
    total = xsimd::reduce_add(all);
    for (std::size_t i = S * part; i < x.size(); ++i) total += x[i];
#else
    for (float v : x) total += v;
#endif
    sink = sink + total;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, double(x.size() * sizeof(float)) / seconds / 1e9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  bool keep_all = false;
  const char* only = nullptr;
  std::vector<std::size_t> sizes = {10, 64, 256};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--layers") == 0) keep_all = std::strcmp(argv[i + 1], "all") == 0;
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
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
  const auto part = [&](const char* name) { return only == nullptr || std::strstr(only, name) != nullptr; };
  attn::gpt2::RunOptions options;
  if (!keep_all) options.layers = std::vector<std::uint64_t>{};
  if (!part("run")) sizes.clear();
  for (std::size_t n : sizes) {
    std::vector<std::int32_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = std::int32_t((i * 7919) % c.vocab_size);
    const Times t = measure([&] { sink = sink + attn::gpt2::run(w, ids, options).next[0].probability; }, n < 100 ? 9 : 5);
    const double flops = attn::gpt2::run_flops(c, n);
    std::printf("n %4zu: %8.2f ms wall (fastest %.2f), %8.2f ms CPU  %6.1f GFLOP/s (CPU)  %5.1f%% of peak  run_bytes %.1f MB\n",
                n, t.wall_ms, t.fastest_wall_ms, t.cpu_ms, flops / t.cpu_ms / 1e6, 100.0 * flops / t.cpu_ms / 1e6 / peak,
                double(attn::gpt2::run_bytes(c, n, keep_all ? c.layers : 0)) / 1e6);
  }

  if (part("interventions")) {
    // What the panel runs when a learner switches a head off: layer 5's weights kept, the head
    // ablated; then with the lens and an attribution as well.
    std::vector<std::int32_t> ids(10);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = std::int32_t((i * 7919) % c.vocab_size);
    attn::gpt2::RunOptions o;
    o.layers = std::vector<std::uint64_t>{5};
    const double plain = measure([&] { sink = sink + attn::gpt2::run(w, ids, o).next[0].probability; }, 9).wall_ms;
    o.ablate = {{5, 1, attn::gpt2::Ablation::zero}};
    const double ablated = measure([&] { sink = sink + attn::gpt2::run(w, ids, o).next[0].probability; }, 9).wall_ms;
    o.lens = true;
    o.attribute = 464;
    const double all = measure([&] { sink = sink + attn::gpt2::run(w, ids, o).next[0].probability; }, 9).wall_ms;
    std::printf("n   10, layer 5 kept: %8.2f ms plain, %8.2f ms with head 5.1 off, %8.2f ms with the lens and an attribution too\n",
                plain, ablated, all);
  }

  double cached_256 = 0;
  if (part("decode")) {
    for (std::size_t context : {64, 256}) {
      const double with_cache = decode_ms(w, context, true, 9);
      const double without = decode_ms(w, context, false, 3);
      if (context == 256) cached_256 = with_cache;
      std::printf("decode at %3zu tokens: %8.2f ms/token with the KV cache, %8.2f ms/token re-reading the text (%.1fx)\n",
                  context, with_cache, without, without / with_cache);
    }
  }

  if (part("bandwidth")) {
    // 500 MB, beside the model's 498 MB: the module's own read speed, against which decoding's
    // weight stream (every weight read once per token) is measured.
    attn::AlignedVector<float> buffer(500'000'000 / sizeof(float));
    for (std::size_t i = 0; i < buffer.size(); i += 1024) buffer[i] = float(i & 7);
    // The fastest of one, two, four and eight streams: the most this module can read.
    double gbs = 0;
    std::printf("read bandwidth over 500 MB:");
    const double by_streams[] = {read_bandwidth<1>(buffer, 5, sink), read_bandwidth<2>(buffer, 5, sink),
                                 read_bandwidth<4>(buffer, 5, sink), read_bandwidth<8>(buffer, 5, sink)};
    for (std::size_t i = 0; i < 4; ++i) {
      std::printf(" %d stream%s %.1f GB/s%s", 1 << i, i == 0 ? "" : "s", by_streams[i], i == 3 ? "" : ",");
      gbs = std::max(gbs, by_streams[i]);
    }
    const double weights = double(c.parameters ? c.parameters : w.wte.size() + w.wpe.size() + c.layers * (12 * d * d + 13 * d) + 2 * d) * 4.0;
    std::printf("; the fastest %.1f GB/s", gbs);
    if (cached_256 > 0) {
      const double stream = weights / (cached_256 / 1e3) / 1e9;
      std::printf("; decoding at 256 tokens streams %.0f MB of weights a token, %.1f GB/s: %.0f%% of it", weights / 1e6,
                  stream, 100.0 * stream / gbs);
    }
    std::printf("\n");
  }
  return 0;
}
