#!/usr/bin/env bash
# zxing-cpp 3.1.1 (barcode and QR reader) from its source distribution on the package registry:
# only the core library with readers and the C API (ZXingC.h), release build on every core, as a
# static library under its own name in a prefix of its own, with a pkg-config file SwiftPM finds
# (sightline-zxing-cpp). Its own name and prefix keep it apart from Debian's libzxing-dev (1.4),
# and a static library needs no run-time lookup. Checks first; builds only when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/common.sh"

version=3.1.1
sha=1051a521b21a9fe206702ad4186aeb195154e3e1badcd99576d030723f36382b
prefix=/opt/sightline/zxing-cpp-$version
lib=zxing-cpp-$version
pc=/usr/local/lib/pkgconfig/sightline-zxing-cpp.pc

if [ -f "$prefix/lib/lib$lib.a" ] && [ -f "$prefix/include/ZXing/ZXingC.h" ] && [ -f "$prefix/SHA256" ] &&
   [ "$(cat "$prefix/SHA256")" = "$sha" ] && [ -f "$pc" ]; then
  exit 0
fi

apt_install cmake g++ make
archive=$(registry_fetch "zxing-cpp==$version" "$sha" --no-binary zxing-cpp)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
src="$work/zxing_cpp-$version/core"
[ -f "$src/src/ZXingC.h" ] || { echo "install-deps: $archive has no core/src/ZXingC.h" >&2; exit 1; }

echo "building zxing-cpp $version (core library, readers and C API)" >&2
# core/ alone: the library, without the Python module, examples or tests of the full source tree.
log="$work/build.log"
if ! { cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
         -DZXING_READERS=ON -DZXING_WRITERS=OFF -DZXING_C_API=ON -DZXING_UNIT_TESTS=OFF \
         -DCMAKE_INSTALL_PREFIX="$work/stage" -DCMAKE_INSTALL_LIBDIR=lib &&
       cmake --build "$work/build" -j "$(nproc)" &&
       cmake --install "$work/build"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "install-deps: building zxing-cpp $version failed (above: the end of its build log)" >&2
  exit 1
fi

$sudo rm -rf "$prefix"
$sudo mkdir -p "$prefix/lib" "$prefix/include"
$sudo cp -r "$work/stage/include/ZXing" "$prefix/include/"
$sudo cp "$work/stage/lib/libZXing.a" "$prefix/lib/lib$lib.a"
$sudo cp "$work/zxing_cpp-$version/LICENSE" "$prefix/LICENSE"
$sudo mkdir -p "$(dirname "$pc")"
$sudo tee "$pc" >/dev/null <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: sightline-zxing-cpp
Description: zxing-cpp $version core library (readers, C API), built by Sightline's install-deps
Version: $version
Libs: -L\${libdir} -l$lib -lstdc++ -lm -lpthread
Cflags: -I\${includedir}
PC
echo "$sha" | $sudo tee "$prefix/SHA256" >/dev/null
echo "installed zxing-cpp $version in $prefix" >&2
