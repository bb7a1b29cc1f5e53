#!/usr/bin/env bash
# Runs a command with Sightline's numeric runtimes held to AVX2, as on a CPU without AVX-512:
# OpenVINO's CPU plugin (oneDNN: INT8 through jit_avx2_I8 instead of brgconv_avx512_I8, f32
# through the AVX2 kernels) and OpenCV's dispatched kernels. How the suite uses it: docs/testing.md.
#   Scripts/avx2.sh COMMAND [ARG…]
#   e.g. Scripts/avx2.sh swift test -c release --skip-build --filter CrossCPU
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: Scripts/avx2.sh COMMAND [ARG…]" >&2; exit 64; }
export ONEDNN_MAX_CPU_ISA=AVX2
export OPENCV_CPU_DISABLE=AVX512F,AVX512-SKX
exec "$@"
