#!/usr/bin/env python3
"""A copy of a sample video with its ground truth, scaled so that the smallest face has a given
size and placed in the middle of a larger frame (black around it), to measure how small a face
the detectors still find at a given resolution.

    Scripts/scale_sample.py Samples/faces-and-codes-720p.mp4 Samples/faces-and-codes-720p.truth.jsonl \\
        --face 40 --canvas 1920x1080 -o faces-40px-1080p.mp4

writes faces-40px-1080p.mp4 (H.264, ffmpeg/libx264) and faces-40px-1080p.truth.jsonl (every box
and polygon mapped the same way; codes too, though they may be too small to read).
"""
import argparse
import json
import subprocess
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("video")
    p.add_argument("truth")
    p.add_argument("--face", type=float, required=True, help="size in pixels of the smallest face after scaling")
    p.add_argument("--canvas", required=True, help="WxH of the output frame")
    p.add_argument("-o", "--output", required=True, help="output video (.mp4); the truth goes beside it as .truth.jsonl")
    a = p.parse_args()

    records = [json.loads(line) for line in open(a.truth)]
    stream = records[0]
    smallest = min(min(f["box"]["w"], f["box"]["h"]) for r in records if r["type"] == "frame" for f in r["faces"])
    cw, ch = (int(v) for v in a.canvas.lower().split("x"))
    scale = a.face / smallest
    # Even sizes (4:2:0), at least the asked face size.
    w = int(stream["width"] * scale + 1) // 2 * 2
    h = int(stream["height"] * scale + 1) // 2 * 2
    if w > cw or h > ch:
        sys.exit(f"scale_sample: the scaled picture {w}x{h} does not fit into {cw}x{ch}")
    ox, oy = (cw - w) // 2 // 2 * 2, (ch - h) // 2 // 2 * 2
    sx, sy = w / stream["width"], h / stream["height"]

    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", a.video,
                    "-vf", f"scale={w}:{h}:flags=area,pad={cw}:{ch}:{ox}:{oy}:black",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p", "-an", a.output],
                   check=True)

    def box(b):
        return {"x": round(b["x"] * sx + ox, 2), "y": round(b["y"] * sy + oy, 2),
                "w": round(b["w"] * sx, 2), "h": round(b["h"] * sy, 2)}

    truth = a.output.rsplit(".", 1)[0] + ".truth.jsonl"
    with open(truth, "w") as out:
        for r in records:
            if r["type"] == "stream":
                r = dict(r, width=cw, height=ch, source=a.output.rsplit("/", 1)[-1])
            elif r["type"] == "frame":
                r = dict(r, faces=[dict(f, box=box(f["box"])) for f in r["faces"]],
                         codes=[dict(c, box=box(c["box"]),
                                     polygon=[[round(x * sx + ox, 2), round(y * sy + oy, 2)] for x, y in c["polygon"]])
                                for c in r["codes"]])
            out.write(json.dumps(r, separators=(",", ":")) + "\n")
    print(f"{a.output}: {cw}x{ch}, the sample scaled by {sx:.4f} x {sy:.4f} to {w}x{h} at ({ox}, {oy}); "
          f"smallest face {smallest * min(sx, sy):.1f} px; truth in {truth}")


if __name__ == "__main__":
    main()
