// OpenCV behind the C API of CVision.h. Every entry point catches C++ exceptions:
// one unwinding into Swift would end the process.
#include "CVision.h"
#include "Interop.hpp"

#include <dlfcn.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

struct slv_cascade {
    cv::CascadeClassifier classifier;
    cv::Mat small, rotated;   // reused buffers
};

extern "C" void slv_set_num_threads(int threads) {
    try { cv::setNumThreads(threads); } catch (...) {}
    if (threads == 1) slv_stop_blas_threads();
}

extern "C" void slv_stop_blas_threads(void) {
    // OpenCV links LAPACK, and Debian's OpenBLAS starts a thread per core when it loads; each
    // spins (sched_yield) for about 0.1 s before it sleeps, on the cores the workers need (it was
    // 9 % of the CPU of a --faces off run). One thread: BLAS runs on its caller, and those stop.
    // Looked up by name, so another BLAS is left alone.
    auto setThreads = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    auto shutdown = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"));
    if (setThreads && shutdown) {
        setThreads(1);
        shutdown();
    }
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
    } catch (...) {
        reportCaught(error, error_size, "unknown error loading the cascade");
    }
    return nullptr;
}

extern "C" void slv_cascade_destroy(slv_cascade *cascade) { delete cascade; }

namespace {

/// The displayed-frame rectangle `shown` of a coded picture turned by `rotation`, scaled by `scale`
/// and turned upright: only that rectangle is ever scaled or turned, never the whole frame.
cv::Mat regionImage(slv_gray_image image, int rotation, cv::Rect shown, double scale, cv::Mat &scaled, cv::Mat &turned) {
    const int W = image.width, H = image.height;
    cv::Rect coded;
    switch (rotation) {
        case 90: coded = cv::Rect(shown.y, H - shown.x - shown.width, shown.height, shown.width); break;
        case 180: coded = cv::Rect(W - shown.x - shown.width, H - shown.y - shown.height, shown.width, shown.height); break;
        case 270: coded = cv::Rect(W - shown.y - shown.height, shown.x, shown.height, shown.width); break;
        default: coded = shown;
    }
    cv::Mat work = wrapPlane(image)(coded);
    if (scale != 1.0) {
        cv::resize(work, scaled, cv::Size(), scale, scale, scale < 1.0 ? cv::INTER_AREA : cv::INTER_LINEAR);
        work = scaled;
    }
    if (rotation == 90) { cv::rotate(work, turned, cv::ROTATE_90_CLOCKWISE); work = turned; }
    else if (rotation == 180) { cv::rotate(work, turned, cv::ROTATE_180); work = turned; }
    else if (rotation == 270) { cv::rotate(work, turned, cv::ROTATE_90_COUNTERCLOCKWISE); work = turned; }
    return work;
}

cv::Rect displayBounds(slv_gray_image image, int rotation) {
    const bool swaps = rotation == 90 || rotation == 270;
    return cv::Rect(0, 0, swaps ? image.height : image.width, swaps ? image.width : image.height);
}

} // namespace

extern "C" int slv_cascade_detect(slv_cascade *cascade, slv_gray_image image, const slv_cascade_options *o,
                                  slv_face *faces, int capacity, char *error, size_t error_size) {
    try {
        // The displayed-frame rectangle to search (the whole frame unless a region is given).
        const cv::Rect frame = displayBounds(image, o->rotation);
        cv::Rect shown = frame;
        if (o->roi_w > 0 && o->roi_h > 0) shown &= cv::Rect(o->roi_x, o->roi_y, o->roi_w, o->roi_h);
        if (shown.width <= 0 || shown.height <= 0) return 0;
        double scale = 1.0;
        if (o->detect_width > 0 && o->detect_width < frame.width) scale = (double)o->detect_width / frame.width;
        cv::Mat work = regionImage(image, o->rotation, shown, scale, cascade->small, cascade->rotated);

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
    } catch (...) {
        reportCaught(error, error_size, "unknown error in face detection");
    }
    return -1;
}

