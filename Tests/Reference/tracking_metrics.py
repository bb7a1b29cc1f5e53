#!/usr/bin/python3
"""Generates tracker/truth pairs in MOTChallenge text and their reference tracking metrics.

    tracking_metrics.py OUTDIR

For each scenario, OUTDIR/NAME/gt.txt (truth) and OUTDIR/NAME/tracker.txt (the tracker's output)
are written, and OUTDIR/reference.json holds, per scenario, what py-motmetrics 1.4.0 (MOTA, MOTP,
IDF1, IDP, IDR, ID switches; `compare_to_groundtruth` at IoU 0.5, as its MOTChallenge evaluation
does) and TrackEval 1.3.0 (HOTA and its parts, `HOTA().eval_sequence`) compute for it. The random
generator is seeded: the same files and numbers every run.
"""
import contextlib
import io
import json
import os
import random
import sys

import numpy as np

# motmetrics 1.4.0 calls np.asfarray, which NumPy 2 removed.
if not hasattr(np, "asfarray"):
    np.asfarray = lambda a, dtype=float: np.asarray(a, dtype=dtype)
import motmetrics as mm  # noqa: E402

# trackeval prints a note about optional dataset modules it cannot load (not needed here).
with contextlib.redirect_stdout(io.StringIO()):
    import trackeval  # noqa: E402
    from trackeval.datasets._base_dataset import _BaseDataset  # noqa: E402

WIDTH, HEIGHT = 1280, 720


