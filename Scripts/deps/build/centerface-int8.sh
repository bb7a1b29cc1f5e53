#!/usr/bin/env bash
# CenterFace INT8: centerface-int8.onnx, made here from the installed f32 centerface.onnx by NNCF's
# post-training quantization (QDQ ONNX, about 2.1 MB; OpenVINO runs it in INT8, about 2x faster
# than f32 on one core). quantize_centerface.py calibrates on frames it makes from the repo's sample
# video and scikit-image's bundled pictures (darkened, blurred, noisy, small and partly covered
# faces; nothing is downloaded), and installs nothing unless the INT8 model finds every face that
# f32 finds on its check set. NNCF 3.4.0, onnx and onnxruntime are pinned with every dependency by
# version and sha256 in nncf-requirements.txt (CPython 3.11, x86_64 Linux wheels) and installed
# into a virtual environment of their own, /opt/sightline/venv-nncf (about 100 MB of wheels,
# 460 MB installed): NNCF needs NumPy 2 where Debian has 1.24.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/common.sh"

# The f32 model first (install-deps runs the steps in name order, and this one sorts before it).
bash "$here/build/centerface-model.sh"

dir=/usr/local/share/sightline/models
# What the quantization gives on an x86_64 machine with AVX-512 (it is byte-for-byte reproducible
# there, whatever the thread count). Another CPU kind may round ONNX Runtime's statistics
# differently and get another file: that one is installed too once it has passed the behaviour
# check, and its sha256 is kept beside it (.sha256: pinned, then its own) so later runs accept it.
int8_sha=9fcf0c20d8c89ed6c19897f36e32b264c6201148c9d0adf548d3d1b3cc8b7463
model=$dir/centerface-int8.onnx
installed() {
  [ -f "$model" ] || return 1
  local sha
  sha=$(sha256sum "$model" | cut -d' ' -f1)
  [ "$sha" = "$int8_sha" ] || [ "$(cat "$model.sha256" 2>/dev/null)" = "$int8_sha $sha" ]
}
installed && exit 0

start=$SECONDS
venv=/opt/sightline/venv-nncf
venv_install "$venv" "$here/build/nncf-requirements.txt" \
  'import sys, nncf, onnx, onnxruntime; sys.exit(nncf.__version__ != "3.4.0")' "nncf 3.4.0"

# Calibration material: ffmpeg decodes the sample video and scikit-image's pictures (its data
# folder holds astronaut.png, camera.png, lfw_subset.npy and the textures).
apt_install ffmpeg python3-skimage
images=$(dirname "$(dpkg -L python3-skimage | grep -m1 '/skimage/data/astronaut\.png$')")

echo "quantizing centerface.onnx to INT8 (about a minute)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" "$here/build/quantize_centerface.py" "$dir/centerface.onnx" "$work/int8.onnx" \
  --video "$here/../../Samples/faces-and-codes-720p.mp4" --images "$images"
sha=$(sha256sum "$work/int8.onnx" | cut -d' ' -f1)
install_checked "$sha" "$model" <"$work/int8.onnx"
if [ "$sha" = "$int8_sha" ]; then
  $sudo rm -f "$model.sha256"
else
  echo "install-deps: the INT8 CenterFace made here has sha256 $sha, not $int8_sha (another CPU kind?);" \
       "it passed the check against f32 and is installed" >&2
  echo "$int8_sha $sha" | $sudo tee "$model.sha256" >/dev/null
fi
echo "installed centerface-int8.onnx into $dir in $((SECONDS - start)) s" >&2
