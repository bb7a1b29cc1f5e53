#!/usr/bin/python3
"""Generate the synthetic sample video and its exact ground truth.

The scene contains two moving faces (a crop of scikit-image's public-domain
astronaut photo) and three machine-readable codes (two QR codes and one
EAN-13 barcode) over a plain, smooth background.  Every position is a pure
function of the frame index, so the truth file describes exactly what was
drawn.

Usage:
    /usr/bin/python3 Samples/make_samples.py [--size WxH] [--seconds S]
                                             [--out DIR] [--name NAME]

Defaults write Samples/faces-and-codes-720p.mp4 and
Samples/faces-and-codes-720p.truth.jsonl.

Requirements (Debian 12): ffmpeg (with libx264), qrencode, zint,
python3-numpy and python3-skimage.  Use the system interpreter
(/usr/bin/python3), which is the one those Debian packages install into.
"""

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
import skimage.data
import skimage.transform

FPS = 30

# The scene is laid out on a 1280x720 reference canvas.  For other frame sizes
# every position and size is multiplied by S = width / 1280.
REF_W, REF_H = 1280, 720

# Region of skimage.data.astronaut() (512x512) used for both faces:
# (x, y, w, h) in source pixels.  It holds the whole head with some hair above
# and the collar below.
ASTRONAUT_CROP = (144, 4, 160, 200)

# Face box inside that crop, (x, y, w, h) in crop pixels.  It was measured
# once by running OpenCV 4.6's haarcascade_frontalface_default.xml and
# haarcascade_frontalface_alt2.xml (detectMultiScale, scaleFactor 1.05,
# minNeighbors 3) on the crop resized by 0.5, 0.6, 0.75, 0.85, 1.0, 1.1, 1.25
# and 1.5.  The 16 detections had a median of (31.8, 61.5, 98, 98) and a mean
# of (31.3, 61.3, 98.2, 98.2); the box below is that consensus rounded to
# whole pixels and centred horizontally in the crop (the face is centred, so
# the same box is right for the mirrored copy).  Checked by eye: forehead
# below the fringe to the chin, cheek to cheek - the box a typical frontal
# face detector reports.
FACE_IN_CROP = (31, 61, 98, 98)

# Face sprites: scale applied to the crop (face width 1.1 * 98 = 107.8 px and
# 0.85 * 98 = 83.3 px on the reference canvas).
FACE_A_SCALE = 1.10   # 176 x 220 sprite
FACE_B_SCALE = 0.85   # 136 x 170 sprite, mirrored horizontally
FACE_FEATHER = 6      # soft edge of the pasted photo, reference pixels

# Motion of the sprites' top-left corners on the reference canvas, from the
# first frame to the last one (linear in the frame index).
FACE_A_PATH = ((20, 488), (1084, 488))    # left -> right along the bottom
FACE_B_PATH = ((1094, 20), (20, 500))     # top-right -> bottom-left

# Codes.  "module" is the module (X-dimension) size in reference pixels;
# "centre" is the centre of the symbol on the reference canvas; "quiet" is the
# white margin in modules (horizontal, vertical).
CODES = [
    {
        "track": 3,
        "symbology": "qr",
        "text": "https://example.org/sightline/qr-1",
        "module": 6,
        "quiet": (4, 4),
        # Slow vertical drift over the whole video.
        "centre_from": (131, 131),
        "centre_to": (131, 271),
        "appears": 0.0,
    },
    {
        "track": 4,
        "symbology": "qr",
        "text": "SIGHTLINE-QR-2 enters halfway",
        "module": 6,
        "quiet": (4, 4),
        "centre_from": (1120, 125),
        "centre_to": (1120, 125),
        # Absent for the first half of the video (frames 0 .. N/2 - 1).
        "appears": 0.5,
    },
    {
        "track": 5,
        "symbology": "ean13",
        "text": "5901234123457",
        "module": 3,
        "height": 100,        # bar height, reference pixels
        "quiet": (10, 4),
        "centre_from": (1080, 410),
        "centre_to": (1080, 410),
        "appears": 0.0,
    },
]

# Minimum distance kept between any two objects (face sprites, and codes
# including their quiet zones), reference pixels.  Checked for every frame.
MIN_GAP = 6

FACE_TRACKS = [
    {"track": 1, "kind": "face", "label": "astronaut"},
    {"track": 2, "kind": "face", "label": "astronaut-mirrored"},
]


