# The benchmark programs of `npm run bench` (tools/bench.mjs runs them), included by the
# top-level CMakeLists.txt in the native build (outside sanitized and fuzzing builds) and in the
# Emscripten build. Natively on the fastest core this machine builds: -march=native where the
# compiler takes it, else the portable one.
#   attn_bench_native   the streaming path, dense and causal, against the FMA peak
#   attn_bench_gpt2     GPT-2's forward pass at GPT-2 small's shape, random weights (and _native)
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
  # GPT-2's forward pass at GPT-2 small's shape (tools/bench/gpt2.cpp): on the portable core (4
  # lanes, as wasm SIMD) and on the native one.
  foreach(gpt2 attn_gpt2 attn_gpt2_native)
    if(TARGET ${gpt2})
      string(REPLACE "attn_gpt2" "attn_bench_gpt2" bench ${gpt2})
      add_executable(${bench} tools/bench/gpt2.cpp)
      target_link_libraries(${bench} PRIVATE ${gpt2})
      target_compile_options(${bench} PRIVATE ${ATTN_WARNINGS})
    endif()
  endforeach()
  add_executable(attn_profile tools/bench/profile.cpp)
  target_link_libraries(attn_profile PRIVATE ${bench_core})
  target_compile_options(attn_profile PRIVATE ${ATTN_WARNINGS})
  # Not in `all`, which npm test builds and never runs them: `tools/build.sh native` (npm run
  # bench) builds them by this name.
  set(benchmarks attn_bench_native attn_profile)
  foreach(bench attn_bench_gpt2 attn_bench_gpt2_native)
    if(TARGET ${bench})
      list(APPEND benchmarks ${bench})
    endif()
  endforeach()
  set_target_properties(${benchmarks} PROPERTIES EXCLUDE_FROM_ALL ON)
  add_custom_target(attn_benchmarks)
  add_dependencies(attn_benchmarks ${benchmarks})
else()
  add_executable(attn_profile_wasm tools/bench/profile.cpp)
  target_link_libraries(attn_profile_wasm PRIVATE attn_core)
  target_compile_options(attn_profile_wasm PRIVATE ${ATTN_WARNINGS})
  target_link_options(attn_profile_wasm PRIVATE -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1)
  # A CommonJS program in a folder of its own: the repository's package.json says "type": "module".
  set_target_properties(attn_profile_wasm PROPERTIES OUTPUT_NAME attn_profile
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bench")
  file(WRITE "${CMAKE_BINARY_DIR}/bench/package.json" "{ \"type\": \"commonjs\" }\n")
  # GPT-2's forward pass in wasm SIMD, as a Node program: bench/attn_bench_gpt2.js (GPT-2
  # small's 498 MB of weights need the heap to grow past 2 GB's default cap).
  add_executable(attn_bench_gpt2_wasm tools/bench/gpt2.cpp)
  target_link_libraries(attn_bench_gpt2_wasm PRIVATE attn_gpt2)
  target_compile_options(attn_bench_gpt2_wasm PRIVATE ${ATTN_WARNINGS})
  target_link_options(attn_bench_gpt2_wasm PRIVATE -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1
    -sMAXIMUM_MEMORY=4GB -sEXIT_RUNTIME=1)
  set_target_properties(attn_bench_gpt2_wasm PROPERTIES OUTPUT_NAME attn_bench_gpt2
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bench")
  # Not in `all`: the scripts that run them build them by name (tools/bench.mjs,
  # tools/bench/gpt2-decode.mjs).
  set_target_properties(attn_profile_wasm attn_bench_gpt2_wasm PROPERTIES EXCLUDE_FROM_ALL ON)
endif()
