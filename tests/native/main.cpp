// The doctest runner. The same suite runs natively and, compiled with Emscripten, under Node
// for both the SIMD and the scalar WebAssembly builds.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "kernels/simd.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (!context.shouldExit()) {
    std::printf("[attention-calc] kernels: %s, vectors of %zu float(s)\n", attn::kernels::arch_name(),
                attn::kernels::kLanes);
  }
  return result;
}
