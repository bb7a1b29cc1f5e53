#!/bin/bash
# Runs `sightline analyze --identities on --max-gap 1` many times on a short input whose face
# tracks end a frame before it does, and checks that every run exits 0: the run ends while SFace's
# network is being compiled ahead of use on another thread, and the process must wait for it
# before it exits. It once crashed or spun forever at exit in about one run in twenty (then with
# the region search's network). HardeningRegressionTests runs 12 of these.
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
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "exit_race.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "exit_race.sh: $binary: not built (swift build)" >&2; exit 66; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The sample's first two frames (two faces) at 640x360, then three black frames.
ffmpeg -hide_banner -loglevel error -y -i Samples/faces-and-codes-720p.mp4 -f lavfi -i color=black:s=640x360:r=30 \
    -filter_complex "[0:v]trim=end_frame=2,setpts=PTS-STARTPTS,scale=640:360[a];[1:v]trim=end_frame=3,setpts=PTS-STARTPTS[b];[a][b]concat=n=2:v=1[v]" \
    -map "[v]" -c:v libx264 -pix_fmt yuv420p "$work/faces.mp4"
failed=0
for i in $(seq 1 "$runs"); do
    set +e
    timeout -s KILL 60 "$binary" analyze "$work/faces.mp4" -q -o "$work/faces.jsonl" --codes off --identities on --max-gap 1 2>"$work/err"
    status=$?
    set -e
    if [ $status -ne 0 ]; then
        failed=$((failed + 1))
        echo "run $i: exit $status$([ $status -eq 137 ] && echo ' (hung, killed)'): $(head -c 300 "$work/err")"
    fi
done
echo "exit_race: $failed of $runs runs failed"
[ $failed -eq 0 ]
