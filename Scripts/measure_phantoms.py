#!/usr/bin/env python3
"""Counts phantom code tracks (payloads that are not in the video) on a long synthetic video.

Makes a video (once, kept in --out) of 1D codes (EAN-13, Code 128, Code 39, ITF, Codabar) moving
over a noisy, striped background, with blur, grain and codes leaving the frame, and writes the
payloads it holds. Then runs `sightline analyze --faces off` on it with every read confirming
(`--code-confirm-reads 1`) and with the default confirmation rule, and reports per run: tracks,
phantom tracks (payload not in the video), phantom confirmed tracks and phantoms per minute, and
the truth payloads that were confirmed.

usage: Scripts/measure_phantoms.py [--sightline PATH] [--out DIR] [--seconds N] [-- ANALYZE-OPTIONS...]
Needs numpy, zint and ffmpeg (Scripts/install-deps.sh --samples).
"""
import argparse, json, os, subprocess, sys
import numpy as np

W, H, FPS = 1280, 720, 30
# (zint type, payload as read); Code 39 and Codabar without check digits, as often printed.
CODES = [("EANX", "4006381333931"), ("CODE128", "SL-PHANTOM-128"), ("CODE39", "SL39TEST"),
         ("C25INTER", "12345678"), ("CODABAR", "A40156B")]


def symbol(kind, data, path):
    subprocess.run(["zint", "-b", kind, "-d", data, "--scale", "2", "--notext", "-o", path], check=True,
                   capture_output=True)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         check=True, capture_output=True).stdout
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path],
                           check=True, capture_output=True, text=True).stdout.strip().split(",")
    w, h = int(probe[0]), int(probe[1])
    img = np.frombuffer(raw, np.uint8).reshape(h, w)
    return np.pad(img, 20, constant_values=255)   # quiet zone


def make_video(path, seconds, workdir):
    rng = np.random.default_rng(13)
    symbols = [symbol(k, d, os.path.join(workdir, f"sym{i}.png")) for i, (k, d) in enumerate(CODES)]
    # Background: low-frequency shading plus vertical stripes of random widths (bar-like clutter).
    yy, xx = np.mgrid[0:H, 0:W]
    shade = 110 + 40 * np.sin(xx / 97.0) * np.cos(yy / 71.0)
    stripes = np.repeat(rng.integers(0, 2, size=W // 3 + 1) * 60 - 30, 3)[:W]
    enc = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{W}x{H}",
                            "-r", str(FPS), "-i", "-", "-c:v", "libx264", "-preset", "veryfast", "-crf", "28",
                            "-pix_fmt", "yuv420p", path], stdin=subprocess.PIPE)
    # Each code crosses the frame on its own path, with its own period; visible about half the time.
    paths = [(rng.uniform(3, 9), rng.uniform(0, 2 * np.pi), rng.uniform(80, H - 260), rng.uniform(0.5, 1.0))
             for _ in symbols]
    for n in range(seconds * FPS):
        t = n / FPS
        frame = shade + np.roll(stripes, int(40 * np.sin(t / 3)))[None, :] * (yy > H // 2)
        for sym, (period, phase, y0, scale) in zip(symbols, paths):
            u = ((t / period + phase) % 2.0) - 0.5          # -0.5..1.5: in view for 0..1
            if not 0 <= u <= 1:
                continue
            s = sym[::max(1, int(round(1 / scale))), ::max(1, int(round(1 / scale)))] if scale < 0.75 else sym
            h, w = s.shape
            x = int(u * (W + w)) - w
            y = int(y0 + 30 * np.sin(t * 1.7 + phase))
            x0, x1 = max(0, x), min(W, x + w)
            y0c, y1c = max(0, y), min(H, y + h)
            if x1 > x0 and y1c > y0c:
                frame[y0c:y1c, x0:x1] = s[y0c - y:y1c - y, x0 - x:x1 - x] * 0.8 + 20
        frame = frame + rng.normal(0, 18, size=(H, W))
        enc.stdin.write(np.clip(frame, 0, 255).astype(np.uint8).tobytes())
    enc.stdin.close()
    if enc.wait() != 0:
        sys.exit("measure_phantoms.py: ffmpeg failed to encode the video")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sightline", default=os.path.join(here, "..", ".build", "release", "sightline"))
    ap.add_argument("--out", default=os.path.join(here, "..", "bench-out", "phantoms"))
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("extra", nargs="*", help="more sightline analyze options (after --)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    video = os.path.join(args.out, f"moving-1d-codes-{args.seconds}s.mp4")
    if not os.path.exists(video):
        print(f"making {video} (once)", file=sys.stderr)
        make_video(video, args.seconds, args.out)
    truth = {d for _, d in CODES}
    minutes = args.seconds / 60
    print(f"{video}: {args.seconds} s, {len(CODES)} moving 1D codes; payloads {sorted(truth)}")
    print("run                      tracks  phantom tracks  phantom confirmed  per minute  truth confirmed")
    for name, options in [("every read confirms", ["--code-confirm-reads", "1"]), ("default confirmation", [])]:
        out = subprocess.run([args.sightline, "analyze", video, "--faces", "off", "-q", *options, *args.extra],
                             capture_output=True, check=True).stdout
        tracks = [r for r in map(json.loads, out.splitlines()) if r.get("type") == "track" and r.get("kind") == "code"]
        phantoms = [t for t in tracks if t.get("text") not in truth]
        confirmed = [t for t in phantoms if t.get("state", "confirmed") == "confirmed"]
        read = {t.get("text") for t in tracks if t.get("text") in truth and t.get("state", "confirmed") == "confirmed"}
        print(f"{name:23}  {len(tracks):6}  {len(phantoms):14}  {len(confirmed):17}  {len(confirmed) / minutes:10.2f}"
              f"  {len(read)}/{len(truth)}")
        for t in confirmed:
            print(f"    phantom: {t['symbology']} {t.get('text')!r} frames {t['first_frame']}-{t['last_frame']}"
                  f" ({t['frames_observed']} reads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
