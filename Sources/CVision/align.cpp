// Face alignment for the embedding network, behind the C API of CVision.h: the similarity
// transform (least squares, Umeyama) from five landmarks onto the 112x112 ArcFace template, and
// a bilinear warp of the frame's planes through it. Planes are warped first, so colour is
// converted only for the small aligned face.
#include "CVision.h"
#include "Interop.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>

namespace {

/// The five points of the 112x112 ArcFace template: image-left eye, image-right eye, nose tip,
/// image-left and image-right mouth corners.
const double kTemplate[10] = {38.2946, 51.6963, 73.5318, 51.5014, 56.0252, 71.7366, 41.5493, 92.3655, 70.7299, 92.2041};

/// The 2x3 matrix of the similarity (rotation, uniform scale, shift) that maps `src` onto `dst`
/// with the least squared error; false when the points coincide.
bool similarity(const float *src, const double *dst, double scale, double m[6]) {
    double sx = 0, sy = 0, dx = 0, dy = 0;
    for (int i = 0; i < 5; i++) { sx += src[2 * i]; sy += src[2 * i + 1]; dx += dst[2 * i] * scale; dy += dst[2 * i + 1] * scale; }
    sx /= 5; sy /= 5; dx /= 5; dy /= 5;
    double a = 0, b = 0, norm = 0;
    for (int i = 0; i < 5; i++) {
        const double px = src[2 * i] - sx, py = src[2 * i + 1] - sy;
        const double qx = dst[2 * i] * scale - dx, qy = dst[2 * i + 1] * scale - dy;
        a += px * qx + py * qy;
        b += px * qy - py * qx;
        norm += px * px + py * py;
    }
    if (norm <= 1e-9) return false;
    const double c = a / norm, s = b / norm;
    m[0] = c; m[1] = -s; m[2] = dx - (c * sx - s * sy);
    m[3] = s; m[4] = c;  m[5] = dy - (s * sx + c * sy);
    return true;
}

} // namespace

extern "C" int slv_align_face(const slv_yuv_image *image, const float points[10], int size, uint8_t *rgb, char *error,
                              size_t error_size) {
    try {
        if (size <= 0 || image->luma.width <= 0 || image->luma.height <= 0) {
            report(error, error_size, "empty picture or face size");
            return -1;
        }
        double m[6];
        if (!similarity(points, kTemplate, size / 112.0, m)) {
            report(error, error_size, "the landmarks coincide");
            return -1;
        }
        // The inverse map (aligned pixel -> luma pixel), so chroma can take it scaled.
        cv::Mat forward(2, 3, CV_64F, m), inverse;
        cv::invertAffineTransform(forward, inverse);
        const cv::Size out(size, size);
        cv::Mat y, cb, cr;
        cv::warpAffine(wrapPlane(image->luma), y, inverse, out, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT,
                       cv::Scalar(0));
        const bool color = image->cb && image->cr && image->chroma_width > 0 && image->chroma_height > 0;
        if (color) {
            cv::Mat chromaMap = inverse.clone();
            const double fx = (double)image->chroma_width / image->luma.width, fy = (double)image->chroma_height / image->luma.height;
            chromaMap.row(0) *= fx;
            chromaMap.row(1) *= fy;
            if (image->chroma_step == 2) {
                const uint8_t *first = std::min(image->cb, image->cr);
                cv::Mat both, halves[2];
                cv::warpAffine(wrapPlane(first, image->chroma_width, image->chroma_height, image->chroma_stride, 2), both,
                               chromaMap, out, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar(128, 128));
                cv::split(both, halves);
                cb = image->cb < image->cr ? halves[0] : halves[1];
                cr = image->cb < image->cr ? halves[1] : halves[0];
            } else {
                cv::warpAffine(wrapPlane(image->cb, image->chroma_width, image->chroma_height, image->chroma_stride, 1), cb,
                               chromaMap, out, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar(128));
                cv::warpAffine(wrapPlane(image->cr, image->chroma_width, image->chroma_height, image->chroma_stride, 1), cr,
                               chromaMap, out, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar(128));
            }
        }
        // Y'CbCr to R'G'B', rounded to bytes, planar.
        const YCbCrToRGB convert(image->matrix, image->full_range);
        uint8_t *outR = rgb, *outG = rgb + size * size, *outB = rgb + 2 * size * size;
        for (int row = 0; row < size; row++) {
            const size_t at = (size_t)row * size;
            convert.rowToPlanes(y.ptr<uint8_t>(row), color ? cb.ptr<uint8_t>(row) : nullptr,
                                color ? cr.ptr<uint8_t>(row) : nullptr, size, outR + at, outG + at, outB + at);
        }
        return 0;
    } catch (...) {
        reportCaught(error, error_size, "unknown error aligning the face", "OpenCV: ");
    }
    return -1;
}
