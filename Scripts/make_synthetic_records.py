#!/usr/bin/env python3
"""Writes a synthetic Sightline record file of any size, to try `sightline report` on long runs.

    Scripts/make_synthetic_records.py -o long.jsonl [--frames 1000000] [--tracks 10000] [--seed 1]

The file has the shape `sightline analyze` writes (stream record, one frame record per frame, a
track record when a track ends, the summary) for a 1280x720 video at 30 fps: faces and codes (QR
and EAN-13 with distinct payloads) that move, are sometimes unseen for a few frames (gaps), and are
found by region search or interpolated on some frames. Track ids are given in order of first
appearance, as the tracker does. Deterministic for a given seed. Not a video: use it without --video.
"""
import argparse
import random
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--frames", type=int, default=1_000_000)
    parser.add_argument("--tracks", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    if options.frames < 1 or options.tracks < 0:
        parser.error("--frames must be 1 or more and --tracks 0 or more")
    rng = random.Random(options.seed)
    frames, fps = options.frames, 30

    # Each track: start, length, kind, and where it moves; ids by start.
    plans = []
    for _ in range(options.tracks):
        length = rng.randint(min(30, frames), min(frames, 500))
        start = rng.randint(0, frames - length)
        plans.append((start, length, "face" if rng.random() < 0.7 else "code"))
    plans.sort()
    starts = {}
    for k, (start, length, kind) in enumerate(plans):
        starts.setdefault(start, []).append((k + 1, start, length, kind))

    out = open(options.output, "w", buffering=1 << 20)
    out.write('{"type":"stream","schema":1,"tool":"sightline synthetic","source":"synthetic.mp4","container":"mov,mp4,m4a,3gp,3g2,mj2",'
              '"stream_index":0,"codec":"h264","width":1280,"height":720,"coded_width":1280,"coded_height":720,"rotation":0,'
              f'"time_base":[1,15360],"frame_rate":[{fps},1],"duration":{frames / fps:.6f},'
              '"analyzers":{"faces":{"backend":"synthetic"},"codes":{"backend":"synthetic","symbologies":["ean13","qr"]},'
              '"tracking":{"max_gap":15,"detect_every":1}}}\n')
    active = []   # [id, start, length, kind, x, y, dx, dy, size, text, gap_left, stats]
    totals = {"faces": 0, "codes": 0, "frames_with_faces": 0, "frames_with_codes": 0, "tracks": 0}
    payloads = set()
    for index in range(frames):
        for tid, start, length, kind in starts.get(index, []):
            size = rng.uniform(40, 160)
            text = f"SYNTHETIC-{tid:06d}" if rng.random() < 0.5 else None
            symbology = "qr" if text else "ean13"
            if not text:
                digits = f"{tid:012d}"
                check = (10 - sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10) % 10
                text = digits + str(check)
            active.append({"id": tid, "end": start + length - 1, "kind": kind, "x": rng.uniform(0, 1280 - size),
                           "y": rng.uniform(0, 720 - size), "dx": rng.uniform(-2, 2), "dy": rng.uniform(-1, 1), "size": size,
                           "symbology": symbology, "text": text, "gap": 0, "first": index, "last": index,
                           "seen": 0, "interpolated": 0, "score_sum": 0.0, "best": None})
        faces, codes = [], []
        t = index / fps
        for a in active:
            a["x"] = min(max(a["x"] + a["dx"], 0), 1280 - a["size"])
            a["y"] = min(max(a["y"] + a["dy"], 0), 720 - a["size"])
            if a["gap"] > 0:
                a["gap"] -= 1
                continue
            if index not in (a["first"], a["end"]) and rng.random() < 0.01:
                a["gap"] = rng.randint(2, 10)   # unseen for a few frames
                continue
            r = rng.random()
            source = "" if r < 0.9 else (',"source":"refined"' if r < 0.97 else ',"source":"interpolated"')
            box = f'"box":{{"x":{a["x"]:.2f},"y":{a["y"]:.2f},"w":{a["size"]:.2f},"h":{a["size"]:.2f}}}'
            a["last"] = index
            if "interpolated" in source:
                a["interpolated"] += 1
            else:
                a["seen"] += 1
            if a["kind"] == "face":
                score = rng.uniform(0.5, 1.0)
                if "interpolated" not in source:
                    a["score_sum"] += score
                    if a["best"] is None or score > a["best"][0]:
                        a["best"] = (score, index, a["x"], a["y"])
                faces.append(f'{{"track":{a["id"]},{box},"score":{score:.3f}{source}}}')
            else:
                if a["best"] is None and "interpolated" not in source:
                    a["best"] = (0, index, a["x"], a["y"])
                codes.append(f'{{"track":{a["id"]},"symbology":"{a["symbology"]}","text":"{a["text"]}",{box}{source}}}')
                payloads.add(a["text"])
        out.write(f'{{"type":"frame","index":{index},"pts":{index * 512},"t":{t:.6f},"status":{{"faces":"ok","codes":"ok"}},'
                  f'"faces":[{",".join(faces)}],"codes":[{",".join(codes)}]}}\n')
        totals["faces"] += len(faces)
        totals["codes"] += len(codes)
        totals["frames_with_faces"] += bool(faces)
        totals["frames_with_codes"] += bool(codes)
        ended = [a for a in active if a["end"] == index]
        if ended:
            active = [a for a in active if a["end"] != index]
            for a in sorted(ended, key=lambda a: a["id"]):
                best = a["best"] or (0, a["first"], a["x"], a["y"])
                extra = (f',"mean_score":{a["score_sum"] / max(1, a["seen"]):.3f}' if a["kind"] == "face" else
                         f',"symbology":"{a["symbology"]}","text":"{a["text"]}"')
                out.write(f'{{"type":"track","id":{a["id"]},"kind":"{a["kind"]}","first_frame":{a["first"]},"last_frame":{a["last"]},'
                          f'"first_t":{a["first"] / fps:.6f},"last_t":{a["last"] / fps:.6f},"frames_observed":{a["seen"]},'
                          f'"frames_interpolated":{a["interpolated"]}{extra},'
                          f'"best_box":{{"x":{best[2]:.2f},"y":{best[3]:.2f},"w":{a["size"]:.2f},"h":{a["size"]:.2f}}},"best_frame":{best[1]}}}\n')
                totals["tracks"] += 1
    out.write(f'{{"type":"summary","frames":{frames},"frames_with_faces":{totals["frames_with_faces"]},'
              f'"frames_with_codes":{totals["frames_with_codes"]},"face_observations":{totals["faces"]},'
              f'"code_observations":{totals["codes"]},"distinct_codes":{len(payloads)},"tracks":{totals["tracks"]},'
              '"analyzer_errors":0,"corrupt_frames":0,"read_error":null,"interrupted":false}\n')
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
