#!/usr/bin/env python3
"""Makes the INT8 CenterFace (NNCF post-training quantization, QDQ ONNX) from the f32 model, and
checks it against f32 before anything is installed.

    quantize_centerface.py F32.onnx OUT.onnx --video Samples/faces-and-codes-720p.mp4 --images DIR

Calibration frames are made here, never downloaded: frames of the repo's sample video, faces from
scikit-image's bundled pictures (DIR: astronaut.png, camera.png, lfw_subset.npy and textures)
pasted small on textured backgrounds, and darkened, blurred, noisy and partly covered copies of
both, because a model calibrated on clean frames only loses faces on dark, soft stage footage.
Everything is seeded, and ONNX Runtime runs on one thread, so the same inputs give the same file.
Exits 1, writing nothing, when the INT8 model loses a face that f32 finds on the check set.
Needs numpy, scipy, onnx, onnxruntime and nncf (rebuild.sh's virtual environment) and ffmpeg.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from scipy import ndimage

W, H = 640, 352     # Sightline's CenterFace input for 16:9 video at its default --face-width
SEED = 20261123
THRESHOLD, NMS_IOU = 0.4, 0.3
HEADS = ["537", "538", "539", "540"]  # heatmap, scale, offset, landmarks
# Kept in f32: the output heads. They set the scores at the 0.4 threshold and the box sizes, and
# cost little (4 small 1x1 convolutions at stride 4).
KEEP_F32 = ["Conv_536", "Sigmoid_537", "Conv_538", "Conv_539", "Conv_540"]


# --- the model ---------------------------------------------------------------------------------

def prepare(path):
    """Opset 9 -> 13 (NNCF refuses opset < 10); only the real input, with dynamic batch, height and
    width (the file lists its initializers as inputs and says 10x3x32x32); every node named after
    its first output, so the names (and ignored_scope) do not depend on NNCF's naming."""
    model = onnx.version_converter.convert_version(onnx.load(path), 13)
    graph = model.graph
    initializers = {i.name for i in graph.initializer}
    real = [i for i in graph.input if i.name not in initializers]
    del graph.input[:]
    graph.input.extend(real)
    for value, suffix in [(graph.input[0], "")] + [(o, "_" + o.name) for o in graph.output]:
        for d, name in zip(value.type.tensor_type.shape.dim, ["batch", None, "height", "width"]):
            if name:
                d.dim_param = name + suffix
    del graph.value_info[:]
    used = {i for node in graph.node for i in node.input}  # drops BatchNorm's num_batches_tracked
    kept = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    for node in graph.node:
        node.name = node.op_type + "_" + node.output[0]
    onnx.checker.check_model(model)
    return model


