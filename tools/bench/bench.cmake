# The benchmark programs of `npm run bench` (tools/bench.mjs runs them), included by the
# top-level CMakeLists.txt in the native build (outside sanitized and fuzzing builds) and in the
# Emscripten build. Natively on the fastest core this machine builds: -march=native where the
# compiler takes it, else the portable one.
#   attn_bench_native   the streaming path, dense and causal, against the FMA peak
#   attn_profile        where a dense call's time goes: QKᵀ, the softmax step, P·V (profile.cpp),
#                       natively and, under Emscripten, as a Node program in bench/ (wasm SIMD)
if(NOT EMSCRIPTEN)
  set(bench_core attn_core)
  if(TARGET attn_core_native)
    set(bench_core attn_core_native)
  endif()
  add_executable(attn_bench_native tools/bench/native.cpp)
  target_link_libraries(attn_bench_native PRIVATE ${bench_core})
  target_compile_options(attn_bench_native PRIVATE ${ATTN_WARNINGS})
  add_executable(attn_profile tools/bench/profile.cpp)
  target_link_libraries(attn_profile PRIVATE ${bench_core})
  target_compile_options(attn_profile PRIVATE ${ATTN_WARNINGS})
else()
  add_executable(attn_profile_wasm tools/bench/profile.cpp)
  target_link_libraries(attn_profile_wasm PRIVATE attn_core)
  target_compile_options(attn_profile_wasm PRIVATE ${ATTN_WARNINGS})
  target_link_options(attn_profile_wasm PRIVATE -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1)
  # A CommonJS program in a folder of its own: the repository's package.json says "type": "module".
  set_target_properties(attn_profile_wasm PROPERTIES OUTPUT_NAME attn_profile
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bench")
  file(WRITE "${CMAKE_BINARY_DIR}/bench/package.json" "{ \"type\": \"commonjs\" }\n")
endif()
