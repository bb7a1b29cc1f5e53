#include "CZXingText.h"

#include <cstdlib>
#include <cstring>

char* slv_zxing_barcode_text(const ZXing_Barcode* barcode, int* len) {
    if (len) *len = 0;
    if (!barcode) return nullptr;
    try {
        // In C++ ZXing_Barcode is ZXing::Barcode (ZXingC.h); text() is the same call the C API makes.
        const std::string text = barcode->text();
        auto out = static_cast<char*>(std::malloc(text.size() + 1));
        if (!out) return nullptr;
        std::memcpy(out, text.data(), text.size());
        out[text.size()] = 0;
        if (len) *len = static_cast<int>(text.size());
        return out;
    } catch (...) {
        // No C++ exception may unwind into Swift.
        return nullptr;
    }
}
