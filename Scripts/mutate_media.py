#!/usr/bin/env python3
"""Deterministic mutations of a video file, for hardening runs and regression inputs.

    mutate_media.py INPUT OUTPUT --kind KIND --seed N

The same input, kind and seed always give the same bytes. Kinds:

  bitflip     flip 1-16 bits in the media data (`--first-fraction F`: only its first part)
  truncate    cut the file at a random offset
  chunkswap   swap two equal-length chunks of the media data
  boxsize     rewrite the 32-bit size of a random MP4/MOV box (0, 1, tiny, huge, off by a little)
  timestamps  rewrite random entries of the sample tables (stts deltas, ctts offsets), the media
              timescale or the edit list
  samplesize  rewrite random entries of the sample size table (stsz)
  garbage     overwrite a short run of bytes anywhere with random bytes

The box-aware kinds fall back to `bitflip` for files that are not MP4/MOV.
"""
import argparse
import random
import struct
import sys

KINDS = ["bitflip", "truncate", "chunkswap", "boxsize", "timestamps", "samplesize", "garbage"]
CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"udta", b"mvex", b"moof", b"traf"}


def boxes(data, start=0, end=None, depth=0):
    """(type, offset of the box, offset of its payload, end) for every box, depth first."""
    end = len(data) if end is None else end
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1 and pos + 16 <= end:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            return
        yield kind, pos, pos + header, pos + size
        if kind in CONTAINERS and depth < 8:
            yield from boxes(data, pos + header, pos + size, depth + 1)
        pos += size


def media_range(data, found):
    """Where the coded pictures are: the mdat payload, else everything after the first 1/8."""
    for kind, _, payload, end in found:
        if kind == b"mdat" and end > payload:
            return payload, end
    return len(data) // 8, len(data)


def table_entries(data, found, name, entry_size, first_entry_offset):
    """Offsets of every entry of a full box's table (version/flags, count, entries)."""
    offsets = []
    for kind, _, payload, end in found:
        if kind != name:
            continue
        count_at = payload + first_entry_offset - 4
        if count_at + 4 > end:
            continue
        count = struct.unpack(">I", data[count_at:count_at + 4])[0]
        pos = payload + first_entry_offset
        for _ in range(min(count, 100000)):
            if pos + entry_size > end:
                break
            offsets.append(pos)
            pos += entry_size
    return offsets


def mutate(data, kind, rng, first_fraction=1.0):
    data = bytearray(data)
    found = list(boxes(data)) if data[4:8] in (b"ftyp", b"moov", b"mdat", b"free", b"wide") else []
    if not found and kind in ("boxsize", "timestamps", "samplesize"):
        kind = "bitflip"
    lo, hi = media_range(data, found)
    hi = max(lo + 1, lo + int((hi - lo) * first_fraction))
    if kind == "bitflip":
        for _ in range(rng.randint(1, 16)):
            pos = rng.randrange(lo, min(hi, len(data)))
            data[pos] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(1, len(data)):]
    elif kind == "chunkswap":
        length = rng.randint(16, max(16, (hi - lo) // 8))
        if hi - lo > 2 * length:
            a = rng.randrange(lo, hi - length)
            b = rng.randrange(lo, hi - length)
            data[a:a + length], data[b:b + length] = bytes(data[b:b + length]), bytes(data[a:a + length])
    elif kind == "boxsize":
        _, offset, _, end = rng.choice(found)
        size = end - offset
        value = rng.choice([0, 1, 7, 8, size - 1, size + 1, size + rng.randint(2, 4096), size // 2, 0x7fffffff, 0xffffffff])
        data[offset:offset + 4] = struct.pack(">I", max(0, min(value, 0xffffffff)))
    elif kind == "timestamps":
        stts = table_entries(data, found, b"stts", 8, 8)
        ctts = table_entries(data, found, b"ctts", 8, 8)
        choice = rng.randrange(4)
        if choice == 0 and stts:
            for pos in rng.sample(stts, min(len(stts), rng.randint(1, 3))):
                data[pos + 4:pos + 8] = struct.pack(">I", rng.choice([0, 1, 0xffffffff, 0x80000000, rng.randrange(1 << 20)]))
        elif choice == 1 and ctts:
            for pos in rng.sample(ctts, min(len(ctts), rng.randint(1, 8))):
                data[pos + 4:pos + 8] = struct.pack(">i", rng.choice([0, -1, -100000, 100000, rng.randint(-1 << 20, 1 << 20)]))
        else:
            names = [b"mdhd", b"elst", b"mvhd", b"tkhd"]
            targets = [(k, p, e) for k, _, p, e in found if k in names]
            if targets:
                _, payload, end = rng.choice(targets)
                pos = rng.randrange(payload, max(payload + 1, end - 4))
                data[pos:pos + 4] = struct.pack(">I", rng.choice([0, 1, 0xffffffff, rng.randrange(1 << 32)]))
    elif kind == "samplesize":
        stsz = table_entries(data, found, b"stsz", 4, 12)
        if stsz:
            for pos in rng.sample(stsz, min(len(stsz), rng.randint(1, 4))):
                data[pos:pos + 4] = struct.pack(">I", rng.choice([0, 1, 0xffffffff, rng.randrange(1 << 24)]))
    elif kind == "garbage":
        length = rng.randint(1, 64)
        pos = rng.randrange(0, max(1, len(data) - length))
        data[pos:pos + length] = bytes(rng.randrange(256) for _ in range(length))
    return bytes(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--kind", choices=KINDS, required=True)
    ap.add_argument("--seed", type=int, required=True, help="same seed, same mutation")
    ap.add_argument("--first-fraction", type=float, default=1.0, metavar="F",
                    help="bitflip/chunkswap: only within the first F (0..1] of the media data")
    args = ap.parse_args()
    with open(args.input, "rb") as f:
        data = f.read()
    if not data:
        sys.exit(f"mutate_media.py: {args.input}: empty file")
    out = mutate(data, args.kind, random.Random(f"{args.kind}:{args.seed}"), args.first_fraction)
    with open(args.output, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
