#!/bin/bash
# Soak run of `sightline capture` on the fake V4L2 camera (Tests/FakeCamera): 60 frames a second
# into one analysis thread, so frames are dropped all along, with the overlays recorded to MP4.
# Samples the process's resident memory and open file descriptors every minute; at the end,
# checks the records (Scripts/validate_records.py) and the recording (ffprobe).
#
#   Scripts/soak_capture.sh [--minutes 30] [--fps 60] [--size 640x360] [--binary PATH] [--no-record]
#
# Prints "minute  rss_kb  fds  frames_written" lines, then the start and end figures; exit 1 when
# the records or the recording are invalid, or when RSS grew by more than 10 % + 20 MB from the
# first minute to the last. Not part of the test suite (it runs for --minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/soak_common.sh
minutes=30 fps=60 size=640x360 binary=.build/debug/sightline record=1
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes=$2; shift 2 ;;
        --fps) fps=$2; shift 2 ;;
        --size) size=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        --no-record) record=0; shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "soak_capture.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "soak_capture.sh: $binary: not built (swift build)" >&2; exit 66; }
work=$(mktemp -d /tmp/sightline-soak-capture.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -shared -fPIC -O2 -o "$work/libfake_v4l2.so" Tests/FakeCamera/fake_v4l2.c -ldl -lpthread
ffmpeg -v error -i Samples/faces-and-codes-720p.mp4 -frames:v 1 -vf "scale=${size/x/:}" -f rawvideo -pix_fmt yuyv422 "$work/frame.yuyv"

device=/dev/video-sightline-fake
args=(capture --device "$device" --threads 1 -q -o "$work/soak.jsonl" --duration $((minutes * 60)))
[ $record = 1 ] && args+=(--record "$work/soak.mp4")
LD_PRELOAD=$work/libfake_v4l2.so SLV_FAKE_DEVICE=$device SLV_FAKE_FRAME=$work/frame.yuyv SLV_FAKE_SIZE=$size \
    SLV_FAKE_FPS=$fps nice -n 10 "$binary" "${args[@]}" &
pid=$!
echo "capture: pid $pid, $fps fps at $size for $minutes min$([ $record = 1 ] && echo ', recording')"
soak_header
samples=()
for ((minute = 1; minute <= minutes; minute++)); do
    sleep 60
    soak_sample $pid "$work/soak.jsonl" $minute || break
    samples+=("$SOAK_SAMPLE")
done
wait $pid && status=0 || status=$?
echo "capture exit $status"
fail=0
[ $status = 0 ] || fail=1
python3 -W ignore Scripts/validate_records.py "$work/soak.jsonl" || fail=1
tail -n 1 "$work/soak.jsonl"
if [ $record = 1 ]; then
    decoded=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$work/soak.mp4") || fail=1
    echo "recording: $decoded frames decoded"
fi
if [ ${#samples[@]} -ge 2 ]; then
    soak_growth "${samples[0]}" "${samples[-1]}" ${#samples[@]} 1 || fail=1
fi
exit $fail
