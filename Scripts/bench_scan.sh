#!/usr/bin/env bash
# Cost of `sightline scan` (key frames only) against decoding every frame and against the exact
# run, on an archive-like set and on the sample's 720p copies.
#
# The archive-like set (made once in OUT/archive): FILES files of SECONDS s at 640x360, 30 fps,
# camera-like sensor noise, libx264 with fixed GOPs of 1 to 4 s; most show nothing, some show
# pieces of Samples/faces-and-codes-720p.mp4 (faces and codes) in a few spans (each at least one
# GOP long). Timed REPS times in turn, medians reported: decode-only (`ffmpeg -i F -f null -`
# per file), scan (one run over the set), the exact run (`analyze` per file), and refine (`plan
# --from-scan`, `analyze` of each shard, `merge`). It checks that the flagged files are exactly
# those with pieces, that every piece lies inside a span, and that the refined records equal the
# exact run's records of the same frames.
#
# The 720p pairs: the sample and its camera-like copy (Scripts/bench.sh --camera's recipe), each
# also looped to 2 min (as bench.sh --long): decode-only and scan, in pairs, REPS times.
#
# usage: Scripts/bench_scan.sh [--sightline PATH] [--out DIR] [--reps N] [--files N] [--seconds S] [--report]
#   --report: only write the report again from the last runs (OUT/runs/raw.tsv)
# Needs: ffmpeg, python3, /usr/bin/time, a release build (swift build -c release).
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIGHTLINE=$ROOT/.build/release/sightline
OUT=$ROOT/bench-out/scan
REPS=3
FILES=8
SECONDS_PER_FILE=30
REPORT_ONLY=0
die() { echo "bench_scan.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case "$1" in
        --sightline) SIGHTLINE=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --files) FILES=$2; shift 2 ;;
        --seconds) SECONDS_PER_FILE=$2; shift 2 ;;
        --report) REPORT_ONLY=1; shift ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1" ;;
    esac
done
[ -x "$SIGHTLINE" ] || die "not an executable: $SIGHTLINE (build with swift build -c release)"
[[ $FILES =~ ^[0-9]+$ && $FILES -ge 4 ]] || die "--files must be 4 or more"
[[ $SECONDS_PER_FILE =~ ^[0-9]+$ && $SECONDS_PER_FILE -ge 24 ]] || die "--seconds must be 24 or more"
SAMPLE=$ROOT/Samples/faces-and-codes-720p.mp4
mkdir -p "$OUT/archive" "$OUT/runs"
OUT=$(cd "$OUT" && pwd)
RUNS=$OUT/runs

# One archive file: NAME GOP_SECONDS [PIECE_START:SAMPLE_FROM:LENGTH ...]: noise-only footage with
# pieces of the sample laid over it at PIECE_START (seconds in the file).
make_file() {
    local name=$1 gop=$2 dest=$OUT/archive/$1.mp4
    shift 2
    [ -f "$dest" ] && return 0
    local inputs=(-f lavfi -i "color=c=0x6a6f72:s=640x360:r=30:d=$SECONDS_PER_FILE") graph="" last="[0:v]" n=1 piece
    for piece in "$@"; do
        IFS=: read -r at from length <<<"$piece"
        inputs+=(-ss "$from" -t "$length" -i "$SAMPLE")
        graph+="[$n:v]scale=640:360,setpts=PTS-STARTPTS+$at/TB[p$n];${last}[p$n]overlay=eof_action=pass[o$n];"
        last="[o$n]"; n=$((n + 1))
    done
    graph+="${last}noise=alls=6:allf=t,format=yuv420p[v]"
    echo "making $dest (once)" >&2
    ffmpeg -nostdin -hide_banner -loglevel error -y "${inputs[@]}" -filter_complex "$graph" -map "[v]" \
        -c:v libx264 -preset veryfast -g $((gop * 30)) -keyint_min $((gop * 30)) -sc_threshold 0 "$dest.part.mp4"
    mv "$dest.part.mp4" "$dest"
}
# Which files show something, and where (for the checks): name, start, length.
: >"$OUT/archive/pieces.tsv"
gops=(2 4 1 3)
for i in $(seq 1 "$FILES"); do
    name=$(printf 'archive-%02d' "$i")
    gop=${gops[$((i % 4))]}
    pieces=()
    # Most files show nothing: every 4th from the first one piece, every 8th from the third two.
    if [ $((i % 4)) -eq 1 ]; then
        pieces=("$((SECONDS_PER_FILE / 4)):0:$((gop + 2))")
    elif [ $((i % 8)) -eq 3 ]; then
        pieces=("5:2:$((gop + 1))" "$((SECONDS_PER_FILE - 12)):5:$((gop + 3))")
    fi
    make_file "$name" "$gop" "${pieces[@]+"${pieces[@]}"}"
    for piece in "${pieces[@]+"${pieces[@]}"}"; do
        IFS=: read -r at _ length <<<"$piece"
        printf '%s\t%s\t%s\n' "$OUT/archive/$name.mp4" "$at" "$length" >>"$OUT/archive/pieces.tsv"
    done
