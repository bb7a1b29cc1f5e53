#!/usr/bin/python3
"""Reference for the benchmark: what a straightforward Python script does with the same libraries.

Reads a video with OpenCV, finds faces with UltraFace-320 through OpenCV's DNN module and codes
with zxing-cpp on every frame, and prints frames per second. Sightline's speed is reported as a
multiple of this script's on the same file, in the same run.

usage: Scripts/reference_ultraface.py VIDEO MODEL.onnx
needs: Debian's python3-opencv and python3-zxing-cpp (apt-get install python3-opencv python3-zxing-cpp)
"""
import sys
import time

import cv2
import numpy as np
import zxingcpp


def main():
    video, model = sys.argv[1], sys.argv[2]
    net = cv2.dnn.readNet(model)
    capture = cv2.VideoCapture(video)
    frames = faces = codes = 0
    start = time.monotonic()
    while True:
        ok, bgr = capture.read()
        if not ok:
            break
        h, w = bgr.shape[:2]
        blob = cv2.dnn.blobFromImage(bgr, 1 / 128, (320, 240), (127, 127, 127), swapRB=True)
        net.setInput(blob)
        scores, boxes = net.forward(["scores", "boxes"])
        keep = scores[0, :, 1] > 0.7
        rects = [[float(x0 * w), float(y0 * h), float((x1 - x0) * w), float((y1 - y0) * h)]
                 for x0, y0, x1, y1 in boxes[0][keep]]
        faces += len(cv2.dnn.NMSBoxes(rects, scores[0, keep, 1].tolist(), 0.7, 0.3)) if rects else 0
        # try_downscale off, as in Sightline: zxing-cpp 1.4 aborts on an assertion in that pass.
        codes += len(zxingcpp.read_barcodes(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), try_downscale=False))
        frames += 1
    elapsed = time.monotonic() - start
    print(f"{frames} frames, {faces} faces, {codes} codes, {elapsed:.2f} s, {frames / elapsed:.1f} fps")


if __name__ == "__main__":
    main()
