#!/usr/bin/env bash
# How many live 720p30 camera-like streams one machine analyzes in real time, and how late their
# records are. For N = 1, 2, … : N streams sent over UDP on the loopback by `ffmpeg -re` (a
# camera-like copy of the sample: sensor noise, 6 Mbit/s, a key frame a second, sent without
# re-encoding, so the senders cost next to nothing), all captured by one `sightline capture
# --camera NAME=udp://…` process. Stops at the first N that drops more than 1 % of its frames.
#
#   Scripts/bench_live.sh [--seconds 20] [--from 1] [--max 6] [--binary PATH] [-- capture options…]
#
# Prints one row per N: frames analyzed and dropped (all cameras), frames lost on the way, frames
# sent before the capture was ready (not analyzed, not counted as dropped),
# latency p50 / p95 / max (ms, the worst camera's), and the capture's CPU seconds. The capacity
# is the largest N with dropped ≤ 1 %. Not part of the test suite (it runs in real time).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=20 from=1 max=6 binary=.build/release/sightline
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        --max) max=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "bench_live.sh: unknown option $1 (options after -- go to capture)" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "bench_live.sh: $binary: not built (swift build -c release)" >&2; exit 66; }
work=$(mktemp -d /tmp/sightline-bench-live.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# The camera-like stream: the 10 s sample looped to the run's length, as MPEG-TS.
loops=$(( (seconds + 9) / 10 ))
ffmpeg -v error -nostdin -stream_loop "$loops" -i Samples/faces-and-codes-720p.mp4 -t "$seconds" -an \
    -vf noise=alls=6:allf=t -c:v libx264 -preset medium -b:v 6M -maxrate 8M -bufsize 12M -g 30 \
    -f mpegts "$work/camera.ts"

echo "capture options: ${*:-(defaults)}; $seconds s per run; $(nproc) cores"
printf '%-8s %8s %8s %9s %6s %7s %9s %9s %9s %8s\n' cameras frames dropped dropped% lost before p50_ms p95_ms max_ms cpu_s
capacity=0
for n in $(seq "$from" "$max"); do
    cameras=() ports=()
    for i in $(seq 1 "$n"); do
        port=$((21000 + RANDOM % 20000))
        ports+=("$port"); cameras+=(--camera "cam$i=udp://127.0.0.1:$port")
    done
    rm -rf "$work/out"
    "$binary" capture "${cameras[@]}" -q -o "$work/out" "$@" 2>"$work/stderr" &
    capture=$!
    sleep 2   # the network and the compiled model ready
    senders=()
    for port in "${ports[@]}"; do
        ffmpeg -v error -nostdin -re -i "$work/camera.ts" -c copy -f mpegts "udp://127.0.0.1:$port?pkt_size=1316" &
        senders+=($!)
    done
    wait "${senders[@]}"
    sleep 1
    # The capture's CPU seconds so far (user + system), from the kernel's clock ticks.
    cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$capture/stat")
    kill -INT "$capture"
    wait "$capture" || { echo "bench_live.sh: capture failed:" >&2; cat "$work/stderr" >&2; exit 1; }
    row=$(python3 - "$work/out" <<'EOF'
import json, pathlib, sys
frames = dropped = lost = before = 0
p50 = p95 = worst = 0
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.jsonl")):
    summary = json.loads(path.read_text().splitlines()[-1])
    frames += summary["frames"]; dropped += summary["dropped_frames"]; lost += summary["lost_frames"]
    before += summary["frames_before_start"]
    latency = summary["latency_ms"]
    p50, p95, worst = max(p50, latency["p50"]), max(p95, latency["p95"]), max(worst, latency["max"])
print(frames, dropped, f"{100 * dropped / max(1, frames):.2f}", lost, before, p50, p95, worst)
EOF
)
    read -r frames dropped share lost before p50 p95 worst <<<"$row"
    printf '%-8s %8s %8s %9s %6s %7s %9s %9s %9s %8s\n' "$n" "$frames" "$dropped" "$share" "$lost" "$before" "$p50" "$p95" "$worst" "$cpu"
    if python3 -c "import sys; sys.exit(0 if float('$share') <= 1 else 1)"; then capacity=$n; else break; fi
done
echo "held in real time with at most 1 % dropped: $capacity stream(s)"
