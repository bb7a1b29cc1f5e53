#!/usr/bin/env bash
# Installs the Debian 12 packages Sightline builds, runs and tests with. Safe to run again: apt is
# only called for packages that are missing. Needs root (or sudo).
#   Scripts/install-deps.sh            build, run and test
#   Scripts/install-deps.sh --samples  also what Samples/make_samples.py needs
set -euo pipefail

packages=(
  pkg-config ffmpeg
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev   # decoding
  libopencv-core-dev libopencv-imgproc-dev libopencv-objdetect-dev opencv-data   # face cascades
  libopencv-dnn-dev                                             # ONNX face detectors (yunet, ultraface)
  libcurl4                                                      # model downloads (Foundation's URLSession)
  libzbar-dev libzxing-dev                                      # code readers
  libjson-c-dev                                                 # JSON Lines
  libv4l-dev                                                    # cameras (libv4l2)
  python3 python3-jsonschema                                    # schema validation in the tests
)
if [ "${1:-}" = "--samples" ]; then
  packages+=(qrencode zint python3-numpy python3-skimage)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
