# The benchmark programs of `npm run bench` (tools/bench.mjs runs them), included by the
# top-level CMakeLists.txt in the native build (outside sanitized and fuzzing builds) and in the
# Emscripten build. Natively on the fastest core this machine builds: -march=native where the
# compiler takes it, else the portable one.
if(NOT EMSCRIPTEN)
  set(bench_core attn_core)
  if(TARGET attn_core_native)
    set(bench_core attn_core_native)
  endif()
  add_executable(attn_bench_native tools/bench/native.cpp)
  target_link_libraries(attn_bench_native PRIVATE ${bench_core})
  target_compile_options(attn_bench_native PRIVATE ${ATTN_WARNINGS})
endif()