namespace {

/// The strongest detection (most merged neighbours; the one nearest `expected` on a tie), if any.
bool strongest(cv::CascadeClassifier &classifier, const cv::Mat &image, cv::Rect area, cv::Size minSize, cv::Size maxSize,
               int minNeighbors, cv::Point2f expected, cv::Rect &best) {
    area &= cv::Rect(0, 0, image.cols, image.rows);
    if (area.width < minSize.width || area.height < minSize.height) return false;
    std::vector<cv::Rect> found;
    std::vector<int> neighbors;
    classifier.detectMultiScale(image(area), found, neighbors, 1.1, minNeighbors, 0, minSize, maxSize);
    int bestNeighbors = -1;
    double bestDistance = 0;
    for (size_t i = 0; i < found.size(); i++) {
        cv::Rect r = found[i] + area.tl();
        cv::Point2f c(r.x + r.width / 2.0f, r.y + r.height / 2.0f);
        double d = cv::norm(c - expected);
        int n = i < neighbors.size() ? neighbors[i] : 0;
        if (n > bestNeighbors || (n == bestNeighbors && d < bestDistance)) {
            bestNeighbors = n;
            bestDistance = d;
            best = r;
        }
    }
    return bestNeighbors >= 0;
}

} // namespace

extern "C" int slv_face_parts_detect(slv_cascade *eyes, slv_cascade *smile, slv_gray_image image, int rotation,
                                     float fx, float fy, float fw, float fh, slv_face_parts *out,
                                     char *error, size_t error_size) {
    try {
        *out = slv_face_parts{};
        cv::Rect face((int)std::lround(fx), (int)std::lround(fy), (int)std::lround(fw), (int)std::lround(fh));
        face &= displayBounds(image, rotation);
        if (face.width < 8 || face.height < 8) return 0;
        // Work on the face at about 120 px wide: large enough for the eye cascade's 20 px window.
        const double scale = std::min(4.0, std::max(0.25, 120.0 / face.width));
        cv::Mat img = regionImage(image, rotation, face, scale, eyes->small, eyes->rotated);
        const int w = img.cols, h = img.rows;
        const cv::Size eyeMin(std::max(12, w / 10), std::max(12, w / 10)), eyeMax(w * 2 / 5, w * 2 / 5);
        cv::Rect r;
        // Eyes in the upper half: the image-left one in the left 55 %, the other in the right 55 %.
        if (strongest(eyes->classifier, img, cv::Rect(0, h * 15 / 100, w * 55 / 100, h * 40 / 100), eyeMin, eyeMax, 3,
                      cv::Point2f(w * 0.3f, h * 0.38f), r)) {
            out->left_eye = 1;
            out->left_x = face.x + (r.x + r.width / 2.0f) / scale;
            out->left_y = face.y + (r.y + r.height / 2.0f) / scale;
        }
        if (strongest(eyes->classifier, img, cv::Rect(w * 45 / 100, h * 15 / 100, w * 55 / 100, h * 40 / 100), eyeMin, eyeMax, 3,
                      cv::Point2f(w * 0.7f, h * 0.38f), r)) {
            out->right_eye = 1;
            out->right_x = face.x + (r.x + r.width / 2.0f) / scale;
            out->right_y = face.y + (r.y + r.height / 2.0f) / scale;
        }
        // A smile in the lower part; the smile cascade fires easily, so it needs many neighbours.
        if (smile && strongest(smile->classifier, img, cv::Rect(w * 15 / 100, h * 55 / 100, w * 70 / 100, h * 45 / 100),
                               cv::Size(w / 4, w / 8), cv::Size(w * 7 / 10, w * 7 / 20), 20, cv::Point2f(w * 0.5f, h * 0.78f), r)) {
            out->smile = 1;
            out->mouth_x = face.x + (r.x + r.width / 2.0f) / scale;
            out->mouth_y = face.y + (r.y + r.height / 2.0f) / scale;
        }
        return 1;
    } catch (...) {
        reportCaught(error, error_size, "unknown error in face attribute detection");
    }
    return -1;
}
