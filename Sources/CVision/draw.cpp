// Overlays drawn straight into the planes of a YUV 4:2:0 picture with OpenCV: no RGB round trip.
#include "CVision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <vector>

namespace {

struct Planes {
    cv::Mat y, u, v;
    explicit Planes(slv_yuv420 p)
        : y(p.height, p.width, CV_8UC1, p.y, (size_t)p.y_stride),
          u((p.height + 1) / 2, (p.width + 1) / 2, CV_8UC1, p.u, (size_t)p.u_stride),
          v((p.height + 1) / 2, (p.width + 1) / 2, CV_8UC1, p.v, (size_t)p.v_stride) {}
};

cv::Rect clip(const cv::Mat &m, cv::Rect r) { return r & cv::Rect(0, 0, m.cols, m.rows); }

} // namespace

extern "C" void slv_draw_rect(slv_yuv420 p, int x, int y, int w, int h, const uint8_t c[3], int thickness) {
    try {
        Planes planes(p);
        cv::rectangle(planes.y, cv::Rect(x, y, w, h), cv::Scalar(c[0]), thickness);
        const int t2 = std::max(1, thickness / 2);
        cv::Rect half(x / 2, y / 2, w / 2, h / 2);
        cv::rectangle(planes.u, half, cv::Scalar(c[1]), t2);
        cv::rectangle(planes.v, half, cv::Scalar(c[2]), t2);
    } catch (...) {}
}

extern "C" void slv_draw_polygon(slv_yuv420 p, const int *points, int count, const uint8_t c[3], int thickness) {
    try {
        Planes planes(p);
        std::vector<cv::Point> full, half;
        for (int i = 0; i < count; i++) {
            full.emplace_back(points[2 * i], points[2 * i + 1]);
            half.emplace_back(points[2 * i] / 2, points[2 * i + 1] / 2);
        }
        const int t2 = std::max(1, thickness / 2);
        cv::polylines(planes.y, full, true, cv::Scalar(c[0]), thickness);
        cv::polylines(planes.u, half, true, cv::Scalar(c[1]), t2);
        cv::polylines(planes.v, half, true, cv::Scalar(c[2]), t2);
    } catch (...) {}
}

extern "C" void slv_draw_label(slv_yuv420 p, const char *text, int x, int y, double scale,
                               const uint8_t c[3], const uint8_t bg[3]) {
    try {
        Planes planes(p);
        int baseline = 0;
        const int thickness = std::max(1, (int)(scale * 1.5));
        cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &baseline);
        cv::Rect box(x - 2, y - size.height - 4, size.width + 4, size.height + baseline + 6);
        cv::Rect half(box.x / 2, box.y / 2, (box.width + 1) / 2, (box.height + 1) / 2);
        planes.y(clip(planes.y, box)).setTo(bg[0]);
        planes.u(clip(planes.u, half)).setTo(bg[1]);
        planes.v(clip(planes.v, half)).setTo(bg[2]);
        cv::putText(planes.y, text, cv::Point(x, y), cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(c[0]), thickness, cv::LINE_AA);
    } catch (...) {}
}

extern "C" void slv_blur_rect(slv_yuv420 p, int x, int y, int w, int h) {
    try {
        Planes planes(p);
        cv::Rect r = clip(planes.y, cv::Rect(x, y, w, h));
        if (r.width < 2 || r.height < 2) return;
        // A kernel about a third of the region wipes out facial detail whatever the size.
        int k = std::max(3, (std::min(r.width, r.height) / 3) | 1);
        cv::Mat roi = planes.y(r);
        cv::GaussianBlur(roi, roi, cv::Size(k, k), 0);
        cv::Rect hr = clip(planes.u, cv::Rect(r.x / 2, r.y / 2, r.width / 2, r.height / 2));
        if (hr.width < 2 || hr.height < 2) return;
        int k2 = std::max(3, (k / 2) | 1);
        cv::Mat u = planes.u(hr), v = planes.v(hr);
        cv::GaussianBlur(u, u, cv::Size(k2, k2), 0);
        cv::GaussianBlur(v, v, cv::Size(k2, k2), 0);
    } catch (...) {}
}

extern "C" void slv_pixelate_rect(slv_yuv420 p, int x, int y, int w, int h, int block) {
    try {
        Planes planes(p);
        block = std::max(2, block);
        auto pixelate = [](cv::Mat roi, int b) {
            if (roi.cols < 1 || roi.rows < 1) return;
            cv::Mat small;
            cv::resize(roi, small, cv::Size(std::max(1, roi.cols / b), std::max(1, roi.rows / b)), 0, 0, cv::INTER_AREA);
            cv::resize(small, roi, roi.size(), 0, 0, cv::INTER_NEAREST);
        };
        cv::Rect r = clip(planes.y, cv::Rect(x, y, w, h));
        pixelate(planes.y(r), block);
        cv::Rect hr = clip(planes.u, cv::Rect(r.x / 2, r.y / 2, r.width / 2, r.height / 2));
        pixelate(planes.u(hr), std::max(1, block / 2));
        pixelate(planes.v(hr), std::max(1, block / 2));
    } catch (...) {}
}

extern "C" void slv_copy_yuv420(slv_yuv420 src, slv_yuv420 dst, int mirror) {
    try {
        Planes from(src), to(dst);
        if (mirror) {
            cv::flip(from.y, to.y, 1);
            cv::flip(from.u, to.u, 1);
            cv::flip(from.v, to.v, 1);
        } else {
            from.y.copyTo(to.y);
            from.u.copyTo(to.u);
            from.v.copyTo(to.v);
        }
    } catch (...) {}
}
