#ifndef SIGHTLINE_CZXING_TEXT_H
#define SIGHTLINE_CZXING_TEXT_H

#include <ZXing/ZXingC.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The barcode's text (in the reader options' text mode) with its length in bytes: zxing-cpp's C
/// API hands the text out NUL-terminated only, which cuts a payload with NUL bytes at the first one.
/// The result is NUL-terminated too, freed with ZXing_free; NULL (and *len 0) on failure.
char* slv_zxing_barcode_text(const ZXing_Barcode* barcode, int* len);

#ifdef __cplusplus
}
#endif

#endif
