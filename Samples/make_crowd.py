#!/usr/bin/python3
"""Generate the crowd scene or the small-faces scene: faces among larger ones, with exact ground truth.

Real faces (the 18 boxes of the shared dlib test photos, and the sample's astronaut) are cut
with a margin and pasted, scaled, onto a textured background, walking on straight paths. Every
position is a pure function of the frame index, so the truth describes exactly what was drawn.

--scene crowd (default): faces of 16-60 px among larger ones of 80-180 px, some entering from
the edges, some crossing each other, some partly covered by passing poles, a few darkened.

--scene small: SMALL below, 24 faces of 16-40 px (13 of them 16-22 px) and three of 90-150 px,
laid out against the small-face tile schedule at 1920x1080: 5 x 3 tiles of 448x416 px, row by
row (x origins 0, 368, 736, 1104, 1472; y origins 0, 332, 664; neighbours overlap by 80 px across
and 84 px down), tile k = row * 5 + col searched on the frames whose index % 15 == k. Every tile
holds a face in its own part (covered by no other tile); six faces lie on overlap bands (centred
on one, cut by one tile's edge, one where four tiles meet); five are there from frame 0 and the
others appear on frames 3-35, each 2-9 frames after its tiles' last visit, so a tile finds it
6-13 frames late; three leave before the end (two stop being drawn, one walks out of the frame);
most drift by up to 2 px a frame, three of them across a tile's edge; one is darkened. The
frame numbers in SMALL's comments are for the default 2 s (60 frames).

Usage:
    /usr/bin/python3 Samples/make_crowd.py [--scene crowd|small] [--out DIR] [--name NAME]
                                           [--seconds S] [--size WxH] [--faces DIR]

Writes NAME.mp4 (default crowd-1080p or small-faces-1080p, 1920x1080, 30 fps, 2 s) and
NAME.truth.jsonl in DIR (the current folder by default), in the format of
faces-and-codes-720p.truth.jsonl. A face is in the truth of a frame when at least 60 % of its
box is inside the frame and not covered; its box is the dlib box scaled (cheek to cheek, brow to
chin), clipped to the frame, with the fraction visible as "visible" and the box height as
"size". Same requirements as make_samples.py.
"""

import argparse
import csv
import json
import os
import subprocess

import numpy as np
import skimage.data
from skimage import io
from skimage.transform import resize

FPS = 30
MARGIN = 0.45          # crop margin around the face box, as a share of the box's width
REF_W, REF_H = 1920, 1080

# (face source, face height in px at 1920x1080, path from, path to, darkening, first frame)
# Positions are the face box's centre on the reference canvas, paths in pixels over the whole
# scene; sources index `faces()` (0: astronaut, 1..: dlib faces, largest first).
PEOPLE = [
    # larger faces
    (0, 180, (300, 620), (520, 600), 1.0, 0),
    (1, 140, (1500, 560), (1320, 600), 1.0, 0),
    (2, 110, (-80, 820), (500, 800), 1.0, 0),          # enters from the left
    (3, 90, (1000, 950), (1150, 930), 0.45, 0),         # dark
    # the crowd: 16-60 px, some entering from the edges, some crossing
    (4, 60, (760, 420), (860, 430), 1.0, 0),
    (5, 52, (980, 380), (880, 400), 1.0, 0),            # crosses the one above
    (6, 48, (1990, 300), (1700, 320), 1.0, 0),          # enters from the right
    (7, 44, (200, 300), (330, 300), 0.5, 0),            # dark
    (8, 40, (1200, 250), (1260, 270), 1.0, 0),
    (9, 36, (640, -30), (660, 200), 1.0, 0),            # enters from the top
    (10, 32, (1400, 330), (1360, 350), 1.0, 7),         # appears off any 5-frame grid
    (11, 30, (460, 260), (520, 240), 1.0, 0),
    (12, 28, (1650, 180), (1580, 190), 1.0, 0),
    (13, 26, (1080, 180), (1120, 160), 0.6, 0),         # dark
    (14, 24, (880, 240), (800, 250), 1.0, 0),
    (15, 22, (300, 150), (360, 170), 1.0, 13),
    (16, 20, (1300, 120), (1330, 130), 1.0, 0),
    (17, 18, (700, 130), (680, 120), 1.0, 0),
    (0, 16, (1760, 110), (1720, 100), 1.0, 0),
    (1, 17, (560, 110), (590, 115), 1.0, 0),
    (2, 34, (1100, 520), (1000, 530), 1.0, 0),          # passes behind the pole
    (3, 50, (1700, 760), (1820, 740), 1.0, 0),
]

