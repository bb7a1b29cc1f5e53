"""Loads a `sightline export` file with Datumaro and prints what it found, as one JSON object.

    datumaro_load.py FORMAT FILE WORKDIR

FORMAT is mot, cvat-video or coco. The file is placed in the layout Datumaro's importer for that
format expects (MOT: SEQ/gt/gt.txt; CVAT: a single XML file; COCO: annotations/person_keypoints_
default.json beside an images/default folder) under WORKDIR, imported, and counted: items (frames
with annotations), bounding boxes per label (outside boxes of CVAT tracks left out), distinct track
ids per label, outside boxes per label, keypoint annotations with visible points, and the
attributes of code boxes.
"""
import json
import os
import shutil
import sys
from collections import defaultdict

import datumaro as dm
from datumaro.components.annotation import AnnotationType


def main():
    fmt, path, work = sys.argv[1], sys.argv[2], sys.argv[3]
    if fmt == "mot":
        os.makedirs(os.path.join(work, "seq", "gt"), exist_ok=True)
        shutil.copy(path, os.path.join(work, "seq", "gt", "gt.txt"))
        dataset = dm.Dataset.import_from(os.path.join(work, "seq"), "mot_seq")
    elif fmt == "cvat-video":
        dataset = dm.Dataset.import_from(path, "cvat")
    elif fmt == "coco":
        os.makedirs(os.path.join(work, "annotations"), exist_ok=True)
        os.makedirs(os.path.join(work, "images", "default"), exist_ok=True)
        shutil.copy(path, os.path.join(work, "annotations", "person_keypoints_default.json"))
        dataset = dm.Dataset.import_from(work, "coco_person_keypoints")
    else:
        raise SystemExit("unknown format " + fmt)

    labels = dataset.categories().get(AnnotationType.label)
    def name(label):
        return labels[label].name if labels is not None and label is not None else "none"

    boxes = defaultdict(int)
    outside = defaultdict(int)
    tracks = defaultdict(set)
    keypoints = 0
    visible_points = 0
    payloads = defaultdict(set)
    items = 0
    for item in dataset:
        items += 1
        for ann in item.annotations:
            if ann.type == AnnotationType.bbox:
                if ann.attributes.get("outside") is True:
                    outside[name(ann.label)] += 1
                    continue
                label = name(ann.label)
                boxes[label] += 1
                if "track_id" in ann.attributes:
                    tracks[label].add(int(ann.attributes["track_id"]))
                if "payload" in ann.attributes:
                    payloads[ann.attributes.get("symbology", "")].add(ann.attributes["payload"])
            elif ann.type == AnnotationType.points and len(ann.points) > 0:
                keypoints += 1
                visible_points += sum(1 for v in ann.visibility if int(v) == 2)
    print(json.dumps({
        "items": items,
        "boxes": dict(boxes),
        "outside": dict(outside),
        "tracks": {k: sorted(v) for k, v in tracks.items()},
        "keypoint_annotations": keypoints,
        "visible_points": visible_points,
        "payloads": {k: sorted(v) for k, v in payloads.items()},
        "keypoint_labels": [list(c.labels) for _, c in sorted(dataset.categories()[AnnotationType.points].items.items())]
        if AnnotationType.points in dataset.categories() else [],
    }, sort_keys=True))


if __name__ == "__main__":
    main()