def round_half_up(v):
    """Round to the nearest integer, halves upward (avoids banker's rounding)."""
    return int(math.floor(v + 0.5))


def lerp(a, b, u):
    return a + (b - a) * u


# --------------------------------------------------------------------------
# Symbols
# --------------------------------------------------------------------------

def qr_modules(text):
    """QR code as a bool array (True = dark), one element per module."""
    out = subprocess.run(
        ["qrencode", "-t", "ASCII", "-m", "0", "-l", "M", "-o", "-", text],
        check=True, capture_output=True, text=True).stdout
    rows = [line for line in out.split("\n") if line.strip("\n") != ""]
    n = len(rows)
    grid = np.zeros((n, n), dtype=bool)
    for r, line in enumerate(rows):
        line = line.ljust(2 * n)
        for c in range(n):
            grid[r, c] = line[2 * c] == "#"
    # Sanity check: the three finder patterns.
    for (r, c) in [(0, 0), (0, n - 7), (n - 7, 0)]:
        assert grid[r:r + 7, c:c + 7].sum() == 33, "unexpected qrencode output"
    return grid


def ean13_modules(digits):
    """EAN-13 bar pattern as a 1-D bool array of 95 modules (True = bar)."""
    out = subprocess.run(
        ["zint", "--dump", "-b", "EANX", "--notext", "-d", digits],
        check=True, capture_output=True, text=True).stdout
    bits = "".join(format(int(h, 16), "08b") for h in out.split())
    bars = np.array([b == "1" for b in bits[:95]], dtype=bool)
    assert bits[:3] == "101" and bits[45:50] == "01010" and bits[92:95] == "101", \
        "unexpected zint output"
    return bars


def build_symbol(spec, s):
    """Return (image uint8 HxW, quiet_x_px, quiet_y_px) for a code at scale s.

    Modules are integer-sized (never larger than the proportional size) so
    the symbol stays crisp.
    """
    module = max(1, int(math.floor(spec["module"] * s + 1e-9)))
    if spec["symbology"] == "qr":
        grid = qr_modules(spec["text"])
    elif spec["symbology"] == "ean13":
        bars = ean13_modules(spec["text"])
        grid = bars[None, :]
    else:
        raise ValueError(spec["symbology"])
    img = np.where(grid, 0, 255).astype(np.uint8)
    img = np.repeat(img, module, axis=1)
    if spec["symbology"] == "ean13":
        img = np.repeat(img, max(1, round_half_up(spec["height"] * s)), axis=0)
    else:
        img = np.repeat(img, module, axis=0)
    qx, qy = spec["quiet"]
    return img, qx * module, qy * module


# --------------------------------------------------------------------------
# Faces
# --------------------------------------------------------------------------

def face_sprite(scale, mirrored, s):
    """Return (rgb float64 HxWx3, alpha HxW, scale_x, scale_y)."""
    cx, cy, cw, ch = ASTRONAUT_CROP
    crop = skimage.data.astronaut()[cy:cy + ch, cx:cx + cw].astype(np.float64)
    if mirrored:
        crop = crop[:, ::-1]
    w = round_half_up(cw * scale * s)
    h = round_half_up(ch * scale * s)
    rgb = skimage.transform.resize(
        crop, (h, w, 3), order=1, mode="edge", anti_aliasing=True,
        preserve_range=True)
    feather = max(1.0, FACE_FEATHER * s)
    ys = np.arange(h) + 0.5
    xs = np.arange(w) + 0.5
    dy = np.minimum(ys, h - ys)[:, None]
    dx = np.minimum(xs, w - xs)[None, :]
    alpha = np.clip(np.minimum(dx, dy) / feather, 0.0, 1.0)
    return rgb, alpha, w / cw, h / ch


def face_box_in_sprite(mirrored, sx, sy):
    fx, fy, fw, fh = FACE_IN_CROP
    if mirrored:
        fx = ASTRONAUT_CROP[2] - fx - fw
    return (fx * sx, fy * sy, fw * sx, fh * sy)


# --------------------------------------------------------------------------
# Background
# --------------------------------------------------------------------------