# Poles crossing the scene: (x at the first frame, x at the last, width, top, bottom).
POLES = [(1040, 1010, 26, 440, 640), (150, 230, 30, 0, 420)]

# The small-faces scene: PEOPLE's columns, then the last frame drawn (None: to the end). Tiles as
# in the docstring: columns x 0-448, 368-816, 736-1184, 1104-1552, 1472-1920, rows y 0-416,
# 332-748, 664-1080; a tile's own part (in no other tile) is x 0-368, 448-736, 816-1104,
# 1184-1472, 1552-1920 by y 0-332, 416-664, 748-1080. "d after its visit": the face appears d
# frames after its tile k was last searched (frame % 15 == k), so that tile finds it 15 - d late.
SMALL = [
    # larger faces, on overlap bands (the whole-frame pass finds them)
    (0, 150, (408, 706), (440, 700), 1.0, 0, None),     # on the corner of tiles 5, 6, 10, 11
    (1, 120, (1512, 706), (1490, 720), 1.0, 0, None),   # on the corner of tiles 8, 9, 13, 14
    (2, 90, (960, 890), (1000, 880), 1.0, 0, None),     # tile 12
    # one face in each tile's own part
    (10, 24, (180, 160), (196, 160), 1.0, 0, None),     # tile 0 only, from frame 0 (found on it)
    (11, 20, (600, 150), (600, 150), 1.0, 5, None),     # tile 1 only, appears 4 after its visit
    (12, 32, (960, 120), (990, 130), 1.0, 26, None),    # tile 2 only, appears 9 after its visit
    (13, 16, (1330, 160), (1330, 160), 1.0, 20, None),  # tile 3 only, 2 after its visit: 13 late
    (14, 28, (1740, 150), (1700, 170), 1.0, 0, None),   # tile 4 only, from frame 0
    (15, 36, (90, 560), (120, 560), 1.0, 12, None),     # tile 5 only, appears 7 after its visit
    (16, 18, (560, 470), (560, 470), 1.0, 24, None),    # tile 6 only, appears 3 after its visit
    (17, 22, (900, 600), (920, 610), 1.0, 13, None),    # tile 7 only, appears 6 after its visit
    (18, 26, (1330, 560), (1330, 560), 1.0, 31, None),  # tile 8 only, appears 8 after its visit
    (5, 17, (1800, 600), (1790, 600), 1.0, 0, None),    # tile 9 only, from frame 0
    (6, 30, (150, 900), (170, 880), 0.5, 27, None),     # tile 10 only, dark, 2 after its visit
    (7, 40, (560, 1000), (590, 1000), 1.0, 15, 45),     # tile 11 only, 40 px, 4 after its visit, gone after 45
    (8, 19, (850, 1040), (850, 1040), 1.0, 21, None),   # tile 12 only, appears 9 after its visit
    (9, 21, (1330, 900), (1340, 900), 1.0, 0, 40),      # tile 13 only, from frame 0, gone after 40
    (4, 34, (1760, 860), (1740, 870), 1.0, 35, None),   # tile 14 only, appears 6 after its visit
    # on the overlap bands and tile edges
    (3, 22, (1144, 374), (1144, 374), 1.0, 25, None),   # where tiles 2, 3, 7, 8 meet, 8/7/3/2 after
    (10, 26, (408, 470), (408, 480), 1.0, 10, None),    # centred on the band of tiles 5 and 6, 5/4 after
    (11, 30, (1300, 374), (1350, 374), 1.0, 11, None),  # along the band of tiles 3 and 8, 8/3 after
    (12, 20, (448, 200), (448, 200), 1.0, 23, None),    # cut by tile 0's right edge: tile 1 only, 7 after
    (13, 24, (1736, 416), (1736, 416), 1.0, 18, None),  # cut by tile 4's bottom edge: tile 9 only, 9 after
    (14, 18, (704, 900), (822, 900), 1.0, 16, None),    # cut by tile 12's left edge at 16 (tile 11 only, 5
                                                        # after), both from 21, out of tile 11 from 52
    # moving across a tile's edge, walking out of the frame
    (15, 20, (1040, 560), (1158, 560), 1.0, 14, None),  # tile 7, 7 after its visit, into tile 8 from 37
    (16, 18, (250, 300), (250, 418), 1.0, 3, None),     # tile 0, 3 after its visit, into tile 5 from 21,
                                                        # out of tile 0 from 54
    (17, 22, (1880, 1000), (1951, 1000), 1.0, 0, None),  # tile 14, from frame 0, walks out: to 31
]

