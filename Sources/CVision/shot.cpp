// The small HSV image that shot-cut detection compares between neighbouring frames, as
// PySceneDetect's ContentDetector makes it (a BGR frame resized bilinearly, then OpenCV's
// BGR→HSV with hue 0..179), behind the C API of CVision.h. Planes are scaled first, so colour is
// converted only at the small size.
#include "CVision.h"
#include "Interop.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>

extern "C" int slv_shot_hsv(const slv_yuv_image *image, int width, int height, uint8_t *hsv, char *error,
                            size_t error_size) {
    try {
        if (width <= 0 || height <= 0 || image->luma.width <= 0 || image->luma.height <= 0) {
            report(error, error_size, "empty picture or shot image size");
            return -1;
        }
        const cv::Size size(width, height);
        cv::Mat y;
        cv::resize(wrapPlane(image->luma), y, size, 0, 0, cv::INTER_LINEAR);
        const bool color = image->cb && image->cr && image->chroma_width > 0 && image->chroma_height > 0;
        cv::Mat cb, cr;
        if (color) {
            if (image->chroma_step == 2) {
                const uint8_t *first = std::min(image->cb, image->cr);
                cv::Mat both, halves[2];
                cv::resize(wrapPlane(first, image->chroma_width, image->chroma_height, image->chroma_stride, 2), both,
                           size, 0, 0, cv::INTER_LINEAR);
                cv::split(both, halves);
                cb = image->cb < image->cr ? halves[0] : halves[1];
                cr = image->cb < image->cr ? halves[1] : halves[0];
            } else {
                cv::resize(wrapPlane(image->cb, image->chroma_width, image->chroma_height, image->chroma_stride, 1), cb,
                           size, 0, 0, cv::INTER_LINEAR);
                cv::resize(wrapPlane(image->cr, image->chroma_width, image->chroma_height, image->chroma_stride, 1), cr,
                           size, 0, 0, cv::INTER_LINEAR);
            }
        }
        // Y'CbCr to 8-bit B'G'R' for the frame's matrix and range (as a player shows it).
        const YCbCrToRGB convert(image->matrix, image->full_range);
        cv::Mat bgr(size, CV_8UC3);
        for (int row = 0; row < height; row++)
            convert.rowToBGR(y.ptr<uint8_t>(row), color ? cb.ptr<uint8_t>(row) : nullptr,
                             color ? cr.ptr<uint8_t>(row) : nullptr, width, bgr.ptr<uint8_t>(row));
        cv::Mat out(size, CV_8UC3, hsv);
        cv::cvtColor(bgr, out, cv::COLOR_BGR2HSV);
        return 0;
    } catch (...) {
        reportCaught(error, error_size, "unknown error making the shot image", "OpenCV: ");
    }
    return -1;
}
