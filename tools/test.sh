#!/usr/bin/env bash
# npm test: install what is missing, build native and wasm, run every suite, print the counts.
#   1. doctest, native (CTest)
#   2. doctest as WebAssembly under Node, SIMD, relaxed-SIMD and scalar builds (CTest; the relaxed
#      build under Node 20's --experimental-wasm-relaxed-simd)
#   3. the JS API and the built modules under Node (node --test, with that flag: the three builds),
#      after tools/sites is built (its React and Vue types are the types test's)
#   4. the page and the JS module in headless Chromium (node --test + playwright-core)
#   4b. the same smoke checks in Debian's Firefox ESR, headless (puppeteer-core over WebDriver
#      BiDi), and in WebKitGTK's MiniBrowser under Xvfb (selenium-webdriver): tests/engines/
#   5. doctest, native, with AddressSanitizer + UndefinedBehaviorSanitizer and assertions on (CTest)
#   6. each libFuzzer harness of tests/fuzz/ over its seed corpus, then ATTN_FUZZ_SECONDS (30) of
#      fresh fuzzing, one harness a core at a time; each counts as one test, and the summary gives
#      its number of executions
# The summary gives each suite's time (a batch of fuzzers shares its batch's), the bootstrap's and
# each part of the build's.
# Every suite runs even if an earlier one fails; the exit code is non-zero if any failed. What
# failed is printed again just before the summary, so that the end of a long log says which test
# and why.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

started=$SECONDS
bash tools/bootstrap.sh || exit 1
bootstrap_seconds=$((SECONDS - started))
started=$SECONDS
bash tools/build.sh 2>&1 | tee "$logs/build.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || exit 1
build_seconds=$((SECONDS - started))
build_parts=$(grep -E '^\[build\] ' "$logs/build.log" | sed 's/^\[build\] /  build, /')

summary=()
total_pass=0
total_fail=0
status=0

suite_started=$SECONDS
begin() {  # begin <suite>: its heading, and the start of its clock
  echo; echo "=== $1 ==="
  suite_started=$SECONDS
}

failed_detail() {  # <report> | failed_detail <suite>: kept for the end, at most 80 lines, if any
  local report
  report=$(head -n 80)
  [[ -n $report ]] && printf -- '--- %s ---\n%s\n' "$1" "$report" >>"$logs/failures.txt"
  return 0
}

record() {  # record <suite> <passed> <failed> <exit code>, with the time since its begin
  summary+=("$(printf '%-40s %4d passed, %d failed  %5d s' "$1:" "$2" "$3" $((SECONDS - suite_started)))")
  total_pass=$((total_pass + $2))
  total_fail=$((total_fail + $3))
  if [[ $4 -ne 0 ]]; then
    status=1
    # A runner that crashed before counting still counts as a failure.
    [[ $3 -eq 0 ]] && total_fail=$((total_fail + 1))
  fi
}

run_ctest() {  # run_ctest <suite> <build dir>
  begin "$1"
  ctest --test-dir "$2" --output-on-failure -j"$jobs" 2>&1 | tee "$logs/ctest.log"
  local rc=${PIPESTATUS[0]}
  local line total failed
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$logs/ctest.log" | tail -1)
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line"); failed=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
  record "$1" $(( ${total:-0} - ${failed:-0} )) "${failed:-0}" "$rc"
  sed -n '/^The following tests FAILED:/,$p' "$logs/ctest.log" | failed_detail "$1"
}

run_node() {  # run_node <suite> [--test-concurrency=N] <test files...>
  local suite=$1; shift
  begin "$suite"
  node --test --test-reporter=spec "$@" 2>&1 | tee "$logs/node.log"
  local rc=${PIPESTATUS[0]}
  local passed failed
  passed=$(grep -E '^ℹ pass [0-9]+' "$logs/node.log" | tail -1 | grep -oE '[0-9]+')
  failed=$(grep -E '^ℹ fail [0-9]+' "$logs/node.log" | tail -1 | grep -oE '[0-9]+')
  record "$suite" "${passed:-0}" "${failed:-0}" "$rc"
  sed -n '/^✖ failing tests:/,$p' "$logs/node.log" | failed_detail "$suite"
}