# --scene: default name, people (with the last frame drawn), poles.
SCENES = {"crowd": ("crowd-1080p", [p + (None,) for p in PEOPLE], POLES),
          "small": ("small-faces-1080p", SMALL, [])}


def faces(faces_dir):
    """Crops with a margin, and the face box inside each crop: the astronaut, then the dlib faces."""
    out = []
    astronaut = skimage.data.astronaut()
    x, y, w, h = 175, 65, 98, 98       # make_samples.py's face box (crop origin 144, 4)
    out.append((astronaut, (x, y, w, h)))
    with open(os.path.join(faces_dir, "training_boxes.csv")) as f:
        rows = sorted(csv.DictReader(f), key=lambda r: (-int(r["width"]), r["file"], int(r["left"])))
    images = {}
    for r in rows:
        if r["file"] not in images:
            images[r["file"]] = io.imread(os.path.join(faces_dir, r["file"]))[:, :, :3]
        out.append((images[r["file"]], tuple(int(r[k]) for k in ("left", "top", "width", "height"))))
    crops = []
    for img, (x, y, w, h) in out:
        m = int(MARGIN * w)
        x0, y0 = max(0, x - m), max(0, y - m)
        x1, y1 = min(img.shape[1], x + w + m), min(img.shape[0], y + h + m)
        # An oval around the head with a soft edge (alpha in the 4th channel), so the neighbours
        # of a group photo are not pasted with it: every face drawn is in the truth.
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32) + 0.5
        d = np.hypot((xx - (x + w / 2)) / (0.5 * w * 1.3), (yy - (y + h / 2)) / (0.5 * h * 1.5))
        alpha = np.clip((1.12 - d) / 0.12, 0, 1)[:, :, None]
        crops.append((np.concatenate([img[y0:y1, x0:x1].astype(np.float32), alpha], axis=2), (x - x0, y - y0, w, h)))
    return crops


