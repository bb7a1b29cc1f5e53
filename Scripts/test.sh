#!/usr/bin/env bash
# Builds the suite and runs it in test processes side by side, one per core by default.
#
# `swift test` runs the test classes one after another in one process, and much of their time
# waits on something (a live stream sent in real time, a broker, a Ray cluster, ffmpeg or Python
# on one thread), so a second process fills the cores. Each class runs whole, in its order, in one
# process; the longest classes start first (their seconds in Tests/class-seconds.txt), the short
# ones go in batches. What several classes read (the sample's default run, the people records,
# shared whole runs) is made once for the whole suite, in a folder all the processes share
# (SIGHTLINE_TEST_SHARED_DIR, `SharedOutputs` in the tests).
#
#   Scripts/test.sh [--jobs N] [--skip-build] [--filter REGEX]
#     --jobs N       test processes at once (default: the number of cores)
#     --skip-build   run what is built
#     --filter REGEX only the tests whose Module.Class/test name matches (as swift test --filter)
#
# Each process's output is printed when it ends. Exit status 0 when every selected test ran and
# passed, 1 otherwise. Logs, and the classes' seconds of this run: .build/test-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: Scripts/test.sh [--jobs N] [--skip-build] [--filter REGEX]"
jobs=$(nproc) build=1 filter=.
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "Scripts/test.sh: --jobs needs a count of processes. $usage" >&2; exit 64; }
            jobs=$2; shift 2 ;;
    --skip-build) build=0; shift ;;
    --filter) [ -n "${2:-}" ] || { echo "Scripts/test.sh: --filter needs a pattern. $usage" >&2; exit 64; }
              filter=$2; shift 2 ;;
    *) echo "Scripts/test.sh: unknown option $1. $usage" >&2; exit 64 ;;
  esac
done

flags=(-c release -Xswiftc -enable-testing)   # optimized: the end-to-end runs take 0.7 of a debug build's time
[ $build = 0 ] || swift build "${flags[@]}" --build-tests
logs=.build/test-logs
rm -rf "$logs" && mkdir -p "$logs"
SIGHTLINE_TEST_SHARED_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sightline-suite-XXXXXX")
export SIGHTLINE_TEST_SHARED_DIR
trap 'rm -rf "$SIGHTLINE_TEST_SHARED_DIR"' EXIT

swift test list "${flags[@]}" --disable-swift-testing --skip-build > "$logs/all-tests.txt" 2> "$logs/list.log" ||
  { cat "$logs/list.log" >&2; exit 1; }
grep -E -- "$filter" "$logs/all-tests.txt" > "$logs/tests.txt" || { echo "Scripts/test.sh: no test matches $filter" >&2; exit 1; }

# Units of work, longest first: a class alone, or short classes together up to `batch` seconds
# (each process loads the runtime and its networks once). A line: seconds, classes, filter.
awk -v batch=40 '
  FNR == NR { if ($1 ~ /^[0-9]/) seconds[$2] = $1; next }
  { split($0, name, "/"); n = split(name[1], parts, "."); c = parts[n]
    if (!(c in tests)) { order[++count] = c; tests[c] = "" }
    tests[c] = tests[c] (tests[c] == "" ? "" : "|") $0 }
  END {
    for (i = 1; i <= count; i++) { c = order[i]; w[c] = (c in seconds) ? seconds[c] : 10 }
    # classes by seconds, longest first (insertion sort: a few dozen)
    for (i = 2; i <= count; i++) { c = order[i]; for (j = i - 1; j >= 1 && w[order[j]] < w[c]; j--) order[j + 1] = order[j]; order[j + 1] = c }
    for (i = 1; i <= count; i++) {
      c = order[i]
      if (w[c] >= batch || open == "") { units[++u] = c; total[u] = w[c]; filters[u] = tests[c]; open = (w[c] >= batch) ? "" : u; continue }
      units[open] = units[open] " " c; total[open] += w[c]; filters[open] = filters[open] "|" tests[c]
      if (total[open] >= batch) open = ""
    }
    for (i = 1; i <= u; i++) printf "%d\t%s\t^(%s)$\n", total[i], units[i], filters[i]
  }' Tests/class-seconds.txt "$logs/tests.txt" | sort -t$'\t' -k1,1nr > "$logs/units.txt"

units=$(wc -l < "$logs/units.txt")
selected=$(wc -l < "$logs/tests.txt")
echo "Scripts/test.sh: $selected tests in $units processes, $jobs at a time"
started=$SECONDS

run_unit() {   # number, classes, filter
  local status=0 begun=$SECONDS
  swift test "${flags[@]}" --disable-swift-testing --skip-build --ignore-lock --filter "$3" > "$logs/unit-$1.log" 2>&1 || status=$?
  echo "$status" > "$logs/unit-$1.status"
  local executed
  executed=$(grep -o 'Executed [0-9]* tests\?, with [0-9]* failures\?' "$logs/unit-$1.log" | tail -1 || true)
  flock "$logs/print.lock" sh -c 'cat "$1"; echo "== $2: ${3:-no summary}, exit $4, $5 s"' _ \
    "$logs/unit-$1.log" "$2" "$executed" "$status" "$((SECONDS - begun))"
}

# An interrupt stops every test process and what it started: the test processes run commands
# in-process, which take SIGINT as a request to finish their run and go on to the next test.
descendants() { local child; for child in $(pgrep -P "$1"); do echo "$child"; descendants "$child"; done; }
interrupted() {
  trap - INT TERM
  local job processes=()
  for job in "${unit_jobs[@]}"; do processes+=("$job" $(descendants "$job")); done
  kill -KILL "${processes[@]}" 2>/dev/null || true
  wait
  echo "Scripts/test.sh: interrupted" >&2
  exit 130
}
trap interrupted INT TERM
unit_jobs=()
n=0
while IFS=$'\t' read -r _ classes unit_filter; do
  n=$((n + 1))
  while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_unit "$n" "$classes" "$unit_filter" &
  unit_jobs+=($!)
done < "$logs/units.txt"
wait

# The verdict: every process ended with 0, and every selected test ran.
failed_processes=0
for status in "$logs"/unit-*.status; do [ "$(cat "$status")" = 0 ] || failed_processes=$((failed_processes + 1)); done
# (-o: a test's output without a newline may run into the line XCTest writes after it)
cat "$logs"/unit-*.log | grep -oE "Test Case '[^']*' (passed|failed|skipped) \([0-9.]+ seconds\)" > "$logs/cases.txt" || true
ran=$(wc -l < "$logs/cases.txt")
failures=$(grep -c "' failed" "$logs/cases.txt" || true)
sed -nE "s/^Test Case '([A-Za-z0-9_]+)\.[A-Za-z0-9_]+' (passed|failed) \(([0-9.]+) seconds\)/\1 \3/p" "$logs/cases.txt" |
  awk '{ s[$1] += $2 } END { for (c in s) printf "%.0f %s\n", s[c], c }' | sort -rn > "$logs/class-seconds.txt"
grep "' failed" "$logs/cases.txt" | sed 's/^/  /' || true
echo "Scripts/test.sh: $ran of $selected tests ran, $failures failed, $failed_processes of $units processes failed, in $((SECONDS - started)) s"
[ "$failures" = 0 ] && [ "$failed_processes" = 0 ] && [ "$ran" = "$selected" ]