run_fuzz() {  # run_fuzz <harness...>: tests/fuzz/run.sh for each at once, one test each with its executions
  begin "fuzz: $*"
  local harness pids=()
  for harness in "$@"; do
    bash tests/fuzz/run.sh "$harness" "${ATTN_FUZZ_SECONDS:-30}" >"$logs/fuzz-$harness.log" 2>&1 &
    pids+=($!)
  done
  local i rc runs
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"; rc=$?
    harness=${*:i+1:1}
    echo "--- fuzz $harness ---"
    # Without libFuzzer's progress lines, shown now and, for a harness that failed, at the end.
    grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$logs/fuzz-$harness.log" >"$logs/fuzz-$harness.shown"
    cat "$logs/fuzz-$harness.shown"
    runs=$(grep -E '^executions: [0-9]+' "$logs/fuzz-$harness.log" | tail -1 | grep -oE '[0-9]+')
    record "fuzz $harness (${runs:-0} executions)" $((rc == 0)) $((rc != 0)) "$rc"
    ((rc == 0)) || tail -n 40 "$logs/fuzz-$harness.shown" | failed_detail "fuzz $harness"
  done
}

run_ctest "doctest, native" build-native
run_ctest "doctest, wasm under Node" build-wasm
# The sites' generators and sites (tools/sites/, from the packed checkout; quick when nothing
# changed), before the JS suite: its types test compiles the tag against their React and Vue.
begin "the sites, from the packed package"
node tools/sites/build.mjs
sites_rc=$?
record "sites built (tools/sites)" $((sites_rc == 0)) $((sites_rc != 0)) "$sites_rc"
# A core for each file at a time: these files compute (the wasm modules under Node); node --test
# would run one at a time on two cores (it leaves one core free by default).
# Node 20 validates relaxed SIMD behind its flag only; node --test passes it to each file.
run_node "JS API under Node" --experimental-wasm-relaxed-simd --test-concurrency="$jobs" tests/js/*.test.mjs
# The page in Chromium, two files at a time: most of their time is the page's and the learner's
# pace (keys typed 100 ms apart, pauses that commit), not the processor's. The two files that time
# the page's answers to keystrokes while a worker trains or opens GPT-2 run after, alone.
# node --test starts the files in the order of their names, whatever order they are given in, so a
# long file late in that order runs alone at the end while the other slot idles: split such a file.
timed_alone=(tests/browser/learned-train.test.mjs tests/browser/gpt2-real-size.test.mjs)
browser_files=()
for file in tests/browser/*.test.mjs; do
  [[ " ${timed_alone[*]} " == *" $file "* ]] || browser_files+=("$file")
done
# Node with relaxed SIMD, as Chromium: the tests compare the page's numbers with the core's in Node.
run_node "page in headless Chromium" --experimental-wasm-relaxed-simd --test-concurrency="$jobs" "${browser_files[@]}"
run_node "page in Chromium, timed, alone" --experimental-wasm-relaxed-simd "${timed_alone[@]}"
# The two other engines side by side: each waits on its browser more than it computes.
run_node "page in Firefox and WebKit (Xvfb)" --test-concurrency=2 tests/engines/firefox.test.mjs tests/engines/webkit.test.mjs
run_ctest "doctest, ASan+UBSan, assertions on" build-asan
# The harnesses as many at once as there are cores, each for its full ATTN_FUZZ_SECONDS.
harnesses=()
for harness in tests/fuzz/fuzz_*.cpp; do
  harness=${harness#tests/fuzz/fuzz_}
  harnesses+=("${harness%.cpp}")
done
for ((i = 0; i < ${#harnesses[@]}; i += jobs)); do
  run_fuzz "${harnesses[@]:i:jobs}"
done

if [[ -s $logs/failures.txt ]]; then
  echo
  echo "=== what failed (each suite's report again) ==="
  cat "$logs/failures.txt"
fi
echo
echo "=== summary ==="
printf '%-40s %5d s\n' "bootstrap (tools/bootstrap.sh):" "$bootstrap_seconds" "build (tools/build.sh):" "$build_seconds"
[[ -n $build_parts ]] && printf '%s\n' "$build_parts"
printf '%s\n' "${summary[@]}"
printf '%-40s %5d s\n' "all of npm test:" "$SECONDS"
echo "total: $total_pass passed, $total_fail failed"
exit $status