def background(w, h):
    """A textured background: stripes, tiles and fixed fine grain, the same on every frame."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    grain = np.random.default_rng(7).normal(0, 9, (h, w, 1)).astype(np.float32)
    tiles = ((x // 48 + y // 48) % 2)[:, :, None] * 18
    base = np.stack([110 + 35 * np.sin(x / 23) * np.cos(y / 41), 100 + 30 * np.cos((x + y) / 37),
                     90 + 25 * np.sin(y / 19)], axis=2)
    return base + tiles + grain


class Crowd:
    def __init__(self, faces_dir, w, h, frames, people, poles):
        """people: rows of PEOPLE or SMALL, with the last frame (None: to the end); poles: as POLES."""
        self.w, self.h, self.frames, self.s = w, h, frames, w / REF_W
        self.people, self.pole_paths = people, poles
        self.crops = faces(faces_dir)
        self.bg = background(w, h)
        self.patches = {}   # (crop, height, width) -> the scaled crop: each person keeps one size

    def patch(self, src, ch, cw):
        key = (src, ch, cw)
        if key not in self.patches:
            self.patches[key] = resize(self.crops[src][0], (ch, cw), anti_aliasing=True, preserve_range=True)
        return self.patches[key]

    def layout(self, i):
        """Each person's pasted crop (x, y, w, h) and face box in frame pixels, in drawing order."""
        u = i / max(1, self.frames - 1)
        out = []
        for track, (src, size, a, b, dark, first, last) in enumerate(self.people, start=1):
            if i < first or (last is not None and i > last):
                continue
            crop, (fx, fy, fw, fh) = self.crops[src]
            k = size * self.s / fh
            cx = (a[0] + (b[0] - a[0]) * u) * self.s
            cy = (a[1] + (b[1] - a[1]) * u) * self.s
            box = (cx - fw * k / 2, cy - fh * k / 2, fw * k, fh * k)
            cw, ch = max(2, round(crop.shape[1] * k)), max(2, round(crop.shape[0] * k))
            px, py = round(box[0] - fx * k), round(box[1] - fy * k)
            out.append((track, src, dark, (px, py, cw, ch), box))
        return out

    def poles(self, i):
        u = i / max(1, self.frames - 1)
        return [(round((x0 + (x1 - x0) * u) * self.s), round(pw * self.s), round(top * self.s), round(bottom * self.s))
                for x0, x1, pw, top, bottom in self.pole_paths]

    def draw(self, i):
        """The frame, and its truth: faces at least 60 % visible (inside the frame, under no later
        face's oval and no pole)."""
        img = self.bg.copy()
        layout = self.layout(i)
        on_top = np.zeros((self.h, self.w), np.int32)   # which face (drawing order) shows at each pixel
        for order, (_, src, dark, (px, py, cw, ch), _) in enumerate(layout, start=1):
            patch = self.patch(src, ch, cw)
            x0, y0, x1, y1 = max(0, px), max(0, py), min(self.w, px + cw), min(self.h, py + ch)
            if x1 > x0 and y1 > y0:
                p = patch[y0 - py:y1 - py, x0 - px:x1 - px]
                a = p[:, :, 3:]
                img[y0:y1, x0:x1] = p[:, :, :3] * dark * a + img[y0:y1, x0:x1] * (1 - a)
                on_top[y0:y1, x0:x1][a[:, :, 0] > 0.5] = order
        for x, pw, top, bottom in self.poles(i):
            img[top:bottom, max(0, x):x + pw] = (60, 55, 50)
            on_top[top:bottom, max(0, x):x + pw] = 0
        faces = []
        for order, (track, _, _, _, (bx, by, bw, bh)) in enumerate(layout, start=1):
            x0, y0 = int(np.floor(bx)), int(np.floor(by))
            x1, y1 = int(np.ceil(bx + bw)), int(np.ceil(by + bh))
            cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(self.w, x1), min(self.h, y1)
            visible = 0 if cx1 <= cx0 or cy1 <= cy0 else int((on_top[cy0:cy1, cx0:cx1] == order).sum())
            share = visible / ((x1 - x0) * (y1 - y0))
            if share < 0.6:
                continue
            c0x, c0y = max(0.0, bx), max(0.0, by)
            c1x, c1y = min(float(self.w), bx + bw), min(float(self.h), by + bh)
            faces.append({"track": track, "box": {k: round(v, 2) for k, v in
                                                   zip("xywh", (c0x, c0y, c1x - c0x, c1y - c0y))},
                          "size": round(bh, 1), "visible": round(share, 2)})
        faces.sort(key=lambda f: f["track"])
        return np.clip(np.floor(img + 0.5), 0, 255).astype(np.uint8), faces


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scene", choices=sorted(SCENES), default="crowd")
    p.add_argument("--out", default=".")
    p.add_argument("--name", help="default: crowd-1080p or small-faces-1080p, after --scene")
    p.add_argument("--seconds", type=float, default=2)
    p.add_argument("--size", default="1920x1080")
    p.add_argument("--faces", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "dlib-faces"))
    a = p.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    frames = int(round(a.seconds * FPS))
    name, people, poles = SCENES[a.scene]
    a.name = a.name or name
    crowd = Crowd(a.faces, w, h, frames, people, poles)
    video = os.path.join(a.out, a.name + ".mp4")
    cmd = ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(FPS),
           "-i", "-", "-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-g", "60", "-threads", "1",
           "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", video]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    truth = [{"type": "stream", "truth": True, "source": a.name + ".mp4", "width": w, "height": h,
              "frame_rate": [FPS, 1], "frames": frames,
              "objects": [{"track": t, "kind": "face", "label": "person-%d" % t} for t in range(1, len(people) + 1)]}]
    for i in range(frames):
        img, faces = crowd.draw(i)
        proc.stdin.write(img.tobytes())
        truth.append({"type": "frame", "index": i, "t": round(i / FPS, 6), "faces": faces, "codes": []})
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("ffmpeg failed")
    with open(os.path.join(a.out, a.name + ".truth.jsonl"), "w") as f:
        for r in truth:
            f.write(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
