#!/usr/bin/env bash
# Ray and pytest, for the test of the Ray driver (integrations/ray): ray 2.60.0 from the package
# registry, pinned by sha256 (CPython 3.11, x86_64 Linux: Debian 12's python3); its dependencies
# and pytest from Debian. The sightline command itself needs none of this.
set -euo pipefail
. "$(dirname "$0")/../common.sh"

# Debian's own Python (the one the test runs), whatever other python3 comes first on PATH.
py=/usr/bin/python3
if $py -c 'import sys, ray, pytest; sys.exit(ray.__version__ != "2.60.0")' 2>/dev/null; then
  exit 0
fi
apt_install python3-pip python3-pytest python3-click python3-filelock python3-jsonschema python3-msgpack \
  python3-packaging python3-protobuf python3-yaml python3-requests
wheel=$(registry_fetch ray==2.60.0 e227f6b2af8ab4626dd9a35a5860b33864325ea137383d57f854d4637ee3fea2 \
  --only-binary=:all: --python-version 3.11 --platform manylinux2014_x86_64)
pip_install_debian "$wheel"
$py -c 'import ray, pytest' || { echo "install-deps: ray 2.60.0 installed but does not import" >&2; exit 1; }