def background(width, height, s):
    """Soft vertical gray-blue gradient with a few flat 'furniture' blocks."""
    v = (np.arange(height, dtype=np.float64) + 0.5) / height
    top = np.array([214.0, 220.0, 228.0])
    bottom = np.array([132.0, 144.0, 164.0])
    col = top[None, :] * (1.0 - v[:, None]) + bottom[None, :] * v[:, None]
    img = np.repeat(col[:, None, :], width, axis=1)
    img = np.floor(img + 0.5).astype(np.uint8)

    def rect(x, y, w, h, rgb):
        x0, y0 = round_half_up(x * s), round_half_up(y * s)
        x1, y1 = round_half_up((x + w) * s), round_half_up((y + h) * s)
        img[max(0, y0):min(height, y1), max(0, x0):min(width, x1)] = rgb

    rect(0, 600, 1280, 120, (112, 104, 98))     # floor strip
    rect(470, 60, 300, 190, (176, 168, 150))    # picture frame on the wall
    rect(486, 76, 268, 158, (150, 166, 176))    #   its canvas
    rect(80, 440, 260, 16, (96, 80, 66))        # shelf
    rect(820, 520, 360, 80, (120, 96, 78))      # low cabinet
    rect(836, 536, 150, 48, (134, 110, 90))     #   door
    rect(1014, 536, 150, 48, (134, 110, 90))    #   door
    return img


# --------------------------------------------------------------------------
# Scene geometry (pure functions of the frame index)
# --------------------------------------------------------------------------

class Scene:
    def __init__(self, width, height, frames):
        if width * REF_H != height * REF_W:
            raise SystemExit("size must be 16:9 (e.g. 1280x720, 1920x1080)")
        if frames < 2:
            raise SystemExit("need at least 2 frames")
        self.width, self.height, self.frames = width, height, frames
        self.s = s = width / REF_W

        self.faces = []
        for meta, scale, mirrored, path in [
                (FACE_TRACKS[0], FACE_A_SCALE, False, FACE_A_PATH),
                (FACE_TRACKS[1], FACE_B_SCALE, True, FACE_B_PATH)]:
            rgb, alpha, sx, sy = face_sprite(scale, mirrored, s)
            self.faces.append({
                "track": meta["track"], "rgb": rgb, "alpha": alpha,
                "path": path, "box": face_box_in_sprite(mirrored, sx, sy)})

        self.codes = []
        for spec in CODES:
            img, qx, qy = build_symbol(spec, s)
            self.codes.append(dict(spec, img=img, qx=qx, qy=qy,
                                   first=int(math.ceil(spec["appears"] * frames - 1e-9))))

        self.background = background(width, height, s)
        self.check_layout()

    def u(self, index):
        return index / (self.frames - 1)

    def face_pos(self, face, index):
        (x0, y0), (x1, y1) = face["path"]
        u = self.u(index)
        return (round_half_up(lerp(x0, x1, u) * self.s),
                round_half_up(lerp(y0, y1, u) * self.s))

    def code_rect(self, code, index):
        """Symbol rectangle (x, y, w, h) in frame pixels, or None if absent."""
        if index < code["first"]:
            return None
        u = self.u(index)
        cx = lerp(code["centre_from"][0], code["centre_to"][0], u) * self.s
        cy = lerp(code["centre_from"][1], code["centre_to"][1], u) * self.s
        h, w = code["img"].shape
        return (round_half_up(cx - w / 2), round_half_up(cy - h / 2), w, h)

    def check_layout(self):
        gap = MIN_GAP * self.s
        def apart(a, b):
            ax, ay, aw, ah = a
            bx, by, bw, bh = b
            return (ax + aw + gap <= bx or bx + bw + gap <= ax or
                    ay + ah + gap <= by or by + bh + gap <= ay)
        def inside(r):
            x, y, w, h = r
            return x >= 0 and y >= 0 and x + w <= self.width and y + h <= self.height
        for i in range(self.frames):
            rects = []
            for f in self.faces:
                x, y = self.face_pos(f, i)
                h, w = f["alpha"].shape
                rects.append(("face%d" % f["track"], (x, y, w, h)))
            for c in self.codes:
                r = self.code_rect(c, i)
                if r is not None:
                    x, y, w, h = r
                    rects.append(("code%d" % c["track"],
                                  (x - c["qx"], y - c["qy"], w + 2 * c["qx"], h + 2 * c["qy"])))
            for k, (na, ra) in enumerate(rects):
                if not inside(ra):
                    raise SystemExit("frame %d: %s leaves the frame" % (i, na))
                for nb, rb in rects[k + 1:]:
                    if not apart(ra, rb):
                        raise SystemExit("frame %d: %s and %s overlap" % (i, na, nb))

    # ------------------------------------------------------------------

    def render(self, index):
        img = self.background.copy()
        for c in self.codes:
            r = self.code_rect(c, index)
            if r is None:
                continue
            x, y, w, h = r
            img[y - c["qy"]:y + h + c["qy"], x - c["qx"]:x + w + c["qx"]] = 255
            img[y:y + h, x:x + w] = c["img"][:, :, None]
        for f in self.faces:
            x, y = self.face_pos(f, index)
            a = f["alpha"][:, :, None]
            h, w = f["alpha"].shape
            region = img[y:y + h, x:x + w].astype(np.float64)
            blended = f["rgb"] * a + region * (1.0 - a)
            img[y:y + h, x:x + w] = np.clip(np.floor(blended + 0.5), 0, 255).astype(np.uint8)
        return img

    def truth(self, index):
        faces = []
        for f in self.faces:
            x, y = self.face_pos(f, index)
            bx, by, bw, bh = f["box"]
            faces.append({"track": f["track"],
                          "box": box_json(x + bx, y + by, bw, bh)})
        codes = []
        for c in self.codes:
            r = self.code_rect(c, index)
            if r is None:
                continue
            x, y, w, h = r
            codes.append({
                "track": c["track"],
                "symbology": c["symbology"],
                "text": c["text"],
                "box": box_json(x, y, w, h),
                "polygon": [[num(x), num(y)], [num(x + w), num(y)],
                            [num(x + w), num(y + h)], [num(x), num(y + h)]],
            })
        return {"type": "frame", "index": index, "t": round(index / FPS, 6),
                "faces": faces, "codes": codes}