def objects(rng, count, frames):
    """Truth: `count` boxes moving on straight lines, each visible in a random span of frames.
    Returns {id: {frame: (x, y, w, h)}} with 1-based frames."""
    truth = {}
    for k in range(count):
        w = rng.uniform(40, 160)
        h = w * rng.uniform(1.0, 1.4)
        x, y = rng.uniform(0, WIDTH - w), rng.uniform(0, HEIGHT - h)
        vx, vy = rng.uniform(-6, 6), rng.uniform(-4, 4)
        first = rng.randint(1, frames // 3)
        last = rng.randint(first + frames // 3, frames)
        track = {}
        for f in range(first, last + 1):
            track[f] = (x + vx * (f - first), y + vy * (f - first), w, h)
        truth[k + 1] = track
    return truth


def jitter(rng, box, amount):
    """The box moved and resized by up to `amount` of its size."""
    x, y, w, h = box
    return (x + rng.uniform(-amount, amount) * w, y + rng.uniform(-amount, amount) * h,
            w * (1 + rng.uniform(-amount, amount)), h * (1 + rng.uniform(-amount, amount)))


def perturbed(rng):
    truth = objects(rng, 6, 80)
    tracker = {i + 100: {f: jitter(rng, b, 0.18) for f, b in t.items()} for i, t in truth.items()}
    return truth, tracker


def swapped_ids(rng):
    truth = objects(rng, 6, 80)
    tracker = {i + 100: {f: jitter(rng, b, 0.06) for f, b in t.items()} for i, t in truth.items()}
    # Tracks 101/102 and 103/104 trade ids from frames 30 and 50 on; 105 takes 106's id for 10 frames.
    def swap(a, b, start, end=81):
        for f in range(start, end):
            ba, bb = tracker[a].pop(f, None), tracker[b].pop(f, None)
            if ba is not None:
                tracker[b][f] = ba
            if bb is not None:
                tracker[a][f] = bb
    swap(101, 102, 30)
    swap(103, 104, 50)
    swap(105, 106, 40, 50)
    return truth, tracker


def fragmented(rng):
    truth = objects(rng, 5, 90)
    tracker = {}
    next_id = 200
    for t in truth.values():
        frames = sorted(t)
        # Gaps of 1 to 6 frames; after some gaps the track comes back under a new id.
        current = next_id
        next_id += 1
        k = 0
        while k < len(frames):
            run = rng.randint(5, 20)
            for f in frames[k:k + run]:
                tracker.setdefault(current, {})[f] = jitter(rng, t[f], 0.08)
            k += run + rng.randint(1, 6)
            if rng.random() < 0.5:
                current = next_id
                next_id += 1
    return truth, tracker


def missing_tracks(rng):
    truth = objects(rng, 8, 70)
    tracker = {}
    for i, t in truth.items():
        if i in (2, 5):
            continue   # never found
        frames = sorted(t)
        keep = frames if i != 7 else frames[: len(frames) // 3]   # lost early
        tracker[i + 300] = {f: jitter(rng, t[f], 0.1) for f in keep}
    return truth, tracker


def false_positives(rng):
    truth = objects(rng, 4, 60)
    tracker = {i + 400: {f: jitter(rng, b, 0.08) for f, b in t.items()} for i, t in truth.items()}
    # Persistent phantom tracks, and single-frame clutter, some overlapping truth boxes.
    for k in range(3):
        phantom = objects(rng, 1, 60)[1]
        tracker[500 + k] = phantom
    clutter = 600
    for f in range(1, 61):
        for _ in range(rng.randint(0, 2)):
            if rng.random() < 0.4 and truth:
                owner = truth[rng.choice(sorted(truth))]
                if f in owner:
                    tracker[clutter] = {f: jitter(rng, owner[f], 0.35)}
                    clutter += 1
                    continue
            tracker[clutter] = {f: jitter(rng, (rng.uniform(0, 1100), rng.uniform(0, 560), 90, 110), 0.2)}
            clutter += 1
    return truth, tracker


def duplicates_after_gap(rng):
    """Each tracker track misses a few frames; when it comes back, a second, better-placed
    hypothesis appears beside it for a while. py-motmetrics keeps the object with its earlier
    hypothesis (no ID switch; the newcomer is a false positive)."""
    truth = objects(rng, 5, 60)
    tracker = {}
    extra = 900
    for i, t in truth.items():
        frames = sorted(t)
        gap = frames[len(frames) // 2]
        tracker[i + 800] = {f: jitter(rng, t[f], 0.12) for f in frames if not gap <= f < gap + 3}
        tracker[extra] = {f: jitter(rng, t[f], 0.01) for f in frames if gap + 3 <= f < gap + 8}
        extra += 1
    return truth, tracker


def mixed(rng):
    """Everything at once, with crossing objects: switches, gaps, misses and clutter interact
    (a hypothesis lost for some frames and found again, another taking its object meanwhile)."""
    truth = objects(rng, 10, 120)
    tracker = {}
    next_id = 700
    for i, t in truth.items():
        if i == 3:
            continue
        current = next_id
        next_id += 1
        for f in sorted(t):
            if rng.random() < 0.08:
                continue   # missed in this frame
            if rng.random() < 0.02:
                current = next_id   # a new id from here
                next_id += 1
            tracker.setdefault(current, {})[f] = jitter(rng, t[f], 0.15)
    # Two tracker ids exchange their objects for a stretch, then return.
    ids = sorted(tracker)[:2]
    for f in range(40, 70):
        a, b = tracker[ids[0]].pop(f, None), tracker[ids[1]].pop(f, None)
        if a is not None:
            tracker[ids[1]][f] = a
        if b is not None:
            tracker[ids[0]][f] = b
    for f in range(1, 121):
        if rng.random() < 0.5:
            tracker[next_id] = {f: jitter(rng, (rng.uniform(0, 1100), rng.uniform(0, 560), 80, 100), 0.3)}
            next_id += 1
    return truth, tracker


SCENARIOS = [("perturbed", perturbed), ("swapped_ids", swapped_ids), ("fragmented", fragmented),
             ("missing_tracks", missing_tracks), ("false_positives", false_positives), ("duplicates_after_gap", duplicates_after_gap), ("mixed", mixed)]


def rows(tracks, rng, scores):
    """MOTChallenge lines, sorted by frame and id, boxes with 2 decimals (as Sightline writes them)."""
    out = []
    for tid, track in tracks.items():
        for f, (x, y, w, h) in track.items():
            conf = "%.3f" % rng.uniform(0.3, 1.0) if scores else "1"
            out.append((f, tid, "%d,%d,%.2f,%.2f,%.2f,%.2f,%s,-1,-1,-1" % (f, tid, x, y, max(w, 1), max(h, 1), conf)))
    return [line for _, _, line in sorted(out)]


def read(path):
    """{frame: [(id, [x, y, w, h])]} from MOTChallenge text."""
    frames = {}
    with open(path) as f:
        for line in f:
            v = line.strip().split(",")
            frames.setdefault(int(v[0]), []).append((int(v[1]), [float(c) for c in v[2:6]]))
    return frames


def motmetrics_reference(gt_path, tracker_path):
    gt = mm.io.loadtxt(gt_path, fmt="mot15-2D", min_confidence=1)
    ts = mm.io.loadtxt(tracker_path, fmt="mot15-2D")
    acc = mm.utils.compare_to_groundtruth(gt, ts, "iou", distth=0.5)
    names = ["mota", "motp", "idf1", "idp", "idr", "num_switches", "num_misses", "num_false_positives",
             "num_objects", "num_detections"]
    summary = mm.metrics.create().compute(acc, metrics=names, name="seq")
    return {n: float(summary[n].iloc[0]) for n in names}


def trackeval_reference(gt_path, tracker_path):
    gt, tr = read(gt_path), read(tracker_path)
    gt_ids = {i: k for k, i in enumerate(sorted({i for rows in gt.values() for i, _ in rows}))}
    tr_ids = {i: k for k, i in enumerate(sorted({i for rows in tr.values() for i, _ in rows}))}
    data = {"gt_ids": [], "tracker_ids": [], "similarity_scores": [],
            "num_gt_ids": len(gt_ids), "num_tracker_ids": len(tr_ids),
            "num_gt_dets": sum(len(r) for r in gt.values()), "num_tracker_dets": sum(len(r) for r in tr.values())}
    for f in range(1, max(list(gt) + list(tr)) + 1):
        g, t = gt.get(f, []), tr.get(f, [])
        data["gt_ids"].append(np.array([gt_ids[i] for i, _ in g], dtype=int))
        data["tracker_ids"].append(np.array([tr_ids[i] for i, _ in t], dtype=int))
        gb = np.array([b for _, b in g], dtype=float).reshape(-1, 4)
        tb = np.array([b for _, b in t], dtype=float).reshape(-1, 4)
        data["similarity_scores"].append(_BaseDataset._calculate_box_ious(gb, tb, box_format="xywh"))
    res = trackeval.metrics.HOTA().eval_sequence(data)
    return {k: float(np.mean(res[k])) for k in ["HOTA", "DetA", "AssA", "DetRe", "DetPr", "AssRe", "AssPr", "LocA"]}


def main():
    out = sys.argv[1]
    reference = {}
    for index, (name, make) in enumerate(SCENARIOS):
        rng = random.Random(20261124 + index)
        truth, tracker = make(rng)
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        gt_path, tracker_path = os.path.join(folder, "gt.txt"), os.path.join(folder, "tracker.txt")
        with open(gt_path, "w") as f:
            f.write("\n".join(rows(truth, rng, scores=False)) + "\n")
        with open(tracker_path, "w") as f:
            f.write("\n".join(rows(tracker, rng, scores=True)) + "\n")
        reference[name] = {"motmetrics": motmetrics_reference(gt_path, tracker_path),
                           "trackeval": trackeval_reference(gt_path, tracker_path)}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"motmetrics": mm.__version__ if hasattr(mm, "__version__") else None,
                   "trackeval": trackeval.__version__, "scenarios": reference}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