done
archive=("$OUT"/archive/archive-*.mp4)

camera=$OUT/faces-and-codes-720p-camera.mp4
if [ ! -f "$camera" ]; then
    ffmpeg -nostdin -hide_banner -loglevel error -y -i "$SAMPLE" -vf noise=alls=6:allf=t \
        -c:v libx264 -preset medium -b:v 6M -maxrate 8M -bufsize 12M "$camera.part.mp4"
    mv "$camera.part.mp4" "$camera"
fi
for f in "$SAMPLE" "$camera"; do
    looped=$OUT/$(basename "${f%.mp4}")-2min.mp4
    [ -f "$looped" ] || ffmpeg -nostdin -hide_banner -loglevel error -y -stream_loop 11 -i "$f" -c copy "$looped"
done

now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }
RAW=$RUNS/raw.tsv
[ $REPORT_ONLY -eq 1 ] && [ ! -s "$RAW" ] && die "--report: no runs in $RAW"
[ $REPORT_ONLY -eq 1 ] || : >"$RAW"
# timed LABEL KIND COMMAND...: one line of wall µs and CPU ms (user + system, all threads).
timed() {
    local label=$1 kind=$2 t0 t1
    shift 2
    t0=$(now_us)
    /usr/bin/time -f '%U %S' -o "$RUNS/time.txt" "$@" >/dev/null 2>>"$RUNS/stderr.txt" || true
    t1=$(now_us)
    printf '%s\t%s\t%s\t%s\n' "$label" "$kind" "$((t1 - t0))" "$(awk 'END { printf "%d", ($1 + $2) * 1000 }' "$RUNS/time.txt")" >>"$RAW"
}
decode_all() { local f; for f in "$@"; do ffmpeg -nostdin -hide_banner -loglevel error -threads 0 -i "$f" -f null - || return 1; done; }
analyze_all() { local f; for f in "$@"; do "$SIGHTLINE" analyze "$f" -q -o "$RUNS/exact/$(basename "${f%.mp4}").jsonl" || return 1; done; }
refine() {
    "$SIGHTLINE" plan --from-scan "$RUNS/index.jsonl" --output-dir "$RUNS/refine" -o "$RUNS/refine.plan" || return 1
    python3 -c 'import json, subprocess, sys
for line in open(sys.argv[2]):
    subprocess.run([sys.argv[1]] + json.loads(line)["args"], check=True)' "$SIGHTLINE" "$RUNS/refine.plan" || return 1
    "$SIGHTLINE" merge "$RUNS/refine.plan" -q
}
export -f decode_all analyze_all refine
export SIGHTLINE RUNS

echo "sightline: $("$SIGHTLINE" --version) ($SIGHTLINE); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$RUNS/exact" "$RUNS/refine"
[ $REPORT_ONLY -eq 1 ] && REPS=0
for rep in $(seq 1 "$REPS"); do
    echo "run $rep/$REPS" >&2
    timed archive decode bash -c 'decode_all "$@"' _ "${archive[@]}"
    timed archive scan "$SIGHTLINE" scan "${archive[@]}" -q -o "$RUNS/index.jsonl"
    rm -rf "$RUNS/refine"; mkdir -p "$RUNS/refine"
    timed archive refine bash -c refine
    timed archive exact bash -c 'analyze_all "$@"' _ "${archive[@]}"
    for f in "$SAMPLE" "$camera" "$OUT/faces-and-codes-720p-2min.mp4" "$OUT/faces-and-codes-720p-camera-2min.mp4"; do
        label=$(basename "${f%.mp4}")
        timed "$label" decode ffmpeg -nostdin -hide_banner -loglevel error -threads 0 -i "$f" -f null -
        timed "$label" scan "$SIGHTLINE" scan "$f" -q -o "$RUNS/$label.index.jsonl"
    done
done

python3 - "$RAW" "$RUNS" "$OUT/archive/pieces.tsv" "$OUT" "${archive[@]}" <<'PY'
import json, os, statistics, subprocess, sys, time
raw, runs, pieces_file, out, *archive = sys.argv[1:]

def duration(path):
    return float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                                capture_output=True, text=True, check=True).stdout)

times = {}
for line in open(raw):
    label, kind, wall_us, cpu_ms = line.split("\t")
    times.setdefault(label, {}).setdefault(kind, []).append((int(wall_us) / 1e6, int(cpu_ms) / 1e3))
med = lambda rows, i: statistics.median(r[i] for r in rows)