def num(v):
    """Geometry number: integer when whole, otherwise at most 2 decimals."""
    r = round(float(v), 2)
    return int(r) if r == int(r) else r


def box_json(x, y, w, h):
    return {"x": num(x), "y": num(y), "w": num(w), "h": num(h)}


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="1280x720", help="WxH, 16:9 (default 1280x720)")
    ap.add_argument("--seconds", type=float, default=10.0, help="duration (default 10)")
    ap.add_argument("--out", default=here, help="output folder (default: this folder)")
    ap.add_argument("--name", default="faces-and-codes-720p",
                    help="base name of the outputs (default faces-and-codes-720p)")
    args = ap.parse_args()

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise SystemExit("--size must look like 1280x720")
    if width % 2 or height % 2:
        raise SystemExit("width and height must be even (yuv420p)")
    frames = round_half_up(args.seconds * FPS)

    scene = Scene(width, height, frames)
    os.makedirs(args.out, exist_ok=True)
    video = os.path.join(args.out, args.name + ".mp4")
    truth_path = os.path.join(args.out, args.name + ".truth.jsonl")

    cmd = [
        "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
        "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "%dx%d" % (width, height),
        "-r", str(FPS), "-i", "-",
        "-an",
        "-vf", "scale=flags=bicubic+accurate_rnd+bitexact"
               ":out_color_matrix=bt709:out_range=tv,format=yuv420p",
        "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-g", "60",
        "-threads", "1",
        "-colorspace", "bt709", "-color_primaries", "bt709",
        "-color_trc", "bt709", "-color_range", "tv",
        "-r", str(FPS), "-fps_mode", "cfr",
        "-map_metadata", "-1", "-fflags", "+bitexact",
        "-movflags", "+faststart",
        video,
    ]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    lines = [dumps({
        "type": "stream", "truth": True, "source": args.name + ".mp4",
        "width": width, "height": height, "frame_rate": [FPS, 1],
        "frames": frames,
        "objects": FACE_TRACKS + [
            {"track": c["track"], "kind": "code", "symbology": c["symbology"],
             "text": c["text"]} for c in CODES],
    })]
    try:
        for i in range(frames):
            proc.stdin.write(scene.render(i).tobytes())
            lines.append(dumps(scene.truth(i)))
        proc.stdin.close()
    except BrokenPipeError:
        pass
    if proc.wait() != 0:
        raise SystemExit("ffmpeg failed")

    with open(truth_path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote %s and %s (%d frames)" % (video, truth_path, frames))


if __name__ == "__main__":
    sys.exit(main())
