#!/bin/bash
# Fuzzes the parsers Sightline feeds with user input, with libFuzzer and the address sanitizer,
# one target at a time under nice: JSON Lines records, MOTChallenge text, the model download
# path (HTTP answers) and the mask image.
#
#   Scripts/fuzz.sh [--seconds N] [TARGET...]    (default: 600 s each, all targets)
#
# Targets: FuzzRecords FuzzMOTChallenge FuzzModelFetch FuzzMaskImage (the package in Fuzz/).
# Builds into .build-fuzz/, seeds each corpus from Samples/ and the test suite's cases, and keeps
# the corpora there between runs. Prints each target's executions per second and coverage
# (libFuzzer's "cov": instrumented edges reached). A crashing input is saved as
# .build-fuzz/crashes/TARGET/crash-…; fix it and copy it to Tests/Regressions/fuzz/TARGET/, which
# the test suite replays (HardeningRegressionTests). Exit status 1 when a target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
seconds=600
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(FuzzRecords FuzzMOTChallenge FuzzModelFetch FuzzMaskImage)

scratch=$repo/.build-fuzz
echo "building the fuzz targets (fuzzer + address sanitizer) into $scratch" >&2
(cd Fuzz && nice -n 19 swift build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
    --scratch-path "$scratch" 2>&1 | grep -E "error|Build complete" >&2)

seeds=$scratch/seeds
mkdir -p "$seeds"
seed() {   # seed TARGET NAME: the content on standard input
    mkdir -p "$scratch/corpus/$1"
    cat > "$scratch/corpus/$1/seed-$2"
}
truth=Samples/faces-and-codes-720p.truth.jsonl
# Records: the sample's truth (stream, frames with faces and codes, tracks) cut to a few records,
# and analyze's own output shape.
head -n 3 "$truth" | seed FuzzRecords truth-head
{ head -n 1 "$truth"; sed -n '150,152p' "$truth"; tail -n 2 "$truth"; } | seed FuzzRecords truth-parts
printf '%s\n' '{"type":"stream","schema":1,"source":"a.mp4","stream_index":0,"width":64,"height":48,"time_base":[1,30],"frame_rate":[30,1]}' \
    '{"type":"frame","index":0,"pts":0,"t":0.000000,"status":{"faces":"ok","codes":"ok"},"faces":[{"track":1,"box":{"x":1.00,"y":2.00,"w":3.00,"h":4.00},"score":0.900,"landmarks":{"left_eye":[1,2],"right_eye":[2,2],"nose":[1.5,3],"mouth_left":[1,4],"mouth_right":[2,4]}}],"codes":[{"track":2,"symbology":"qr","text":"x","bytes":"eA==","box":{"x":0.00,"y":0.00,"w":9.00,"h":9.00},"polygon":[[0,0],[9,0],[9,9],[0,9]]}]}' \
    '{"type":"track","id":1,"kind":"face","first_frame":0,"last_frame":0,"first_t":0.000000,"last_t":0.000000,"frames_observed":1,"frames_interpolated":0,"best_box":{"x":1.00,"y":2.00,"w":3.00,"h":4.00},"best_frame":0}' \
    '{"type":"summary","frames":1}' | seed FuzzRecords analyze-shape
# MOTChallenge text: rows of 6 to 10 columns (the test suite's cases).
printf '1,1,10,20,30,40,0.9,-1,-1,-1\n1,-1,50,60,10,10,0.4,-1,-1,-1\n3,1,11,20,30,40,0.8,-1,-1,-1\n' | seed FuzzMOTChallenge ten-columns
printf '2,5,1,2,3,4' | seed FuzzMOTChallenge six-columns
printf '1,1,10,20,30,40,1,1,1\n1,2,50,60,10,10,0,1,0.2\n' | seed FuzzMOTChallenge nine-columns
printf '\n1,2,3,4,5,6\n' | seed FuzzMOTChallenge blank-first
# HTTP answers to a model download: good length, short body, chunked, redirects and errors.
printf 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: application/octet-stream\r\n\r\nhello' | seed FuzzModelFetch ok
printf 'HTTP/1.1 200 OK\r\nContent-Length: 345478\r\n\r\nshort' | seed FuzzModelFetch short
printf 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' | seed FuzzModelFetch chunked
printf 'HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found' | seed FuzzModelFetch not-found
printf 'HTTP/1.0 200 OK\r\n\r\nno length, closed at the end' | seed FuzzModelFetch no-length
printf 'HTTP/1.1 301 Moved\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n' | seed FuzzModelFetch redirect
# Mask images: small pictures in the formats FFmpeg's image demuxers probe.
for format in png bmp gif tiff jpg; do
    ffmpeg -v error -y -f lavfi -i "color=c=red@0.5:s=7x5,format=rgba" -frames:v 1 "$seeds/mask.$format" 2>/dev/null \
        || ffmpeg -v error -y -f lavfi -i "color=c=red:s=7x5" -frames:v 1 "$seeds/mask.$format"
    seed FuzzMaskImage "mask-$format" < "$seeds/mask.$format"
done
# The frame the mask is drawn on.
ffmpeg -v error -y -f lavfi -i "testsrc=s=32x24:d=0.1" -frames:v 1 -pix_fmt yuv420p "$seeds/canvas.mp4"
export SIGHTLINE_FUZZ_FRAME=$seeds/canvas.mp4

# A smaller quarantine keeps the memory of a long run bounded; leaks are reported.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$repo/Scripts/lsan.supp:print_suppressions=0}
status=0
for target in "${targets[@]}"; do
    mkdir -p "$scratch/crashes/$target" "$scratch/logs"
    log=$scratch/logs/$target.log
    echo "== $target: ${seconds} s" >&2
    set +e
    nice -n 19 "$scratch/debug/$target" "$scratch/corpus/$target" -max_total_time="$seconds" -max_len=4096 \
        -timeout=20 -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$scratch/crashes/$target/" > "$log" 2>&1
    code=$?
    set -e
    runs=$(sed -n "s/^stat::number_of_executed_units: *//p" "$log" | tail -n 1)
    rate=$(sed -n "s/^stat::average_exec_per_sec: *//p" "$log" | tail -n 1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
    corpus=$(ls "$scratch/corpus/$target" | wc -l)
    echo "$target: exit $code, ${runs:-?} runs, ${rate:-?} exec/s, ${cov:-cov ?}, corpus $corpus inputs, log $log"
    if [ $code -ne 0 ]; then
        status=1
        grep -E "ERROR|SUMMARY|Fatal|artifact" "$log" | head -n 5
    fi
done
exit $status
