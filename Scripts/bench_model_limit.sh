#!/usr/bin/env bash
# How close the default run comes to the limit its face model and the decoder set.
#
# The default runs, on every frame, CenterFace INT8 on the whole frame (scaled for 40 px faces)
# and on one full-size tile in turn (for the smaller faces; the stream record gives both input
# sizes). The model's limit is those two passes alone on every core at once: OpenVINO's own
# benchmark_app (from the pinned openvino wheel, installed into a venv of its own), one stream of
# one thread per core, as the default runs it. The limit with decoding is the project's speed
# bound: cores / (decode CPU + forward-pass CPU per frame), decode CPU from `ffmpeg -threads 0 -i
# VIDEO -f null -`. Neither counts the region searches around small faces, whose number depends
# on the video. For comparison it also times the whole-frame pass on one thread at INT8, f32 and
# bf16, then the default `sightline analyze VIDEO` (median of RUNS), and prints its fps as a
# share of both limits. Not part of the test command.
#
# usage: Scripts/bench_model_limit.sh [VIDEO] [RUNS]
#   VIDEO  default: Samples/faces-and-codes-720p.mp4
#   RUNS   default runs timed (default 5)
#   SIGHTLINE=PATH  the binary (default .build/release/sightline)
# Needs: a release build (swift build -c release), python3 with venv, ffmpeg, ffprobe, /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/deps/common.sh
VIDEO=${1:-Samples/faces-and-codes-720p.mp4}
RUNS=${2:-5}
SIGHTLINE=${SIGHTLINE:-.build/release/sightline}
VENV=${OPENVINO_VENV:-$HOME/.cache/sightline-bench/openvino-venv}
MODELS=${SIGHTLINE_MODELS:-/usr/local/share/sightline/models}
MODEL=$MODELS/centerface.onnx
INT8=$MODELS/centerface-int8.onnx
[ -x "$SIGHTLINE" ] || { echo "build first: swift build -c release" >&2; exit 1; }
[ -f "$VIDEO" ] || { echo "$VIDEO: no such file" >&2; exit 1; }
for m in "$MODEL" "$INT8"; do [ -f "$m" ] || { echo "$m: not installed (Scripts/install-deps.sh)" >&2; exit 1; }; done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "RUNS must be a positive integer" >&2; exit 1; }

if [ ! -x "$VENV/bin/benchmark_app" ]; then
    # The same wheel, checked by the same sha256, as Scripts/deps/build/openvino.sh installs.
    wheel=$(registry_fetch "openvino==2026.4.1" 2d22b1da03f7caf74df30e9f6417d0ab2f637e4a38e08e1dcd294d2c37407aaf \
              --only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp --abi cp311)
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "$wheel"
fi

scratch=$(mktemp)   # one command's output at a time: a record file, then /usr/bin/time's
trap 'rm -f "$scratch"' EXIT

# The input sizes the default uses for this video, as its stream record names them (the tile's
# is empty when the frame is too small to tile).
"$SIGHTLINE" analyze "$VIDEO" -q -o "$scratch" --duration 0.001 --codes off
read -r IW IH TW TH < <(head -1 "$scratch" | python3 -c "
import json, sys
faces = json.load(sys.stdin)['analyzers']['faces']
tile = (faces.get('tiles') or {}).get('input_size') or ['', '']
print(*faces['input_size'], *tile)")
CORES=$(nproc)
echo "video: $VIDEO; CenterFace input ${IW}x${IH}, tile ${TW:-none}${TH:+x$TH}; $CORES cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

forward_ms() {  # MODEL PRECISION
    "$VENV/bin/benchmark_app" -m "$1" -shape "[1,3,$IH,$IW]" -d CPU -nthreads 1 -nstreams 1 -nireq 1 \
        -hint none -infer_precision "$2" -api sync -t 10 2>&1 | awk '/Median:/ { v = $(NF-1); u = $NF; print (u == "us") ? v / 1000 : v }'
}
all_cores_fps() {  # WIDTH HEIGHT: the INT8 model alone, one stream of one thread per core
    "$VENV/bin/benchmark_app" -m "$INT8" -shape "[1,3,$2,$1]" -d CPU -nthreads "$CORES" -nstreams "$CORES" \
        -nireq "$CORES" -hint none -infer_precision f32 -api async -t 10 2>&1 | awk '/Throughput:/ { print $(NF-1) }'
}
echo "forward pass alone, one thread: int8 $(forward_ms "$INT8" f32) ms, f32 $(forward_ms "$MODEL" f32) ms, bf16 $(forward_ms "$MODEL" bf16) ms"
WHOLE=$(all_cores_fps "$IW" "$IH")
echo "the INT8 model alone, $CORES streams of one thread at once: whole frame $WHOLE fps"
TILE=0
if [ -n "$TW" ]; then TILE=$(all_cores_fps "$TW" "$TH"); echo "  the same on the tile: $TILE fps"; fi

/usr/bin/time -f "%U %S" -o "$scratch" ffmpeg -nostdin -v error -threads 0 -i "$VIDEO" -f null -
DECODE_CPU=$(awk '{ print $1 + $2 }' "$scratch")
walls=()
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f %e -o "$scratch" "$SIGHTLINE" analyze "$VIDEO" -q -o /dev/null
    walls+=("$(cat "$scratch")")
done
FRAMES=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$VIDEO")
python3 - "$CORES" "$WHOLE" "$TILE" "$DECODE_CPU" "$FRAMES" "${walls[@]}" <<'PY'
import statistics, sys
cores, whole, tile, decode_cpu, frames = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
wall = statistics.median(float(w) for w in sys.argv[6:])
fps = frames / wall
# CPU seconds per frame: the model at N fps on all cores costs cores / N of a core per frame.
model_cpu = cores / whole + (cores / tile if tile else 0)
model_limit = cores / model_cpu
limit = cores / (decode_cpu / frames + model_cpu)
print(f"the model's limit (whole frame{' and a tile' if tile else ''}): {model_limit:.1f} fps; "
      f"with decoding ({1000 * decode_cpu / frames:.2f} ms of CPU a frame): {limit:.1f} fps")
print(f"default run: {frames} frames in {wall:.2f} s (median of {len(sys.argv) - 6}) = {fps:.1f} fps = "
      f"{fps / model_limit:.2f} of the model's limit, {fps / limit:.2f} of the limit with decoding")
PY
