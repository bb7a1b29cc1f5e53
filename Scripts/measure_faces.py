#!/usr/bin/env python3
"""Measures face detectors on the sample video's truth and on dlib's hand-labelled faces.

For each backend it runs `sightline analyze` with `--codes off --threads 1`:
- on Samples/faces-and-codes-720p.mp4 against its truth (IoU >= 0.5, greedy matching as in
  `sightline audit`): recall, false positives per 100 frames, mean IoU of the matches, and
  ms/frame (the summary's wall_seconds from --timing over the frame count: one core);
- on ../shared/data/dlib-faces (18 faces of 37-91 px, --min-face 24, IoU >= 0.3 as that data
  set's README advises): faces found and false positives; for backends with landmarks, the eye
  error against training_with_face_landmarks.xml (eye centre = mean of dlib points 36-41 and
  42-47), as a fraction of the distance between the eye centres and of the outer eye corners
  (points 36 and 45, the 300-W normalization).

The DNN backends need their models (`sightline models fetch NAME`, or SIGHTLINE_MODELS=DIR).

The DNN backends are measured on each inference runtime of --runtimes (openvino, opencv);
--options adds analyze options to every run (e.g. "--face-threshold 0.4").

usage: Scripts/measure_faces.py [--sightline PATH] [--backends a,b] [--runtimes a,b] [--options "..."] [--gray] [--data DIR]
"""
import argparse, json, math, os, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


def iou(a, b):
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def box(face):
    b = face["box"]
    return (b["x"], b["y"], b["w"], b["h"])


def match(truth, found, min_iou):
    """Greedy by descending IoU: a list of (truth index, found index, iou)."""
    pairs = sorted(((iou(t, f), ti, fi) for ti, t in enumerate(truth) for fi, f in enumerate(found)
                    if iou(t, f) >= min_iou), key=lambda p: (-p[0], p[1], p[2]))
    used_t, used_f, out = set(), set(), []
    for v, ti, fi in pairs:
        if ti not in used_t and fi not in used_f:
            used_t.add(ti); used_f.add(fi); out.append((ti, fi, v))
    return out


def analyze(sightline, path, backend, extra):
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as out:
        run = subprocess.run([sightline, "analyze", path, "-q", "--codes", "off", "--threads", "1", "--timing",
                              "--faces", backend, "-o", out.name] + extra, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{backend}: {run.stderr.strip()}")
        lines = [json.loads(l) for l in open(out.name)]
    return [l for l in lines if l["type"] == "frame"], lines[-1]


def sample(sightline, backend, extra):
    truth = [json.loads(l) for l in open(os.path.join(HERE, "..", "Samples", "faces-and-codes-720p.truth.jsonl"))]
    truth = {t["index"]: [box(f) for f in t["faces"]] for t in truth if t["type"] == "frame"}
    frames, summary = analyze(sightline, os.path.join(HERE, "..", "Samples", "faces-and-codes-720p.mp4"), backend, extra)
    tp = fn = fp = 0
    ious = []
    for frame in frames:
        want, got = truth.get(frame["index"], []), [box(f) for f in frame["faces"]]
        m = match(want, got, 0.5)
        tp += len(m); fn += len(want) - len(m); fp += len(got) - len(m)
        ious += [v for _, _, v in m]
    return {"recall": tp / max(tp + fn, 1), "fp100": 100 * fp / max(len(frames), 1),
            "mean_iou": sum(ious) / max(len(ious), 1), "ms": 1000 * summary["wall_seconds"] / max(len(frames), 1)}


def dlib(sightline, backend, extra, data):
    root = ET.parse(os.path.join(data, "training_with_face_landmarks.xml")).getroot()
    found = total = fp = 0
    centre_err, corner_err = [], []
    for image in root.iter("image"):
        frames, _ = analyze(sightline, os.path.join(data, image.get("file")), backend, ["--min-face", "24"] + extra)
        faces = frames[0]["faces"]
        truth = list(image.iter("box"))
        boxes = [(int(b.get("left")), int(b.get("top")), int(b.get("width")), int(b.get("height"))) for b in truth]
        m = match(boxes, [box(f) for f in faces], 0.3)
        found += len(m); total += len(truth); fp += len(faces) - len(m)
        for ti, fi, _ in m:
            marks = faces[fi].get("landmarks")
            if not marks:
                continue
            # dlib points are pixel indexes: +0.5 gives the pixel centre in edge coordinates.
            parts = {int(p.get("name")): (int(p.get("x")) + 0.5, int(p.get("y")) + 0.5) for p in truth[ti].iter("part")}
            centre = lambda r: (sum(parts[i][0] for i in r) / len(r), sum(parts[i][1] for i in r) / len(r))
            left, right = centre(range(36, 42)), centre(range(42, 48))
            between, corners = math.dist(left, right), math.dist(parts[36], parts[45])
            for point, eye in ((marks["left_eye"], left), (marks["right_eye"], right)):
                centre_err.append(math.dist(point, eye) / between)
                corner_err.append(math.dist(point, eye) / corners)
    return {"found": found, "total": total, "fp": fp, "centre_err": centre_err, "corner_err": corner_err}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sightline", default=os.path.join(HERE, "..", ".build", "release", "sightline"))
    ap.add_argument("--backends", default="centerface,yunet,ultraface,ultraface-640,haar-alt2,haar,lbp")
    ap.add_argument("--runtimes", default="openvino,opencv", help="inference runtimes the DNN backends are run on")
    ap.add_argument("--options", default="", help="more analyze options for every run")
    ap.add_argument("--gray", action="store_true", help="also run the DNN backends with --face-gray")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "dlib-faces"))
    args = ap.parse_args()
    print("| --faces | sample recall | sample FP/100 frames | mean IoU | dlib found | dlib FP | ms/frame (1 core) | eye error / eye distance (mean, max, within 0.10) | eye error / outer corners (mean, within 0.10) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for backend in args.backends.split(","):
        dnn = backend in ("centerface", "yunet", "ultraface", "ultraface-640")
        base = args.options.split()
        variants = [(f" {r}", base + ["--dnn-runtime", r]) for r in args.runtimes.split(",")] if dnn else [("", base)]
        if args.gray and dnn:
            variants += [(label + " --face-gray", extra + ["--face-gray"]) for label, extra in variants]
        for label, extra in variants:
            s = sample(args.sightline, backend, extra)
            d = dlib(args.sightline, backend, extra, args.data)
            eyes = corners = "-"
            if d["centre_err"]:
                c, k = d["centre_err"], d["corner_err"]
                eyes = f"{sum(c) / len(c):.3f}, {max(c):.3f}, {sum(e <= 0.10 for e in c)}/{len(c)}"
                corners = f"{sum(k) / len(k):.3f}, {sum(e <= 0.10 for e in k)}/{len(k)}"
            print(f"| `{backend}`{label} | {s['recall']:.4f} | {s['fp100']:.2f} | {s['mean_iou']:.2f} | "
                  f"{d['found']}/{d['total']} | {d['fp']} | {s['ms']:.1f} | {eyes} | {corners} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
