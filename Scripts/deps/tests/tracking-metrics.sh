#!/usr/bin/env bash
# py-motmetrics and TrackEval, the reference implementations `sightline audit` is tested against
# (MOTA, MOTP, IDF1, ID switches; HOTA, DetA, AssA): motmetrics 1.4.0 and trackeval 1.3.0 from the
# package registry, pinned by sha256, into Debian's python3; NumPy, SciPy, pandas and xmltodict from
# Debian. trackeval's declared dependencies (NumPy 2, matplotlib, OpenCV, …) are not installed:
# its HOTA metric uses NumPy and SciPy only, and the test checks it runs. The sightline command
# itself needs none of this.
set -euo pipefail
. "$(dirname "$0")/../common.sh"

# Debian's own Python (the one the test runs), whatever other python3 comes first on PATH.
py=/usr/bin/python3
probe='import sys, motmetrics, trackeval; sys.exit(motmetrics.__version__ != "1.4.0" or trackeval.__version__ != "1.3.0")'
if $py -c "$probe" >/dev/null 2>&1; then
  exit 0
fi
apt_install python3-pip python3-numpy python3-scipy python3-pandas python3-xmltodict
wheels=()
for spec in "motmetrics==1.4.0 cd4d691bd787360f1cd0a2127fe8a14d0646fb2912b344a9498719e132b25738" \
            "trackeval==1.3.0 bf5ed90f7b5a3eafc6dcfce36fb900259a587e8f3b2438ef23d72e7d4ab94efb"; do
  set -- $spec
  wheels+=("$(registry_fetch "$1" "$2" --only-binary=:all:)")
done
pip_install_debian "${wheels[@]}"
$py -c "$probe" >/dev/null || { echo "install-deps: motmetrics 1.4.0 / trackeval 1.3.0 installed but do not import" >&2; exit 1; }
