#!/usr/bin/env bash
# How close the default run comes to the limit its face model sets.
#
# Times CenterFace's forward pass alone (OpenVINO's own benchmark_app, from the pinned openvino
# wheel installed into a venv of its own) at the input size the default uses for VIDEO, on one
# thread in f32 (and in bf16 for comparison), then the default `sightline analyze VIDEO` (median
# of RUNS), and prints the limit (cores x 1000 / forward ms) and the default's fps against it.
# It also times the forward pass on every core at once (one stream of one thread per core, as
# the default runs it): the model's own throughput when the cores share caches and memory, which
# is below cores x the one-thread figure. Not part of the test command.
#
# usage: Scripts/bench_model_limit.sh [VIDEO] [RUNS]
#   VIDEO  default: Samples/faces-and-codes-720p.mp4
#   RUNS   default runs timed (default 5)
# Needs: a release build (swift build -c release), python3 with venv, ffprobe, /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/deps/common.sh
VIDEO=${1:-Samples/faces-and-codes-720p.mp4}
RUNS=${2:-5}
SIGHTLINE=.build/release/sightline
VENV=${OPENVINO_VENV:-$HOME/.cache/sightline-bench/openvino-venv}
MODEL=${SIGHTLINE_MODELS:-/usr/local/share/sightline/models}/centerface.onnx
[ -x "$SIGHTLINE" ] || { echo "build first: swift build -c release" >&2; exit 1; }
[ -f "$VIDEO" ] || { echo "$VIDEO: no such file" >&2; exit 1; }
[ -f "$MODEL" ] || { echo "$MODEL: not installed (Scripts/install-deps.sh)" >&2; exit 1; }
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

forward_ms() {
    "$VENV/bin/benchmark_app" -m "$MODEL" -shape "[1,3,$IH,$IW]" -d CPU -nthreads 1 -nstreams 1 -nireq 1 \
        -hint none -infer_precision "$1" -api sync -t 10 2>&1 | awk '/Median:/ { v = $(NF-1); u = $NF; print (u == "us") ? v / 1000 : v }'
}
F32=$(forward_ms f32)
BF16=$(forward_ms bf16)
echo "forward pass alone, one thread: f32 $F32 ms, bf16 $BF16 ms"
ALL=$("$VENV/bin/benchmark_app" -m "$MODEL" -shape "[1,3,$IH,$IW]" -d CPU -nthreads "$CORES" -nstreams "$CORES" \
        -nireq "$CORES" -hint none -infer_precision f32 -api async -t 10 2>&1 | awk '/Throughput:/ { print $(NF-1) }')
echo "forward pass alone, $CORES streams of one thread at once: f32 $ALL fps"

walls=()
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f %e -o /tmp/bench-model-limit.$$ "$SIGHTLINE" analyze "$VIDEO" -q -o /dev/null
    walls+=("$(cat /tmp/bench-model-limit.$$)")
done
rm -f /tmp/bench-model-limit.$$
FRAMES=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$VIDEO")
python3 - "$F32" "$ALL" "$CORES" "$FRAMES" "${walls[@]}" <<'PY'
import statistics, sys
forward, together, cores, frames = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
wall = statistics.median(float(w) for w in sys.argv[5:])
limit = cores * 1000 / forward
fps = frames / wall
print(f"limit (f32): {cores} x 1000 / {forward:.2f} ms = {limit:.1f} fps; on all cores at once the model alone gives {together:.1f} fps ({together / limit:.2f} of it)")
print(f"default run: {frames} frames in {wall:.2f} s (median of {len(sys.argv) - 5}) = {fps:.1f} fps = {fps / limit:.2f} of the limit, {fps / together:.2f} of the model alone on all cores")
PY
