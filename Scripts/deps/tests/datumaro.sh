#!/usr/bin/env bash
# Datumaro, for the tests that load `sightline export` output (MOT, CVAT for video, COCO) the way
# other tools read it: datumaro 1.13.12 from the package registry with its dependencies pinned by
# version and sha256 in datumaro-requirements.txt (CPython 3.11, x86_64 Linux wheels: Debian 12's
# python3), installed into a virtual environment of its own, /opt/sightline/venv-datumaro, because
# it needs NumPy 2 and pandas 2 where Debian has 1.24 and 1.5. About 155 MB of wheels, 565 MB
# installed. The sightline command itself needs none of this.
set -euo pipefail
. "$(dirname "$0")/../common.sh"

venv_install /opt/sightline/venv-datumaro "$(cd "$(dirname "$0")" && pwd)/datumaro-requirements.txt" \
  'import sys, datumaro; sys.exit(datumaro.__version__ != "1.13.12")' "datumaro 1.13.12"
