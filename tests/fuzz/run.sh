#!/usr/bin/env bash
# Runs one libFuzzer harness (built by `tools/build.sh fuzz` into build-asan/, beside the sanitized
# doctest suite) over its committed seed corpus, tests/fuzz/corpus/<harness>/, then fuzzes for the
# given number of seconds.
#   tests/fuzz/run.sh <harness> [seconds]      e.g. tests/fuzz/run.sh attention 30
# New inputs go to build-asan/corpus/<harness>/ (kept between runs, never into the repository),
# crash reproducers to build-asan/artifacts/. The last line is "executions: N".
# Replay one input: build-asan/fuzz_<harness> <file>
# Exit code: 0, or libFuzzer's (non-zero on a crash, a failed check, a timeout or a leak).
set -uo pipefail
cd "$(dirname "$0")/../.."
harness=${1:?usage: tests/fuzz/run.sh <harness> [seconds]}
seconds=${2:-30}
exe=build-asan/fuzz_$harness
[[ -x $exe ]] || { echo "run.sh: $exe is missing; run tools/build.sh fuzz" >&2; exit 2; }
work=build-asan/corpus/$harness
mkdir -p "$work" build-asan/artifacts
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# -timeout: one input may take at most 60 s (the slowest seeds take about 1 s, a hull search
# over 65536 values about 4 s, item 6 took minutes); -rss_limit_mb: the largest shapes the decoder
# builds stay well under it; -entropic_scale_per_exec_time: fast inputs are mutated more often.
# UBSan reports are fatal (build flags).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$exe" "$work" "tests/fuzz/corpus/$harness" \
  -max_total_time="$seconds" -timeout=60 -rss_limit_mb=3072 -entropic_scale_per_exec_time=1 -print_final_stats=1 \
  -artifact_prefix="build-asan/artifacts/$harness-" 2>&1 | tee "$log" | grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)'
rc=${PIPESTATUS[0]}
echo "executions: $(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)"
exit "$rc"
