#!/usr/bin/env bash
# Makes Models/centerface-int8.onnx again from the f32 centerface.onnx (installed by
# Scripts/install-deps.sh) with the pinned NNCF 3.4.0, and compares it with the shipped file.
# Not part of the install: the shipped file is what every machine runs.
#
#   Models/recipe/rebuild.sh [OUT.onnx]      (default: a temporary file, removed afterwards)
#
# The result is byte-identical to the shipped file on x86-64 CPUs with AVX-512 VNNI (the file was
# made on such a machine), whatever the thread count. A CPU without AVX-512 runs ONNX Runtime's
# calibration statistics through other kernels, which round differently: another file (on a Zen 3
# machine, sha256 eb2b6c8b…, which loses faces that f32 finds). So rebuild on an AVX-512 machine,
# and replace the shipped file only together with its sha256 in KnownModel.centerfaceInt8 and
# Scripts/deps/build/centerface-int8.sh, after Int8AccuracyTests pass with it on both CPU kinds.
#
# NNCF, onnx and onnxruntime, with every package they need, are pinned by version and sha256 in
# nncf-requirements.txt (CPython 3.11, x86_64 Linux wheels) and installed into a virtual
# environment of their own, /opt/sightline/venv-nncf (about 100 MB of wheels, 460 MB installed):
# NNCF needs NumPy 2 where Debian has 1.24. Takes about 2 minutes the first time.
set -euo pipefail
recipe=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$recipe/../.." && pwd)
. "$repo/Scripts/deps/common.sh"

pinned=$(grep -m1 '^int8_sha=' "$repo/Scripts/deps/build/centerface-int8.sh" | cut -d= -f2)
f32=/usr/local/share/sightline/models/centerface.onnx
[ -f "$f32" ] || bash "$repo/Scripts/deps/build/centerface-model.sh"

venv=/opt/sightline/venv-nncf
venv_install "$venv" "$recipe/nncf-requirements.txt" \
  'import sys, nncf, onnx, onnxruntime; sys.exit(nncf.__version__ != "3.4.0")' "nncf 3.4.0"

# Calibration material: ffmpeg decodes the sample video and scikit-image's pictures (its data
# folder holds astronaut.png, camera.png, lfw_subset.npy and the textures).
apt_install ffmpeg python3-skimage
images=$(dirname "$(dpkg -L python3-skimage | grep -m1 '/skimage/data/astronaut\.png$')")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${1:-$work/centerface-int8.onnx}
echo "quantizing centerface.onnx to INT8 (about a minute)" >&2
"$venv/bin/python" "$recipe/quantize_centerface.py" "$f32" "$out" \
  --video "$repo/Samples/faces-and-codes-720p.mp4" --images "$images"
sha=$(sha256sum "$out" | cut -d' ' -f1)
if [ "$sha" = "$pinned" ]; then
  echo "rebuilt: sha256 $sha, the shipped file's"
else
  echo "rebuilt: sha256 $sha, NOT the shipped file's $pinned (another CPU kind, or changed inputs)"
  exit 1
fi
