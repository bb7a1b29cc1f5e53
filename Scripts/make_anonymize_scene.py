#!/usr/bin/env python3
"""Makes a hard scene for face anonymization: real faces (the dlib test photos and the sample's
astronaut) that enter from the edge, turn towards profile (squeezed sideways), are partly
covered, move fast with motion blur, are small, and jump at a shot cut. With a tone as audio.

Usage: /usr/bin/python3 Scripts/make_anonymize_scene.py OUT.mp4 [--faces DIR] [--seconds S]
Needs ffmpeg (libx264), python3-numpy, python3-skimage. Every frame is a pure function of its index.
"""
import argparse
import csv
import os
import subprocess

import numpy as np
import skimage.data
from skimage import io
from skimage.transform import resize

W, H, FPS = 1280, 720, 30


def crops(faces_dir):
    """Face crops with a margin (the face is the middle 1/1.8 of each crop), largest first."""
    out = [skimage.data.astronaut()[20:270, 120:330]]
    with open(os.path.join(faces_dir, "training_boxes.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["ignore"] == "0" and int(r["width"]) >= 60]
    rows.sort(key=lambda r: (-int(r["width"]), r["file"], int(r["left"])))
    for r in rows[:4]:
        img = io.imread(os.path.join(faces_dir, r["file"]))[:, :, :3]
        l, t, w, h = (int(r[k]) for k in ("left", "top", "width", "height"))
        m = int(0.4 * w)
        y0, y1, x0, x1 = max(0, t - m), min(img.shape[0], t + h + m), max(0, l - m), min(img.shape[1], l + w + m)
        out.append(img[y0:y1, x0:x1])
    return [c.astype(np.float32) for c in out]


PATCHES = {}  # (crop, height, width, blur) -> the scaled crop: most faces keep one size


def scaled(img, h, w, blur):
    key = (id(img), h, w, blur)
    if key not in PATCHES:
        patch = resize(img, (h, w), anti_aliasing=True, preserve_range=True)
        if blur > 1:  # horizontal motion blur: mean over `blur` pixels
            k = np.ones(blur, np.float32) / blur
            patch = np.apply_along_axis(lambda row: np.convolve(row, k, mode="same"), 1, patch)
        PATCHES[key] = patch
    return PATCHES[key]


def paste(frame, img, cx, cy, w, h, squeeze=1.0, blur=0):
    """`img` scaled to w x h (width times `squeeze`) centred at (cx, cy), clipped to the frame."""
    w = max(4, int(w * squeeze))
    h = max(4, int(h))
    patch = scaled(img, h, w, blur)
    x0, y0 = int(cx - w / 2), int(cy - h / 2)
    fx0, fy0, fx1, fy1 = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if fx1 <= fx0 or fy1 <= fy0:
        return
    frame[fy0:fy1, fx0:fx1] = patch[fy0 - y0:fy1 - y0, fx0 - x0:fx1 - x0]


def background(i, cut):
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    if i < cut:
        base = np.stack([90 + 40 * np.sin(x / 97), 110 + 30 * np.cos(y / 71), 120 + 0 * x], axis=2)
    else:
        base = np.stack([170 + 30 * np.cos(x / 53), 150 + 0 * x, 90 + 40 * np.sin((x + y) / 61)], axis=2)
    return base


def frame(i, n, faces, bgs):
    cut = n // 2
    f = bgs[0 if i < cut else 1].copy()
    s = i / n
    if i < cut:
        # enters from the left edge
        a = faces[0]
        enter = min(1.0, i / (0.3 * n))
        paste(f, a, -120 + 420 * enter, 360, 230, 270)
        # turns towards profile and back
        turn = abs(np.sin(np.pi * i / cut))
        paste(f, faces[1], 700, 300, 200, 220, squeeze=1.0 - 0.65 * turn)
        # small face (about 45 px, near the default --min-face), drifting
        paste(f, faces[2], 1100 + 40 * np.sin(i / 9), 140, 80, 92)
        # partly covered by a passing bar
        paste(f, faces[3], 1000, 520, 170, 190)
        bar_x = int(850 + 300 * ((i * 7) % cut) / cut)
        f[420:640, bar_x:bar_x + 70] = (40, 40, 40)
    else:
        # after the cut: other places; one fast, motion-blurred face crossing the frame
        k = i - cut
        paste(f, faces[4], 200 + 900 * k / (n - cut), 250, 180, 200, blur=25)
        paste(f, faces[0], 950, 450, 160, 190)
        paste(f, faces[1], 1280 - min(200, 8 * k), 560, 180, 200)  # enters from the right edge
        paste(f, faces[3], 400, 560, 80, 92)
    return np.clip(f, 0, 255).astype(np.uint8)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--faces", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "dlib-faces"))
    p.add_argument("--seconds", type=float, default=6)
    a = p.parse_args()
    n = int(a.seconds * FPS)
    faces = crops(a.faces)
    bgs = [background(0, 1), background(1, 0)]
    cmd = ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", str(FPS), "-i", "-",
           "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={a.seconds}",
           "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-threads", "1",
           "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
           "-c:a", "aac", "-b:a", "64k", "-metadata", "title=anonymization scene", "-shortest", a.out]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    for i in range(n):
        proc.stdin.write(frame(i, n, faces, bgs).tobytes())
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("ffmpeg failed")


if __name__ == "__main__":
    main()
