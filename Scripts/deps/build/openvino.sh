#!/usr/bin/env bash
# OpenVINO's CPU runtime (C API) from the pinned openvino wheel: the C headers, libopenvino_c,
# libopenvino, the CPU plugin, the ONNX front end, the IR front end (importing a compiled network
# reads the IR inside it) and TBB, into /opt/sightline/openvino-VERSION, with a pkg-config file
# (sightline-openvino) for the COpenVINO module. GPU/NPU plugins and the other front ends stay
# out. Sightline loads libopenvino_c at run time from this folder (the libraries find each other,
# the plugin and the front ends through their $ORIGIN rpath), so a machine without it still runs
# the cascades and OpenCV's DNN module.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/common.sh"

version=2026.4.1
abi=2641
prefix=/opt/sightline/openvino-$version
pcfile=/usr/local/lib/pkgconfig/sightline-openvino.pc
libs=(libopenvino_c.so.$abi libopenvino.so.$abi libopenvino_intel_cpu_plugin.so
      libopenvino_onnx_frontend.so.$abi libopenvino_ir_frontend.so.$abi libtbb.so.12 libtbbbind_2_5.so.3 libhwloc.so.15)

installed() {
  [ -f "$pcfile" ] && [ -f "$prefix/include/openvino/c/openvino.h" ] || return 1
  local lib
  for lib in "${libs[@]}"; do [ -f "$prefix/lib/$lib" ] || return 1; done
}
installed && exit 0

# The wheel for CPython 3.11 on manylinux_2_28 x86_64, whatever Python runs pip.
wheel=$(registry_fetch "openvino==$version" 2d22b1da03f7caf74df30e9f6417d0ab2f637e4a38e08e1dcd294d2c37407aaf \
          --only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp --abi cp311)
echo "installing OpenVINO $version (CPU runtime, C API) into $prefix" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$wheel" "$work" "${libs[@]}" <<'PY'
import sys, zipfile
wheel, dest, libs = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    wanted = [n for n in z.namelist()
              if n.startswith("openvino/include/openvino/c/") and n.endswith(".h")
              or n in ["openvino/libs/" + l for l in libs]]
    missing = [l for l in libs if "openvino/libs/" + l not in wanted]
    if missing:
        sys.exit("install-deps: the openvino wheel has no " + ", ".join(missing))
    z.extractall(dest, wanted)
PY
$sudo rm -rf "$prefix.new"
$sudo mkdir -p "$prefix.new/lib" "$prefix.new/include"
$sudo cp -r "$work/openvino/include/openvino" "$prefix.new/include/"
for lib in "${libs[@]}"; do $sudo install -m 0755 "$work/openvino/libs/$lib" "$prefix.new/lib/$lib"; done
$sudo ln -sf "libopenvino_c.so.$abi" "$prefix.new/lib/libopenvino_c.so"
$sudo rm -rf "$prefix"
$sudo mv "$prefix.new" "$prefix"

$sudo mkdir -p "$(dirname "$pcfile")"
$sudo tee "$pcfile" >/dev/null <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include
library=\${libdir}/libopenvino_c.so.$abi

Name: sightline-openvino
Description: OpenVINO $version CPU runtime (C API), installed by Sightline's install-deps; loaded at run time from \${library}
Version: $version
Cflags: -I\${includedir}
Libs:
PC
