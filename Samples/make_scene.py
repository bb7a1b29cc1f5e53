#!/usr/bin/python3
"""Generate the tracking scene: a video and its exact ground truth.

A harder scene than the sample, made for what tracking between full
searches must get right:

* codes away from the frame's centre, all moving: a Code 128 drifting along
  the top (away from the middle scan lines a quick 1D search looks at), an
  EAN-13 along the bottom, a QR code down the left side;
* objects appearing on frames that are not on any detection grid: a
  DataMatrix at frame 121, a second QR code at frame 203, a face at frame 37
  and another at frame 163 (121, 163, 203 are not multiples of 5 or 15,
  37 is not a multiple of 5);
* hard frames: a panel covering the Code 128 completely (frames 180-189, it
  is then absent from the truth), a bar over the lower third of a face
  (frames 90-99, the face stays in the truth), and the whole frame blurred
  (frames 250-252).

Every position is a pure function of the frame index, so the truth file
describes exactly what was drawn.  It uses the helpers of make_samples.py
(same folder) and the same requirements: ffmpeg with libx264, qrencode,
zint, python3-numpy, python3-skimage (Scripts/install-deps.sh --samples).

Usage:
    /usr/bin/python3 Samples/make_scene.py [--out DIR] [--name NAME]

Writes DIR/NAME.mp4 and DIR/NAME.truth.jsonl (default: tracking-scene-720p
in the current folder).
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_samples as ms  # noqa: E402

W, H, FPS, FRAMES = 1280, 720, 30, 300

FACES = [
    # track, label, sprite scale, mirrored, path of the sprite's top-left corner, first frame
    {"track": 1, "label": "astronaut", "scale": 1.0, "mirrored": False,
     "from": (260, 214), "to": (820, 230), "first": 0},
    {"track": 2, "label": "astronaut-mirrored", "scale": 0.85, "mirrored": True,
     "from": (1080, 440), "to": (620, 440), "first": 37},
    {"track": 3, "label": "astronaut-small", "scale": 0.75, "mirrored": False,
     "from": (1100, 250), "to": (1060, 262), "first": 163},
]

CODES = [
    {"track": 4, "symbology": "code128", "text": "SL-C128-0042", "module": 2, "height": 70,
     "quiet": (10, 4), "centre_from": (270, 80), "centre_to": (420, 140), "first": 0,
     # covered by a panel on these frames: not visible, not in the truth
     "hidden": range(180, 190)},
    {"track": 5, "symbology": "ean13", "text": "4006381333931", "module": 3, "height": 50,
     "quiet": (10, 4), "centre_from": (300, 658), "centre_to": (480, 658), "first": 0},
    {"track": 6, "symbology": "qr", "text": "https://example.org/sightline/scene-qr", "module": 5,
     "quiet": (4, 4), "centre_from": (120, 330), "centre_to": (120, 470), "first": 0},
    {"track": 7, "symbology": "datamatrix", "text": "SIGHTLINE-DM-7", "module": 6,
     "quiet": (2, 2), "centre_from": (1180, 90), "centre_to": (1180, 140), "first": 121},
    {"track": 8, "symbology": "qr", "text": "SIGHTLINE-QR-8 enters late", "module": 5,
     "quiet": (4, 4), "centre_from": (760, 120), "centre_to": (760, 120), "first": 203},
]

COVER_FACE = range(90, 100)   # a bar over the lower third of face 1
BLUR = range(250, 253)        # the whole frame blurred (Gaussian, sigma 1.2)


def zint_bits(barcode_type, text):
    """Rows of modules (True = dark) as zint draws the symbol."""
    out = subprocess.run(["zint", "--dump", "-b", str(barcode_type), "--notext", "-d", text],
                         check=True, capture_output=True, text=True).stdout
    return [[b == "1" for b in "".join(format(int(h, 16), "04b") if len(h) == 1 else format(int(h, 16), "08b")
                                       for h in line.split())]
            for line in out.strip().split("\n")]


def code128_modules(text):
    bits = zint_bits(20, text)[0]
    while not bits[-1]:          # the dump pads to whole bytes; the stop pattern ends with a bar
        bits.pop()
    return np.array(bits, dtype=bool)[None, :]


def datamatrix_modules(text):
    rows = zint_bits(71, text)
    n = len(rows)                # square symbols: as wide as high
    grid = np.array([r[:n] for r in rows], dtype=bool)
    assert grid[:, 0].all() and grid[-1, :].all(), "unexpected zint output (finder L)"
    return grid


def symbol(spec):
    m = spec["module"]
    kind = spec["symbology"]
    if kind == "qr":
        grid = ms.qr_modules(spec["text"])
    elif kind == "datamatrix":
        grid = datamatrix_modules(spec["text"])
    elif kind == "ean13":
        grid = ms.ean13_modules(spec["text"])[None, :]
    else:
        grid = code128_modules(spec["text"])
    img = np.repeat(np.where(grid, 0, 255).astype(np.uint8), m, axis=1)
    img = np.repeat(img, spec["height"] if grid.shape[0] == 1 else m, axis=0)
    return img, spec["quiet"][0] * m, spec["quiet"][1] * m


def gaussian_blur(img, sigma):
    radius = int(math.ceil(3 * sigma))
    k = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    k /= k.sum()
    f = img.astype(np.float64)
    for axis in (0, 1):
        pad = [(0, 0)] * 3
        pad[axis] = (radius, radius)
        p = np.pad(f, pad, mode="edge")
        f = sum(k[i] * np.take(p, range(i, i + img.shape[axis]), axis=axis) for i in range(len(k)))
    return np.clip(np.floor(f + 0.5), 0, 255).astype(np.uint8)


class Scene:
    def __init__(self):
        self.u = lambda i: i / (FRAMES - 1)
        self.faces = []
        for f in FACES:
            rgb, alpha, sx, sy = ms.face_sprite(f["scale"], f["mirrored"], 1.0)
            self.faces.append(dict(f, rgb=rgb, alpha=alpha, box=ms.face_box_in_sprite(f["mirrored"], sx, sy)))
        self.codes = [dict(c, img=img, qx=qx, qy=qy) for c in CODES for img, qx, qy in [symbol(c)]]
        self.background = ms.background(W, H, 1.0)
        self.check_layout()

    def face_pos(self, f, i):
        return (ms.round_half_up(ms.lerp(f["from"][0], f["to"][0], self.u(i))),
                ms.round_half_up(ms.lerp(f["from"][1], f["to"][1], self.u(i))))

    def code_rect(self, c, i, drawn=False):
        if i < c["first"] or (not drawn and i in c.get("hidden", ())):
            return None
        cx = ms.lerp(c["centre_from"][0], c["centre_to"][0], self.u(i))
        cy = ms.lerp(c["centre_from"][1], c["centre_to"][1], self.u(i))
        h, w = c["img"].shape
        return (ms.round_half_up(cx - w / 2), ms.round_half_up(cy - h / 2), w, h)

    def check_layout(self):
        gap = ms.MIN_GAP
        for i in range(FRAMES):
            rects = []
            for f in self.faces:
                if i >= f["first"]:
                    x, y = self.face_pos(f, i)
                    h, w = f["alpha"].shape
                    rects.append(("face%d" % f["track"], (x, y, w, h)))
            for c in self.codes:
                r = self.code_rect(c, i, drawn=True)
                if r:
                    x, y, w, h = r
                    rects.append(("code%d" % c["track"], (x - c["qx"], y - c["qy"], w + 2 * c["qx"], h + 2 * c["qy"])))
            for k, (na, (ax, ay, aw, ah)) in enumerate(rects):
                if ax < 0 or ay < 0 or ax + aw > W or ay + ah > H:
                    raise SystemExit("frame %d: %s leaves the frame" % (i, na))
                for nb, (bx, by, bw, bh) in rects[k + 1:]:
                    if not (ax + aw + gap <= bx or bx + bw + gap <= ax or ay + ah + gap <= by or by + bh + gap <= ay):
                        raise SystemExit("frame %d: %s and %s overlap" % (i, na, nb))

    def render(self, i):
        img = self.background.copy()
        for c in self.codes:
            r = self.code_rect(c, i, drawn=True)
            if r is None:
                continue
            x, y, w, h = r
            img[y - c["qy"]:y + h + c["qy"], x - c["qx"]:x + w + c["qx"]] = 255
            img[y:y + h, x:x + w] = c["img"][:, :, None]
            if i in c.get("hidden", ()):
                # A grey panel over the whole symbol and its quiet zone.
                img[y - c["qy"] - 2:y + h + c["qy"] + 2, x - c["qx"] - 2:x + w + c["qx"] + 2] = (118, 112, 104)
        for f in self.faces:
            if i < f["first"]:
                continue
            x, y = self.face_pos(f, i)
            a = f["alpha"][:, :, None]
            h, w = f["alpha"].shape
            region = img[y:y + h, x:x + w].astype(np.float64)
            img[y:y + h, x:x + w] = np.clip(np.floor(f["rgb"] * a + region * (1 - a) + 0.5), 0, 255).astype(np.uint8)
            if f["track"] == 1 and i in COVER_FACE:
                bx, by, bw, bh = f["box"]
                top = ms.round_half_up(y + by + bh * 2 / 3)
                img[top:ms.round_half_up(y + by + bh), x:x + w] = (70, 70, 80)
        if i in BLUR:
            img = gaussian_blur(img, 1.2)
        return img

    def truth(self, i):
        faces = []
        for f in self.faces:
            if i >= f["first"]:
                x, y = self.face_pos(f, i)
                bx, by, bw, bh = f["box"]
                faces.append({"track": f["track"], "box": ms.box_json(x + bx, y + by, bw, bh)})
        codes = []
        for c in self.codes:
            r = self.code_rect(c, i)
            if r:
                x, y, w, h = r
                codes.append({"track": c["track"], "symbology": c["symbology"], "text": c["text"],
                              "box": ms.box_json(x, y, w, h),
                              "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]})
        return {"type": "frame", "index": i, "t": round(i / FPS, 6), "faces": faces, "codes": codes}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=".", help="output folder (default: the current folder)")
    ap.add_argument("--name", default="tracking-scene-720p", help="base name of the outputs")
    args = ap.parse_args()
    scene = Scene()
    os.makedirs(args.out, exist_ok=True)
    video = os.path.join(args.out, args.name + ".mp4")
    cmd = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
           "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "%dx%d" % (W, H), "-r", str(FPS), "-i", "-", "-an",
           "-vf", "scale=flags=bicubic+accurate_rnd+bitexact:out_color_matrix=bt709:out_range=tv,format=yuv420p",
           "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-g", "60", "-threads", "1",
           "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
           "-r", str(FPS), "-fps_mode", "cfr", "-map_metadata", "-1", "-fflags", "+bitexact", video]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    lines = [ms.dumps({
        "type": "stream", "truth": True, "source": args.name + ".mp4", "width": W, "height": H,
        "frame_rate": [FPS, 1], "frames": FRAMES,
        "objects": [{"track": f["track"], "kind": "face", "label": f["label"]} for f in FACES]
        + [{"track": c["track"], "kind": "code", "symbology": c["symbology"], "text": c["text"]} for c in CODES]})]
    try:
        for i in range(FRAMES):
            proc.stdin.write(scene.render(i).tobytes())
            lines.append(ms.dumps(scene.truth(i)))
        proc.stdin.close()
    except BrokenPipeError:
        pass
    if proc.wait() != 0:
        raise SystemExit("ffmpeg failed")
    with open(os.path.join(args.out, args.name + ".truth.jsonl"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote %s (%d frames)" % (video, FRAMES))


if __name__ == "__main__":
    sys.exit(main())
