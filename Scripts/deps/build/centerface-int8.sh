#!/usr/bin/env bash
# CenterFace INT8, the default face network: Models/centerface-int8.onnx, shipped in the source tree
# (2.1 MB, MIT like CenterFace; where it comes from and how it was made: Models/README.md), installed
# into the system model folder after its sha256 is checked. Every machine runs the same bytes: the
# file is never made on the user's machine (a quantization made on another CPU kind gives another,
# weaker network). Models/recipe/rebuild.sh makes it again from the f32 file and checks it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/common.sh"

dir=/usr/local/share/sightline/models
int8_sha=a070991ab270d8aa83c9b74bde3eaffc6831faacf885cc2083139c6601d27741
model=$dir/centerface-int8.onnx
shipped=$here/../../Models/centerface-int8.onnx

# An install by an earlier version may have left a note naming a file made on this machine.
$sudo rm -f "$model.sha256"
[ -f "$model" ] && echo "$int8_sha  $model" | sha256sum -c --status && exit 0

[ -f "$shipped" ] || { echo "install-deps: $shipped is missing (an incomplete checkout?)" >&2; exit 1; }
echo "$int8_sha  $shipped" | sha256sum -c --status || {
  echo "install-deps: $shipped has sha256 $(sha256sum "$shipped" | cut -d' ' -f1), not the pinned $int8_sha (a damaged checkout? git checkout -- Models/)" >&2
  exit 1
}
echo "installing centerface-int8.onnx into $dir" >&2
install_checked "$int8_sha" "$model" <"$shipped"
