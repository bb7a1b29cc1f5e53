#!/bin/bash
# Soak run of `sightline analyze` over a long synthetic video (FFmpeg's testsrc2 pattern with a
# moving box; 2 hours at 160x90, 10 fps by default: small, so the run is cheap). Samples resident
# memory and open file descriptors every minute: memory must stay flat, bounded by the frames in
# flight and not by the video's length.
#
#   Scripts/soak_long_video.sh [--hours 2] [--size 160x90] [--fps 10] [--binary PATH]
#
# The video is made once and kept as .build-soak/long-HOURSh-SIZE-FPS.mp4. Prints
# "minute rss_kb fds frames" lines and the first and last sample; exit 1 when the records are
# invalid, not every frame has a record, or RSS grew by more than 10 % + 20 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/soak_common.sh
hours=2 size=160x90 fps=10 binary=.build/debug/sightline
while [ $# -gt 0 ]; do
    case "$1" in
        --hours) hours=$2; shift 2 ;;
        --size) size=$2; shift 2 ;;
        --fps) fps=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "soak_long_video.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "soak_long_video.sh: $binary: not built (swift build)" >&2; exit 66; }
mkdir -p .build-soak
seconds=$(awk "BEGIN {print int($hours * 3600)}")
video=.build-soak/long-${hours}h-$size-$fps.mp4
if [ ! -s "$video" ]; then
    echo "making $video ($seconds s)"
    nice -n 19 ffmpeg -v error -y -f lavfi -i "testsrc2=s=$size:r=$fps:d=$seconds" \
        -c:v libx264 -preset ultrafast -g $((fps * 10)) -pix_fmt yuv420p "$video.part.mp4"
    mv "$video.part.mp4" "$video"
fi
expected=$((seconds * fps))
out=.build-soak/long.jsonl
nice -n 10 "$binary" analyze "$video" -q -o "$out" &
pid=$!
echo "analyze: pid $pid, $video, $expected frames"
soak_header
first="" last=""
minute=0
while kill -0 $pid 2>/dev/null; do
    for ((s = 0; s < 60; s++)); do kill -0 $pid 2>/dev/null && sleep 1 || break; done
    soak_sample $pid "$out" $((minute + 1)) || break
    minute=$((minute + 1))
    [ -n "$first" ] || first=$SOAK_SAMPLE
    last=$SOAK_SAMPLE
done
wait $pid && status=0 || status=$?
echo "analyze exit $status"
fail=0
[ $status = 0 ] || fail=1
python3 -W ignore Scripts/validate_records.py "$out" || fail=1
frames=$(grep -c '"type":"frame"' "$out" || true)
echo "frame records: $frames of $expected"
[ "$frames" = "$expected" ] || fail=1
if [ -n "$first" ]; then
    soak_growth "$first" "$last" $minute 0 || fail=1
fi
exit $fail
