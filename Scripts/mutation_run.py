#!/usr/bin/env python3
"""Media mutation run: damaged videos through `sightline analyze` and `analyze --render`.

    Scripts/mutation_run.py [--count 2000] [--binary .build-asan/debug/sightline] [--out DIR]

Cuts short, small base clips from Samples/faces-and-codes-720p.mp4 (half a second at 320x180 in MP4, the
same turned 90 degrees for display, 162x94 and odd-sized 161x91 4:4:4 clips in Matroska, MJPEG in
AVI), mutates
them with Scripts/mutate_media.py (bit flips, truncations, chunk swaps, rewritten box sizes,
timestamps and sample sizes, garbage), and runs each mutated input through `analyze` and
`analyze --render` with a time limit, under nice. Build the binary with the address sanitizer
first (`swift build --sanitize=address --scratch-path .build-asan`).

An input is kept in OUT/failures/ (with a .txt saying why) when a run
  - crashes: a signal, a sanitizer report, a Swift fatal error, or an undocumented exit code;
  - hangs: it is still running at the time limit;
  - leaves invalid JSON Lines (Scripts/validate_records.py's checks, summary included) or, with
    --render, an MP4 that ffprobe cannot decode or whose frames differ from the frame records.
Prints a summary; exit status 1 when anything was kept. Same --seed, same inputs.
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import mutate_media  # noqa: E402
import validate_records  # noqa: E402
import random  # noqa: E402

# Exit codes docs/exit-codes.md documents for analyze.
DOCUMENTED = {0, 2, 64, 65, 66, 67, 69, 73, 74, 75, 77, 130}
# Exit codes after which records were written and must be valid to the summary.
WITH_RECORDS = {0, 2, 74, 130}
SANITIZER_EXIT = 86


def make_bases(sample, folder):
    """Short, small clips to mutate (made once, kept in `folder`)."""
    os.makedirs(folder, exist_ok=True)
    specs = {
        "h264-320x180.mp4": ["-vf", "scale=320:180", "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "10", "-pix_fmt", "yuv420p"],
        "h264-rot90.mp4": ["-vf", "scale=320:180", "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "10", "-pix_fmt", "yuv420p",
                           "-metadata:s:v:0", "rotate=90"],
        "h264-162x94.mkv": ["-vf", "scale=162:94", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "15"],
        "h264-161x91-444.mkv": ["-vf", "scale=161:91", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv444p", "-g", "15"],
        "mjpeg-120x68.avi": ["-vf", "scale=120:68", "-c:v", "mjpeg", "-q:v", "5"],
    }
    paths = []
    for name, options in specs.items():
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", "4", "-t", "0.5", "-i", sample, "-an"] + options + [path], check=True)
        paths.append(path)
    return paths


def run(command, timeout):
    """(exit status, standard error, hung). A hung process and its children are killed."""
    # Short allocation stacks keep the sanitized runs fast; a kept input can be rerun for more.
    env = dict(os.environ, ASAN_OPTIONS=f"exitcode={SANITIZER_EXIT}:detect_leaks=0:abort_on_error=0:malloc_context_size=8",
               UBSAN_OPTIONS="print_stacktrace=1")
    process = subprocess.Popen(["nice", "-n", "19"] + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env, start_new_session=True)
    try:
        _, err = process.communicate(timeout=timeout)
        return process.returncode, err.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        _, err = process.communicate()
        return None, err.decode("utf-8", "replace"), True


def crash_reason(status, err):
    if status is not None and status < 0:
        return f"killed by signal {-status}"
    if status == SANITIZER_EXIT or "AddressSanitizer" in err or "runtime error:" in err:
        return "sanitizer report"
    if "Fatal error" in err:
        return "Swift fatal error"
    if status not in DOCUMENTED:
        return f"undocumented exit code {status}"
    return None


def frame_pts(path):
    pts = []
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b'{"type":"frame"'):
                start = line.index(b'"pts":') + 6
                pts.append(int(line[start:line.index(b",", start)]))
    return pts


def output_problems(status, records, video, schemas):
    """Why the outputs of a run are not acceptable, or None."""
    if os.path.exists(records) and (status in WITH_RECORDS or os.path.getsize(records) > 0):
        with open(records, "rb") as f:
            problems, _ = validate_records.validate_file(records, f.read(), schemas)
        if problems:
            return "invalid JSON Lines: " + "; ".join(f"line {n}: {m}" for n, m in problems[:3])
    elif status in WITH_RECORDS:
        return f"exit {status} but no records written"
    if video and status in (0, 2):
        probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts", "-of", "csv=p=0", video],
                               capture_output=True, text=True)
        decoded = [int(p.split(",")[0]) for p in probe.stdout.split() if p.split(",")[0].lstrip("-").isdigit()]
        expected = frame_pts(records)
        if probe.returncode != 0 or probe.stderr.strip():
            return f"unplayable MP4: {probe.stderr.strip()[:300]}"
        # The MP4 has its own time base: the frames must be as many, in increasing order.
        if len(decoded) != len(expected) or any(a >= b for a, b in zip(decoded, decoded[1:])):
            return f"MP4 frames differ from the records: {len(decoded)} decoded, {len(expected)} records"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=2000, help="mutated inputs (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="first seed; input i uses seed + i")
    ap.add_argument("--binary", default=os.path.join(REPO, ".build-asan/debug/sightline"))
    ap.add_argument("--out", default=os.path.join(REPO, ".build-mutation"), help="work folder (failures/ is kept there)")
    ap.add_argument("--timeout", type=float, default=30, help="seconds before a run counts as a hang (default 30)")
    ap.add_argument("--options", default="--dnn-runtime opencv",
                    help="more analyze options (default: --dnn-runtime opencv, because OpenVINO's TBB loads a "
                         "library with RTLD_DEEPBIND, which the address sanitizer refuses)")
    ap.add_argument("--render-only", action="store_true",
                    help="only `analyze --render` (it checks the records too), not also plain `analyze`")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"mutation_run.py: {args.binary}: not built (swift build --sanitize=address --scratch-path .build-asan)")
    os.nice(19)
    schemas = validate_records.load_schemas(os.path.join(REPO, "Schemas"))
    bases = make_bases(os.path.join(REPO, "Samples/faces-and-codes-720p.mp4"), os.path.join(args.out, "bases"))
    work = os.path.join(args.out, "work")
    failures = os.path.join(args.out, "failures")
    os.makedirs(work, exist_ok=True)
    os.makedirs(failures, exist_ok=True)
    kept = collections.Counter()
    exits = collections.Counter()
    started = time.time()
    for i in range(args.count):
        base = bases[i % len(bases)]
        kind = mutate_media.KINDS[(i // len(bases)) % len(mutate_media.KINDS)]
        seed = args.seed + i
        ext = os.path.splitext(base)[1]
        with open(base, "rb") as f:
            data = mutate_media.mutate(f.read(), kind, random.Random(f"{kind}:{seed}"))
        name = f"{os.path.basename(base).rsplit('.', 1)[0]}-{kind}-{seed}"
        input_path = os.path.join(work, "input" + ext)
        with open(input_path, "wb") as f:
            f.write(data)
        # H.264 cannot be rendered at an odd size (exit 73 before anything is read): records only.
        modes = [False] if "161x91" in base else [True] if args.render_only else [False, True]
        for render in modes:
            records = os.path.join(work, "out.jsonl")
            video = os.path.join(work, "out.mp4") if render else None
            for stale in (records, os.path.join(work, "out.mp4")):
                if os.path.exists(stale):
                    os.remove(stale)
            command = ([args.binary, "analyze", input_path, "-q", "--threads", "1", "-o", records] + args.options.split()
                       + (["--render", video] if render else []))
            status, err, hung = run(command, args.timeout)
            exits[status] += 1
            reason = "hang" if hung else crash_reason(status, err) or output_problems(status, records, video, schemas)
            if reason:
                label = "hang" if hung else "crash" if crash_reason(status, err) else "invalid-output"
                kept[label] += 1
                target = os.path.join(failures, f"{label}-{name}{'-render' if render else ''}{ext}")
                shutil.copy(input_path, target)
                with open(target + ".txt", "w") as f:
                    f.write(f"{' '.join(command)}\nexit {status}\n{reason}\n\n{err[-4000:]}")
                print(f"[{i}] {name}{' --render' if render else ''}: {label}: {reason}", flush=True)
        if (i + 1) % 50 == 0:
            print(f"{i + 1}/{args.count} inputs, {time.time() - started:.0f} s, kept {dict(kept)}", flush=True)
    runs = sum(exits.values())
    print(f"{args.count} mutated inputs, {runs} runs in {time.time() - started:.0f} s: "
          f"{kept['crash']} crashes, {kept['hang']} hangs, {kept['invalid-output']} invalid outputs")
    print("exit codes: " + ", ".join(f"{code}: {n}" for code, n in sorted(exits.items(), key=lambda e: (e[0] is None, e[0] or 0))))
    return 1 if kept else 0


if __name__ == "__main__":
    sys.exit(main())
