#pragma once
// A mul+add loop at the machine's vector width with enough independent accumulators to hide
// latency: the benchmark's measure of peak f32 throughput, taken in the same run as the
// kernels it rates. Not used by the attention code.
#include <cstddef>
#include <cstdint>

#include "simd.hpp"

namespace attn::kernels {

// Independent chains: a mul+add step has ~8 cycles of latency, and two vector units want two
// steps every cycle; 12 chains cover that and still fit in 16 vector registers.
inline constexpr std::size_t kPeakChains = 12;

// Runs `iterations` rounds of kPeakChains independent acc = acc·a + b updates and returns a
// value that depends on all of them (so the compiler keeps the loop).
// FLOPs: iterations · kPeakChains · kLanes · 2. Defined in peak.cpp, compiled with the kernels'
// optimisation, whatever the caller's (the wasm bindings are built for size). Throws attn::Error
// unless iterations is in 1..limits::kMaxPeakIterations.
float peak_mul_add(std::uint64_t iterations);

}  // namespace attn::kernels
