// Appearance patches for following an object between full detections: the picture under the
// object's box, sampled small, found again near its predicted place by normalized
// cross-correlation. Behind the C API of CVision.h; every entry point catches C++ exceptions.
#include "CVision.h"
#include "Interop.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace {

/// The picture's whole pixels covering [x, x + w) x [y, y + h), resized by `scale` (area
/// averaging). Where the rectangle leaves the picture, the edges are replicated (`replicate`) or
/// the rectangle is cut to the picture. `origin`: the picture pixel where the sample starts;
/// `step`: picture pixels per sample pixel.
bool sample(const cv::Mat &picture, double x, double y, double w, double h, double scale, bool replicate,
            cv::Mat &out, cv::Point2d &origin, cv::Point2d &step) {
    int x0 = (int)std::floor(x), y0 = (int)std::floor(y);
    int x1 = (int)std::ceil(x + w), y1 = (int)std::ceil(y + h);
    const int cx0 = std::max(0, x0), cy0 = std::max(0, y0);
    const int cx1 = std::min(picture.cols, x1), cy1 = std::min(picture.rows, y1);
    if (cx1 <= cx0 || cy1 <= cy0) return false;
    if (!replicate) x0 = cx0, y0 = cy0, x1 = cx1, y1 = cy1;
    cv::Mat region = picture(cv::Rect(cx0, cy0, cx1 - cx0, cy1 - cy0)), padded;
    if (cx0 != x0 || cy0 != y0 || cx1 != x1 || cy1 != y1) {
        cv::copyMakeBorder(region, padded, cy0 - y0, y1 - cy1, cx0 - x0, x1 - cx1, cv::BORDER_REPLICATE);
        region = padded;
    }
    const int ow = std::max(1, (int)std::lround((x1 - x0) * scale));
    const int oh = std::max(1, (int)std::lround((y1 - y0) * scale));
    cv::resize(region, out, cv::Size(ow, oh), 0, 0, cv::INTER_AREA);
    origin = cv::Point2d(x0, y0);
    step = cv::Point2d((double)(x1 - x0) / ow, (double)(y1 - y0) / oh);
    return true;
}

/// The offset (-0.5 .. 0.5) of a peak from its sample by a parabola through it and its neighbours.
double parabolaPeak(float before, float at, float after) {
    const double curvature = before - 2.0 * at + after;
    if (curvature >= 0) return 0;
    return std::max(-0.5, std::min(0.5, 0.5 * (before - after) / curvature));
}

} // namespace

struct slv_patch {
    cv::Mat pixels;
    double scale;
    cv::Point2d boxOffset;   // the box's top-left from the sample's origin, picture pixels
    double w, h;
};

extern "C" slv_patch *slv_patch_create(slv_gray_image image, float x, float y, float w, float h, int size) {
    try {
        if (!(w >= 4 && h >= 4) || size < 4) return nullptr;
        auto patch = new slv_patch();
        patch->scale = size / std::max<double>(w, h);
        cv::Point2d origin, step;
        // A detected box may stick out of the picture by a little: its edges are replicated.
        if (!sample(wrapPlane(image), x, y, w, h, patch->scale, true, patch->pixels, origin, step)) {
            delete patch;
            return nullptr;
        }
        // A flat patch correlates with anything (or nothing): not worth following.
        cv::Scalar mean, deviation;
        cv::meanStdDev(patch->pixels, mean, deviation);
        if (patch->pixels.cols < 4 || patch->pixels.rows < 4 || deviation[0] < 2.0) {
            delete patch;
            return nullptr;
        }
        patch->boxOffset = cv::Point2d(x - origin.x, y - origin.y);
        patch->w = w;
        patch->h = h;
        return patch;
    } catch (...) {
        return nullptr;
    }
}

extern "C" void slv_patch_destroy(slv_patch *patch) { delete patch; }

extern "C" float slv_patch_find(const slv_patch *patch, slv_gray_image image, float x, float y, float margin,
                                float *found_x, float *found_y) {
    try {
        // The search region: the patch's box at (x, y), grown by `margin` box sizes on every side
        // and cut to the picture, so the patch is only found where the picture shows all of it
        // (a face leaving the frame is left to the cascade, which sees what is left of it).
        const double mx = margin * patch->w, my = margin * patch->h;
        cv::Mat region;
        cv::Point2d origin, step;
        if (!sample(wrapPlane(image), x - patch->boxOffset.x - mx, y - patch->boxOffset.y - my,
                    patch->pixels.cols / patch->scale + 2 * mx, patch->pixels.rows / patch->scale + 2 * my,
                    patch->scale, false, region, origin, step)) return -2;
        if (region.cols < patch->pixels.cols || region.rows < patch->pixels.rows) return -2;
        cv::Mat response;
        cv::matchTemplate(region, patch->pixels, response, cv::TM_CCOEFF_NORMED);
        double best;
        cv::Point at;
        cv::minMaxLoc(response, nullptr, &best, nullptr, &at);
        if (!std::isfinite(best)) return -2;
        double px = at.x, py = at.y;
        if (at.x > 0 && at.x + 1 < response.cols) {
            px += parabolaPeak(response.at<float>(at.y, at.x - 1), response.at<float>(at.y, at.x), response.at<float>(at.y, at.x + 1));
        }
        if (at.y > 0 && at.y + 1 < response.rows) {
            py += parabolaPeak(response.at<float>(at.y - 1, at.x), response.at<float>(at.y, at.x), response.at<float>(at.y + 1, at.x));
        }
        *found_x = (float)(origin.x + px * step.x + patch->boxOffset.x);
        *found_y = (float)(origin.y + py * step.y + patch->boxOffset.y);
        return (float)best;
    } catch (...) {
        return -2;
    }
}