def session(model_or_path):
    """ONNX Runtime on the CPU, one thread: the same results on every machine size."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    source = model_or_path.SerializeToString() if isinstance(model_or_path, onnx.ModelProto) else model_or_path
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def detect(sess, frame, threshold=THRESHOLD):
    """CenterFace on one HxWx3 RGB frame (sides multiples of 32): boxes (x1, y1, x2, y2, score) and
    5 landmarks (x, y), in input pixels, after NMS."""
    heat, scale, offset, marks = sess.run(HEADS, {"input.1": to_input(frame)})
    ys, xs = np.nonzero(heat[0, 0] > threshold)
    score = heat[0, 0, ys, xs]
    bh, bw = np.exp(scale[0, 0, ys, xs]) * 4, np.exp(scale[0, 1, ys, xs]) * 4  # height channel first
    cx, cy = (xs + offset[0, 1, ys, xs] + 0.5) * 4, (ys + offset[0, 0, ys, xs] + 0.5) * 4
    x1, y1 = np.clip(cx - bw / 2, 0, frame.shape[1]), np.clip(cy - bh / 2, 0, frame.shape[0])
    boxes = np.stack([x1, y1, np.minimum(x1 + bw, frame.shape[1]), np.minimum(y1 + bh, frame.shape[0]), score], 1)
    lm = np.stack([np.stack([marks[0, 2 * j + 1, ys, xs] * bw + x1, marks[0, 2 * j, ys, xs] * bh + y1], 1)
                   for j in range(5)], 1)
    keep = nms(boxes)
    return boxes[keep], lm[keep]


def iou(a, b):
    """IoU of every box in a against every box in b (x1, y1, x2, y2)."""
    ix = np.clip(np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]), 0, None)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
    inter = ix * iy
    return inter / np.maximum(area(a)[:, None] + area(b)[None, :] - inter, 1e-9)


def nms(boxes):
    order, keep = list(np.argsort(-boxes[:, 4], kind="stable")), []
    while order:
        i = order.pop(0)
        keep.append(i)
        if order:
            overlap = iou(boxes[[i]], boxes[order])[0]
            order = [j for j, o in zip(order, overlap) if o <= NMS_IOU]
    return np.array(keep, dtype=int)


def match(ref, test, min_iou=0.5):
    """Greedy one-to-one matching by IoU: [(index in ref, index in test, IoU)]."""
    if len(ref) == 0 or len(test) == 0:
        return []
    m = iou(ref, test)
    pairs = []
    for flat in np.argsort(-m, axis=None, kind="stable"):
        i, j = divmod(int(flat), m.shape[1])
        if m[i, j] < min_iou:
            break
        if all(i != p[0] and j != p[1] for p in pairs):
            pairs.append((i, j, float(m[i, j])))
    return pairs


class Comparison:
    """f32 against INT8 detections, summed over frames."""

    def __init__(self):
        self.f32 = self.int8 = self.missed = self.extra = self.extra_frames = 0
        self.ious, self.dscore, self.shift = [], [], 0.0

    def add(self, ref, test, scale=(1.0, 1.0)):
        (rb, rl), (tb, tl) = ref, test
        pairs = match(rb, tb)
        self.f32 += len(rb)
        self.int8 += len(tb)
        self.missed += len(rb) - len(pairs)
        self.extra += len(tb) - len(pairs)
        self.extra_frames += len(rb) == 0 and len(tb) > 0
        for i, j, v in pairs:
            self.ious.append(v)
            self.dscore.append(abs(float(rb[i, 4] - tb[j, 4])))
            d = (rl[i] - tl[j]) * np.array(scale)
            self.shift = max(self.shift, float(np.sqrt((d ** 2).sum(1)).max()))

    def __str__(self):
        mean = np.mean(self.ious) if self.ious else float("nan")
        ds = np.array(self.dscore or [np.nan])
        return (f"f32 {self.f32}, int8 {self.int8}, missed {self.missed}, extra {self.extra} "
                f"({self.extra_frames} on frames without f32 faces), mean IoU {mean:.3f}, "
                f"max landmark shift {self.shift:.1f} px, score change mean {ds.mean():.3f} max {ds.max():.3f}")


# --- frames ------------------------------------------------------------------------------------

def to_input(frame):
    """HxWx3 RGB 0..255 -> 1x3xHxW float32, no normalisation (what CenterFace expects)."""
    return np.ascontiguousarray(frame.transpose(2, 0, 1)[None], dtype=np.float32)


def decode(path, size=None):
    """Every frame of a video or picture as RGB uint8 (ffmpeg, one thread; area scaling to size=(w, h),
    a 16:9 frame stretched to 640x352 as Sightline does)."""
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height", "-of", "csv=p=0", path],
                           check=True, capture_output=True, text=True).stdout
    w, h = size or map(int, probe.split(",")[:2])
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-threads", "1"]
                         + (["-vf", f"scale={size[0]}:{size[1]}:flags=area"] if size else [])
                         + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)


def resize(img, h, w):
    """Bilinear resize of HxW(x3) float to h x w."""
    f = (h / img.shape[0], w / img.shape[1]) + ((1,) if img.ndim == 3 else ())
    out = ndimage.zoom(img, f, order=1, grid_mode=True, mode="nearest")
    return out[:h, :w]


def darken(img, rng):
    """Dark stage: gain 0.25-0.6 and a gamma up to 1.8 (shadows sink further than highlights)."""
    gain, gamma = rng.uniform(0.25, 0.6), rng.uniform(1.0, 1.8)
    return 255.0 * (img / 255.0) ** gamma * gain


def blur(img, rng):
    if rng.random() < 0.5:
        return ndimage.gaussian_filter(img, (rng.uniform(1.0, 3.0),) * 2 + (0,))
    k = int(rng.integers(3, 8))
    return ndimage.uniform_filter(img, (k, k, 1))


def noise(img, rng):
    """Sensor noise: Gaussian read noise plus shot noise growing with brightness."""
    sigma = rng.uniform(3.0, 12.0)
    return img + rng.normal(0, 1, img.shape) * (sigma + 0.05 * np.sqrt(np.maximum(img, 0)) * sigma)


def degrade(img, rng):
    """One of: darkened, blurred, noisy, or two or three of those (dark and noisy together is what a
    camera in a dark room delivers)."""
    kinds = [[darken], [blur], [noise], [darken, noise], [blur, darken, noise], [blur, noise]]
    for f in kinds[int(rng.integers(len(kinds)))]:
        img = f(img, rng)
    return np.clip(img, 0, 255)


def load_faces(images):
    """Face patches (float RGB, the face filling most of the patch): astronaut.png's head (the
    sample video's face) and its mirror image, camera.png's head in half profile, and lfw_subset's
    100 small gray face crops (its other 100 pictures are not faces)."""
    astro = decode(os.path.join(images, "astronaut.png"))[0].astype(np.float32)
    camera = decode(os.path.join(images, "camera.png"))[0].astype(np.float32)
    faces = [astro[30:190, 160:290], astro[30:190, 160:290, :][:, ::-1], camera[50:220, 150:290]]
    lfw = np.load(os.path.join(images, "lfw_subset.npy"))[:100].astype(np.float32) * 255
    faces += [np.repeat(f[:, :, None], 3, 2) for f in lfw]
    return faces


def load_textures(images):
    names = ["brick.png", "grass.png", "gravel.png", "coffee.png", "chelsea.png", "rocket.jpg",
             "motorcycle_left.png", "hubble_deep_field.jpg", "coins.png", "page.png", "moon.png"]
    return [decode(os.path.join(images, n))[0].astype(np.float32) for n in names]


def scene(rng, faces, textures, backgrounds):
    """A 640x352 frame: a textured or video background and 2-12 faces of 16-200 px (most under 60),
    a quarter of them partly covered (their top or bottom third, or their left or right half)."""
    if rng.random() < 0.4:
        img = backgrounds[int(rng.integers(len(backgrounds)))].astype(np.float32).copy()
    else:
        t = textures[int(rng.integers(len(textures)))]
        img = resize(t, H, W)
        if rng.random() < 0.5:  # tinted, so gray textures do not all look alike
            img = img * rng.uniform(0.6, 1.2, 3)
    for _ in range(int(rng.integers(2, 13))):
        f = faces[int(rng.integers(len(faces)))]
        size = int(np.exp(rng.uniform(np.log(16), np.log(200 if rng.random() < 0.3 else 60))))
        h, w = size, max(8, int(size * f.shape[1] / f.shape[0]))
        patch = resize(f, h, w) * rng.uniform(0.7, 1.15)
        y, x = int(rng.integers(0, H - h)), int(rng.integers(0, W - w))
        img[y:y + h, x:x + w] = patch
        if rng.random() < 0.25:  # partly covered: a bar over the top, bottom or one side
            c = rng.uniform(0, 255, 3)
            part = int(rng.integers(4))
            if part == 0:
                img[y + h * 2 // 3:y + h, x:x + w] = c
            elif part == 1:
                img[y:y + h // 3, x:x + w] = c
            else:
                img[y:y + h, x + (w // 2 if part == 2 else 0):x + (w if part == 2 else w // 2)] = c
    return img


def calibration_frames(frames, images):
    """About 240 frames: the video's frames not in the check set (the check uses every 10th frame),
    the same frames degraded, and composed scenes with small and degraded faces."""
    rng = np.random.default_rng(SEED)
    clean = [frames[i] for i in range(5, len(frames), 10)]
    faces, textures = load_faces(images), load_textures(images)
    out = [f.astype(np.float32) for f in clean]
    out += [degrade(f.astype(np.float32), rng) for f in clean for _ in range(2)]
    for i in range(150):
        img = scene(rng, faces, textures, clean)
        out.append(degrade(img, rng) if i % 3 else np.clip(img, 0, 255))
    return [to_input(np.round(f)) for f in out]


def check_frames(frames):
    """The check set: every 10th frame of the sample video, and a darkened (gain 0.3), blurred
    (sigma 2) and noisy (sigma 8) copy of each."""
    rng = np.random.default_rng(SEED + 1)
    out = []
    for f in frames[::10].astype(np.float32):
        out += [f, f * 0.3, ndimage.gaussian_filter(f, (2, 2, 0)), f + rng.normal(0, 8, f.shape)]
    return [np.clip(np.round(f), 0, 255) for f in out]


# --- main --------------------------------------------------------------------------------------

def quantize(model, frames, keep_f32=KEEP_F32, preset="mixed", fast_bias=True, ranges="minmax", overflow_fix="enable"):
    import logging
    import nncf
    import nncf.onnx.engine
    from nncf.quantization.range_estimator import RangeEstimatorParametersSet
    nncf.set_log_level(logging.WARNING)  # not a line per layer left in f32
    # NNCF runs ONNX Runtime with its default thread count (one per core); pin it to one thread so
    # the statistics, and so the file, are the same on every machine.
    make_options = ort.SessionOptions

    def one_thread():
        o = make_options()
        o.intra_op_num_threads = o.inter_op_num_threads = 1
        return o
    nncf.onnx.engine.rt.SessionOptions = one_thread
    try:
        return nncf.quantize(model, nncf.Dataset(frames, lambda x: {"input.1": x}),
                             preset=getattr(nncf.QuantizationPreset, preset.upper()), subset_size=len(frames),
                             fast_bias_correction=fast_bias, ignored_scope=nncf.IgnoredScope(names=keep_f32),
                             advanced_parameters=nncf.AdvancedQuantizationParameters(
                                 overflow_fix=nncf.OverflowFix(overflow_fix),
                                 activations_range_estimator_params=getattr(RangeEstimatorParametersSet,
                                                                            ranges.upper())))
    finally:
        nncf.onnx.engine.rt.SessionOptions = make_options


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("f32")
    p.add_argument("out")
    p.add_argument("--video", required=True, help="Samples/faces-and-codes-720p.mp4")
    p.add_argument("--images", required=True, help="scikit-image's data folder")
    p.add_argument("--plain", action="store_true", help="calibrate on the clean video frames only")
    p.add_argument("--keep-f32", default=",".join(KEEP_F32), help="nodes left in f32 (comma-separated)")
    p.add_argument("--slow-bias", action="store_true", help="NNCF's full bias correction")
    p.add_argument("--preset", default="mixed", choices=["mixed", "performance"])
    # minmax: the activations' ranges cover everything seen in calibration (NNCF's default,
    # mean_minmax, averages each frame's extremes and clips the strong activations of frames full of
    # faces, so on a 1920x1088 crowd the INT8 model lost small and partly covered faces that f32
    # found; quantiles clip more and lose more).
    p.add_argument("--ranges", default="minmax",
                   choices=["minmax", "mean_minmax", "median_minmax", "mean_no_outliers_minmax", "mean_quantile",
                            "histogram"], help="how NNCF sets the activations' ranges")
    # enable: every layer's weights keep 7 bits. Without VNNI (AVX2, AVX-512 without VNNI) the CPU
    # multiplies 8-bit activations and weights in pairs into 16 bits, which saturate with 8-bit
    # weights: NNCF's default (the first layer only) lost 5 of 110 faces on the anonymization
    # scene with OpenVINO held to AVX2. With 7 bits the sums fit, and both CPU kinds compute the
    # same integers.
    p.add_argument("--overflow-fix", default="enable", choices=["enable", "first_layer_only", "disable"],
                   help="which layers' weights keep 7 bits (default: all)")
    p.add_argument("--no-check", action="store_true")
    a = p.parse_args()

    start = time.monotonic()
    model = prepare(a.f32)
    video = decode(a.video, (W, H))   # once: calibration and check both take their frames from it
    frames = calibration_frames(video, a.images)
    if a.plain:
        frames = frames[:len(video[5::10])]
    print(f"{len(frames)} calibration frames made in {time.monotonic() - start:.0f} s", file=sys.stderr)
    start = time.monotonic()
    int8 = quantize(model, frames, [n for n in a.keep_f32.split(",") if n], a.preset,
                    fast_bias=not a.slow_bias, ranges=a.ranges, overflow_fix=a.overflow_fix)
    print(f"quantized in {time.monotonic() - start:.0f} s", file=sys.stderr)

    if not a.no_check:
        ref, test, result = session(model), session(int8), Comparison()
        check = check_frames(video)
        for f in check:
            result.add(detect(ref, f), detect(test, f))
        print(f"check (sample video, {len(check)} frames): {result}", file=sys.stderr)
        mean = np.mean(result.ious) if result.ious else 0.0
        if result.f32 == 0 or result.missed or result.extra_frames or mean < 0.85:
            print("quantize_centerface: the INT8 model loses faces against f32; not written", file=sys.stderr)
            return 1
    onnx.save(int8, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
