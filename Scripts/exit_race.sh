#!/bin/bash
# Runs `sightline analyze --detect-every 5` many times on a one-frame input and checks that every
# run exits 0: a run shorter than the region search's network compile (started ahead of use on
# another thread) must wait for it before the process exits. It once crashed or spun forever at
# exit in about one run in twenty. HardeningRegressionTests runs 12 of these.
#
#   Scripts/exit_race.sh [--runs 200] [--binary PATH]
#
# A run that has not ended after 60 s is killed and counts as a hang.
# Exit 1 when any run crashed, hung or failed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=200 binary=.build/debug/sightline
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "exit_race.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "exit_race.sh: $binary: not built (swift build)" >&2; exit 66; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 1 \
    -c:v libx264 -pix_fmt yuv420p "$work/one.mp4"
failed=0
for i in $(seq 1 "$runs"); do
    set +e
    timeout -s KILL 60 "$binary" analyze "$work/one.mp4" -q -o "$work/one.jsonl" --detect-every 5 2>"$work/err"
    status=$?
    set -e
    if [ $status -ne 0 ]; then
        failed=$((failed + 1))
        echo "run $i: exit $status$([ $status -eq 137 ] && echo ' (hung, killed)'): $(head -c 300 "$work/err")"
    fi
done
echo "exit_race: $failed of $runs runs failed"
[ $failed -eq 0 ]
