#ifndef SIGHTLINE_CZXING_SHIM_H
#define SIGHTLINE_CZXING_SHIM_H
// zxing-cpp 3.1's C API, from the prefix Scripts/deps/build/zxing-cpp.sh installs (its pkg-config
// file, sightline-zxing-cpp, puts that prefix's include folder first, ahead of any older ZXing).
#include <ZXing/ZXingC.h>
#endif
