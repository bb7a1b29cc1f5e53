// OpenCV and zxing-cpp behind the C API of CVision.h. Every entry point catches C++ exceptions:
// one unwinding into Swift would end the process.
#include "CVision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

void report(char *error, size_t size, const char *message) {
    if (error && size > 0) {
        std::strncpy(error, message, size - 1);
        error[size - 1] = '\0';
    }
}

cv::Mat wrap(slv_gray_image image) {
    // No copy: the Mat points at the caller's plane for the duration of the call.
    return cv::Mat(image.height, image.width, CV_8UC1, const_cast<uint8_t *>(image.data), (size_t)image.stride);
}

} // namespace

struct slv_cascade {
    cv::CascadeClassifier classifier;
    cv::Mat small, rotated;   // reused buffers
};

struct slv_zxing {
    ZXing::DecodeHints hints;
    ZXing::Results results;   // owns the strings handed out until the next read
    std::vector<std::string> texts;
};

extern "C" void slv_set_num_threads(int threads) {
    try { cv::setNumThreads(threads); } catch (...) {}
}

extern "C" slv_cascade *slv_cascade_create(const char *path, char *error, size_t error_size) {
    try {
        auto *cascade = new slv_cascade();
        if (!cascade->classifier.load(path)) {
            delete cascade;
            report(error, error_size, "not a readable OpenCV cascade file");
            return nullptr;
        }
        return cascade;
    } catch (const std::exception &e) {
        report(error, error_size, e.what());
    } catch (...) {
        report(error, error_size, "unknown error loading the cascade");
    }
    return nullptr;
}

extern "C" void slv_cascade_destroy(slv_cascade *cascade) { delete cascade; }

extern "C" int slv_cascade_detect(slv_cascade *cascade, slv_gray_image image, const slv_cascade_options *o,
                                  slv_face *faces, int capacity, char *error, size_t error_size) {
    try {
        const bool swaps = o->rotation == 90 || o->rotation == 270;
        const int W = image.width, H = image.height;             // coded picture
        const int displayW = swaps ? H : W, displayH = swaps ? W : H;

        // The displayed-frame rectangle to search (the whole frame unless a region is given).
        cv::Rect shown(0, 0, displayW, displayH);
        if (o->roi_w > 0 && o->roi_h > 0) shown &= cv::Rect(o->roi_x, o->roi_y, o->roi_w, o->roi_h);
        if (shown.width <= 0 || shown.height <= 0) return 0;
        // The same rectangle in the coded picture: only it is scaled and turned, never more.
        cv::Rect coded;
        switch (o->rotation) {
            case 90: coded = cv::Rect(shown.y, H - shown.x - shown.width, shown.height, shown.width); break;
            case 180: coded = cv::Rect(W - shown.x - shown.width, H - shown.y - shown.height, shown.width, shown.height); break;
            case 270: coded = cv::Rect(W - shown.y - shown.height, shown.x, shown.height, shown.width); break;
            default: coded = shown;
        }
        cv::Mat part = wrap(image)(coded);

        double scale = 1.0;
        if (o->detect_width > 0 && o->detect_width < displayW) scale = (double)o->detect_width / displayW;
        cv::Mat work = part;
        if (scale < 1.0) {
            cv::resize(part, cascade->small, cv::Size(), scale, scale, cv::INTER_AREA);
            work = cascade->small;
        }
        if (o->rotation == 90) { cv::rotate(work, cascade->rotated, cv::ROTATE_90_CLOCKWISE); work = cascade->rotated; }
        else if (o->rotation == 180) { cv::rotate(work, cascade->rotated, cv::ROTATE_180); work = cascade->rotated; }
        else if (o->rotation == 270) { cv::rotate(work, cascade->rotated, cv::ROTATE_90_COUNTERCLOCKWISE); work = cascade->rotated; }

        const int minSide = std::max(1, (int)std::lround(o->min_face * scale));
        const int maxSide = o->max_face > 0 ? std::max(minSide, (int)std::lround(o->max_face * scale)) : 0;
        std::vector<cv::Rect> found;
        std::vector<int> neighbors;
        cascade->classifier.detectMultiScale(work, found, neighbors,
                                             o->scale_factor > 1.0 ? o->scale_factor : 1.1,
                                             o->min_neighbors > 0 ? o->min_neighbors : 3, 0,
                                             cv::Size(minSide, minSide), cv::Size(maxSide, maxSide));
        // Stable order (top-left first) so output never depends on OpenCV's internal grouping order.
        std::vector<size_t> order(found.size());
        for (size_t i = 0; i < order.size(); i++) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            if (found[a].y != found[b].y) return found[a].y < found[b].y;
            return found[a].x < found[b].x;
        });
        int n = 0;
        for (size_t i : order) {
            if (n >= capacity) break;
            const cv::Rect &r = found[i];
            faces[n].x = (float)(shown.x + r.x / scale);
            faces[n].y = (float)(shown.y + r.y / scale);
            faces[n].w = (float)(r.width / scale);
            faces[n].h = (float)(r.height / scale);
            faces[n].neighbors = i < neighbors.size() ? neighbors[i] : 0;
            n++;
        }
        return n;
    } catch (const std::exception &e) {
        report(error, error_size, e.what());
    } catch (...) {
        report(error, error_size, "unknown error in face detection");
    }
    return -1;
}

extern "C" slv_zxing *slv_zxing_create(uint32_t formats, int try_harder) {
    try {
        auto *reader = new slv_zxing();
        if (formats != 0) reader->hints.setFormats(ZXing::BarcodeFormats(static_cast<ZXing::BarcodeFormat>(formats)));
        reader->hints.setTryHarder(try_harder != 0);
        reader->hints.setTryRotate(try_harder != 0);
        // zxing-cpp 1.4 (Debian 12) is built with assertions on, and ReadBarcodes aborts the process
        // ("Result.cpp:140: lineCount() == 1") when one linear code is found in two pyramid layers.
        // A single layer never compares linear results across layers.
        reader->hints.setTryDownscale(false);
        return reader;
    } catch (...) {
        return nullptr;
    }
}

extern "C" void slv_zxing_destroy(slv_zxing *reader) { delete reader; }

extern "C" int slv_zxing_read(slv_zxing *reader, slv_gray_image image, slv_code *codes, int capacity,
                              char *error, size_t error_size) {
    try {
        ZXing::ImageView view(image.data, image.width, image.height, ZXing::ImageFormat::Lum, image.stride, 1);
        reader->results = ZXing::ReadBarcodes(view, reader->hints);
        reader->texts.clear();
        reader->texts.reserve(reader->results.size());
        int n = 0;
        for (const auto &result : reader->results) {
            if (n >= capacity) break;
            if (!result.isValid()) continue;
            reader->texts.push_back(result.text());
            const std::string &text = reader->texts.back();
            slv_code &code = codes[n++];
            code.format = (int)result.format();
            code.text = text.data();
            code.text_length = text.size();
            code.bytes = result.bytes().data();
            code.bytes_length = result.bytes().size();
            const auto &p = result.position();
            for (int i = 0; i < 4; i++) {
                code.corners[2 * i] = p[i].x;
                code.corners[2 * i + 1] = p[i].y;
            }
        }
        return n;
    } catch (const std::exception &e) {
        report(error, error_size, e.what());
    } catch (...) {
        report(error, error_size, "unknown error in barcode reading");
    }
    return -1;
}

extern "C" uint32_t slv_zxing_format_from_name(const char *name) {
    try {
        return (uint32_t)ZXing::BarcodeFormatFromString(name);
    } catch (...) {
        return 0;
    }
}
