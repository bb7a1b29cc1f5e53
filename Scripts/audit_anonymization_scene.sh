#!/bin/bash
# The full leak audit of the anonymization scene: `sightline anonymize` at its defaults, then
# `sightline leaks` with its three checks (CenterFace in f32 on the full-size frame, YuNet on the
# full-size frame, SFace identities) on every frame. The suite's AnonymizeTests runs the same
# audit on every fifth frame of the scene; this is the whole of it.
#
#   Scripts/audit_anonymization_scene.sh [--seconds 3] [--binary PATH]
#
# The scene (Scripts/make_anonymize_scene.py, from the dlib photos in ../shared/data/dlib-faces;
# 3 s as in the suite, 6 s is the generator's own default) is made once and kept as
# .build-audit/scene-SECONDSs.mp4; YuNet is fetched from ../shared/models into .build-audit/cache.
# Prints leaks' line per check; exit 0 with no leak, 3 with leaks (the leaks are listed and
# written to .build-audit/leaks-SECONDSs.json), 1 when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=3 binary=.build/debug/sightline
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "audit_anonymization_scene.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "audit_anonymization_scene.sh: $binary: not built (swift build)" >&2; exit 66; }
faces=../shared/data/dlib-faces models=../shared/models
[ -d "$faces" ] || { echo "audit_anonymization_scene.sh: $faces is not there (the shared test data sits beside the repository)" >&2; exit 66; }
mkdir -p .build-audit
scene=.build-audit/scene-${seconds}s.mp4
if [ ! -s "$scene" ]; then
    echo "making $scene"
    /usr/bin/python3 Scripts/make_anonymize_scene.py "$scene.part.mp4" --faces "$faces" --seconds "$seconds"
    mv "$scene.part.mp4" "$scene"
fi
# A models cache of its own, as the suite's: YuNet (the second detector) from the shared files.
export XDG_CACHE_HOME=$PWD/.build-audit/cache SIGHTLINE_MODELS=
"$binary" models fetch yunet --from "$models" >/dev/null
anonymized=.build-audit/scene-${seconds}s-anonymized.mp4
start=$(date +%s)
"$binary" anonymize "$scene" -o "$anonymized" -q
echo "anonymize: $(( $(date +%s) - start )) s"
start=$(date +%s)
status=0
"$binary" leaks "$scene" "$anonymized" --json ".build-audit/leaks-${seconds}s.json" || status=$?
echo "leaks: $(( $(date +%s) - start )) s, exit $status"
case $status in
    0|3) exit $status ;;
    *) exit 1 ;;
esac
