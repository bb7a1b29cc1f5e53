#!/bin/bash
# The small-face tests against the full-size run on every frame. The suite's SmallFaceTests
# hold the default to the full-size run's detections (`--face-width 0`) on every fourth frame of
# the crowd scene and the small-face scene, and on every second frame of the real footage; this
# runs the same tests through Scripts/test.sh on every frame (SIGHTLINE_FULL_SIZE_STRIDE=1).
# About 2 minutes on 2 cores.
#
#   Scripts/small_faces_full_size.sh [--skip-build]
#
# Prints each video's counts; exits as Scripts/test.sh does (0 when every test passed).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
    --skip-build|"") ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "small_faces_full_size.sh: unknown option $1" >&2; exit 64 ;;
esac
SIGHTLINE_FULL_SIZE_STRIDE=1 exec Scripts/test.sh "$@" --filter SmallFaceTests
