#!/usr/bin/env python3
"""Measures code-reader recall on the zxing-cpp sample images (../shared/data/zxing-samples).

Runs `sightline analyze IMAGE --faces off --codes BACKEND` on every image listed in index.tsv and
compares the payload bytes byte-exact with the expected file. An expected payload counts as read
when it is among the codes found; a code of the expected symbology with other content is a misread.

usage: Scripts/measure_codes.py [--sightline PATH] [--data DIR] [--backends zxing,zbar]
"""
import argparse, base64, json, os, subprocess, sys, time

SYMBOLOGY = {"QRCode": "qr", "EAN13": "ean13", "Code128": "code128"}
FOLDER_FORMAT = {"qrcode-1": "QRCode", "qrcode-2": "QRCode", "ean13-1": "EAN13", "code128-1": "Code128"}

def payloads(record):
    for code in record.get("codes", []):
        raw = base64.b64decode(code["bytes"]) if "bytes" in code else code["text"].encode()
        yield code["symbology"], code["text"].encode(), raw

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sightline", default=os.path.join(here, "..", ".build", "release", "sightline"))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data", "zxing-samples"))
    ap.add_argument("--backends", default="zxing,zbar")
    args = ap.parse_args()
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(args.data, "index.tsv"))
            if l.strip() and not l.startswith("#") and not l.startswith("folder\t")]
    print("backend  folder      read/images  misreads  ms/image")
    for backend in args.backends.split(","):
        totals = [0, 0, 0]
        for folder in FOLDER_FORMAT:
            read = misread = images = 0
            started = time.monotonic()
            for row in (r for r in rows if r[0] == folder):
                image, expected = row[1], row[2]
                want = open(os.path.join(args.data, folder, expected), "rb").read()
                out = subprocess.run([args.sightline, "analyze", os.path.join(args.data, folder, image), "--faces", "off",
                                      "--codes", backend, "--threads", "1", "-q"], capture_output=True, check=False)
                frames = [json.loads(l) for l in out.stdout.splitlines() if b'"type":"frame"' in l]
                found = [p for f in frames for p in payloads(f)]
                images += 1
                symbology = SYMBOLOGY[FOLDER_FORMAT[folder]]
                if any(want in (text, raw) for _, text, raw in found):
                    read += 1
                elif any(s == symbology for s, _, _ in found):
                    misread += 1
            ms = (time.monotonic() - started) * 1000 / max(images, 1)
            print(f"{backend:7}  {folder:10}  {read:3}/{images:<3}      {misread:3}      {ms:6.1f}")
            totals[0] += read; totals[1] += images; totals[2] += misread
        print(f"{backend:7}  {'all':10}  {totals[0]:3}/{totals[1]:<3}      {totals[2]:3}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