# Checks: flagged files, pieces inside spans, refined frames equal to the exact run's.
index = [json.loads(l) for l in open(os.path.join(runs, "index.jsonl"))]
spans = {}
for r in index:
    if r["type"] == "span":
        spans.setdefault(r["source"], []).append((r["start"], r["end"]))
pieces = {}
for line in open(pieces_file):
    path, at, length = line.rstrip("\n").split("\t")
    pieces.setdefault(path, []).append((float(at), float(at) + float(length)))
problems = []
for path in archive:
    if bool(spans.get(path)) != bool(pieces.get(path)):
        problems.append(f"{os.path.basename(path)}: {'flagged' if spans.get(path) else 'not flagged'}, but it has {len(pieces.get(path, []))} pieces")
    for a, b in pieces.get(path, []):
        if not any(s <= a + 1e-6 and (e is None or b <= e + 1e-6) for s, e in spans.get(path, [])):
            problems.append(f"{os.path.basename(path)}: the piece {a}-{b} s is not inside a span {spans.get(path)}")
compared = 0
for path in archive:
    stem = os.path.basename(path)[:-4]
    merged = os.path.join(runs, "refine", stem + ".jsonl")
    if not os.path.exists(merged):
        continue
    frames = lambda p: {json.loads(l)["index"]: l for l in open(p) if l.startswith('{"type":"frame"')}
    refined, exact = frames(merged), frames(os.path.join(runs, "exact", stem + ".jsonl"))
    differ = [i for i, l in refined.items() if exact.get(i) != l]
    compared += len(refined)
    if differ:
        problems.append(f"{stem}: {len(differ)} refined frames differ from the exact run's (first: {min(differ)})")

video = sum(duration(p) for p in archive)
span_seconds = next(r for r in index if r["type"] == "scan_summary")["span_seconds"]
rows = []
a = times["archive"]
for kind, what in [("decode", "decode-only (ffmpeg -i F -f null -, per file)"), ("scan", "sightline scan (one run over the set)"),
                   ("refine", "refine: plan --from-scan, analyze the shards, merge"), ("exact", "exact: sightline analyze, per file")]:
    wall, cpu = med(a[kind], 0), med(a[kind], 1)
    rows.append((what, wall, cpu, 3600 * wall / video, 3600 * cpu / video, med(a["decode"], 0) / wall, med(a["decode"], 1) / cpu))
sr, sc = rows[1][1] + rows[2][1], rows[1][2] + rows[2][2]
rows.append(("scan + refine", sr, sc, 3600 * sr / video, 3600 * sc / video, med(a["decode"], 0) / sr, med(a["decode"], 1) / sc))
cpu = "unknown"
for l in open("/proc/cpuinfo"):
    if l.startswith("model name"):
        cpu = l.split(":", 1)[1].strip(); break
lines = [f"# sightline scan benchmark", "",
         f"{time.strftime('%Y-%m-%d')}; {cpu}, {os.cpu_count()} cores; medians of {len(a['scan'])} runs made in turn; "
         f"the machine's cores are shared with other work, so single runs vary.", "",
         f"Archive-like set: {len(archive)} files, {video:.0f} s of 640x360 30 fps video, {len(pieces)} with pieces of the sample "
         f"(faces and codes); the scan flagged {len(spans)} files, {span_seconds:.1f} s in spans.", "",
         "| run | wall s | CPU s | wall s per hour of video | CPU s per hour of video | speed vs decode-only: wall, CPU |",
         "| --- | ---: | ---: | ---: | ---: | ---: |"]
lines += [f"| {w} | {wall:.2f} | {c:.2f} | {wh:.0f} | {ch:.0f} | {r:.2f}x, {rc:.2f}x |" for w, wall, c, wh, ch, r, rc in rows]
lines += ["", "| input | decode-only wall s | scan wall s | decode-only CPU s | scan CPU s | scan speed vs decode-only: wall, CPU (pairs: median of ratios) |",
          "| --- | ---: | ---: | ---: | ---: | ---: |"]
for label in [k for k in times if k != "archive"]:
    t = times[label]
    ratio = lambda i: statistics.median(d[i] / s[i] for d, s in zip(t["decode"], t["scan"]))
    lines.append(f"| {label} | {med(t['decode'], 0):.2f} | {med(t['scan'], 0):.2f} | {med(t['decode'], 1):.2f} | "
                 f"{med(t['scan'], 1):.2f} | {ratio(0):.2f}x, {ratio(1):.2f}x |")
lines += ["", f"Checks: {compared} refined frames compared with the exact run; " + ("all equal, flagged files and spans as expected." if not problems else "PROBLEMS:")]
lines += [f"- {p}" for p in problems]
text = "\n".join(lines) + "\n"
open(os.path.join(out, "results.md"), "w").write(text)
print(text)
sys.exit(1 if problems else 0)
PY
