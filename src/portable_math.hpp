#pragma once
// exp, ln, sin and cos in double from IEEE arithmetic alone (+, −, ×, ÷, floor, frexp, ldexp: all exact
// or exactly rounded), for the labs: the seeded sampler, the √d_k experiment's softmax and
// entropies, and the float64 reference of the verified badge.
// Why not std::exp and std::log: the C libraries may differ in the last bit (glibc natively,
// musl under Emscripten), which would break "the same numbers for a seed on every platform";
// and musl's table-driven versions add about 8 KB of tables to each WebAssembly build, which
// the 150 KB budget of issue 4 cannot spare (musl's sin and cos bring a 2/π table too). Both are within 2 ulp of the correctly rounded
// result (tested against the C library). Compiled with -ffp-contract=off (see CMakeLists.txt).
namespace attn {

// ln(x) for finite x > 0; -inf for x = 0.
double portable_log(double x);

// e^x; 0 for x = -inf or below about -745, +inf above about 709.8.
double portable_exp(double x);

// sin x and cos x together, for |x| < 2²⁰·π/2 (positions' angles: position × frequency); within
// 1e-15 of the C library there.
struct SinCos {
  double sin, cos;
};
SinCos portable_sin_cos(double x);

}  // namespace attn
