#!/usr/bin/env bash
# PySceneDetect 0.7.2, the reference the shot-cut detector is tested against frame for frame:
# `scenedetect` from the package registry, pinned by sha256, into Debian's python3; OpenCV's
# Python binding (4.6, the OpenCV Sightline links), NumPy, click, platformdirs and tqdm from
# Debian. The sightline command itself needs none of this.
set -euo pipefail
. "$(dirname "$0")/../common.sh"

py=/usr/bin/python3
probe='import sys, scenedetect; sys.exit(scenedetect.__version__ != "0.7.2")'
if $py -c "$probe" >/dev/null 2>&1; then
  exit 0
fi
apt_install python3-pip python3-opencv python3-numpy python3-click python3-platformdirs python3-tqdm
wheel=$(registry_fetch "scenedetect==0.7.2" 953b89fe7e6b82a497c263e26245ad599b004aa7afa74814312980479a040641 --only-binary=:all:)
pip_install_debian "$wheel"
$py -c "$probe" >/dev/null || { echo "install-deps: scenedetect 0.7.2 installed but does not import" >&2; exit 1; }
