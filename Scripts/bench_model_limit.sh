#!/usr/bin/env bash
# How close the default run comes to the limit its face model sets.
#
# The limit is the model alone on every core at once, at the default's precision (INT8
# CenterFace) and the input size the default uses for VIDEO: OpenVINO's own benchmark_app (from
# the pinned openvino wheel, installed into a venv of its own), one stream of one thread per core,
# as the default runs it. That is the most the model gives on this machine; a whole run, which
# also decodes, reads codes and tracks on the same cores, cannot pass it. For comparison it also
# times the forward pass on one thread at INT8, f32 and bf16, then the default `sightline analyze
# VIDEO` (median of RUNS), and prints the default's fps as a share of the limit. Not part of the
# test command.
#
# usage: Scripts/bench_model_limit.sh [VIDEO] [RUNS]
#   VIDEO  default: Samples/faces-and-codes-720p.mp4
#   RUNS   default runs timed (default 5)
#   SIGHTLINE=PATH  the binary (default .build/release/sightline)
# Needs: a release build (swift build -c release), python3 with venv, ffprobe, /usr/bin/time.
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

# The input the default uses: the displayed frame at --face-width 640 (and at least 0.5 of it
# for 40 px faces), each side rounded to a multiple of 32, as FaceModelKind.inputSize does.
read -r W H < <(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0:s=x "$VIDEO" | tr x ' ')
read -r IW IH < <(python3 -c "
w, h = $W, $H
s = min(1.0, max(640 / w if 640 < w else 1.0, 20 / 40))
r = lambda v: max(32, (round(v * s) + 16) // 32 * 32)
print(r(w), r(h))")
CORES=$(nproc)
echo "video: $VIDEO (${W}x${H}); CenterFace input ${IW}x${IH}; $CORES cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

forward_ms() {  # MODEL PRECISION
    "$VENV/bin/benchmark_app" -m "$1" -shape "[1,3,$IH,$IW]" -d CPU -nthreads 1 -nstreams 1 -nireq 1 \
        -hint none -infer_precision "$2" -api sync -t 10 2>&1 | awk '/Median:/ { v = $(NF-1); u = $NF; print (u == "us") ? v / 1000 : v }'
}
echo "forward pass alone, one thread: int8 $(forward_ms "$INT8" f32) ms, f32 $(forward_ms "$MODEL" f32) ms, bf16 $(forward_ms "$MODEL" bf16) ms"
ALL=$("$VENV/bin/benchmark_app" -m "$INT8" -shape "[1,3,$IH,$IW]" -d CPU -nthreads "$CORES" -nstreams "$CORES" \
        -nireq "$CORES" -hint none -infer_precision f32 -api async -t 10 2>&1 | awk '/Throughput:/ { print $(NF-1) }')
echo "the limit: the INT8 model alone, $CORES streams of one thread at once: $ALL fps"

walls=()
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f %e -o /tmp/bench-model-limit.$$ "$SIGHTLINE" analyze "$VIDEO" -q -o /dev/null
    walls+=("$(cat /tmp/bench-model-limit.$$)")
done
rm -f /tmp/bench-model-limit.$$
FRAMES=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$VIDEO")
python3 - "$ALL" "$FRAMES" "${walls[@]}" <<'PY'
import statistics, sys
limit, frames = float(sys.argv[1]), int(sys.argv[2])
wall = statistics.median(float(w) for w in sys.argv[3:])
fps = frames / wall
print(f"default run: {frames} frames in {wall:.2f} s (median of {len(sys.argv) - 3}) = {fps:.1f} fps = {fps / limit:.2f} of the limit ({limit:.1f} fps)")
PY
