// Overlays drawn straight into the planes of a YUV 4:2:0 picture with OpenCV: no RGB round trip.
#include "CVision.h"
#include "Interop.hpp"

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

extern "C" void slv_draw_dots(slv_yuv420 p, const int *points, int count, int radius, const uint8_t c[3]) {
    try {
        Planes planes(p);
        const int r2 = std::max(1, radius / 2);
        for (int i = 0; i < count; i++) {
            const int x = points[2 * i], y = points[2 * i + 1];
            cv::circle(planes.y, cv::Point(x, y), radius, cv::Scalar(c[0]), cv::FILLED, cv::LINE_AA);
            cv::circle(planes.u, cv::Point(x / 2, y / 2), r2, cv::Scalar(c[1]), cv::FILLED);
            cv::circle(planes.v, cv::Point(x / 2, y / 2), r2, cv::Scalar(c[2]), cv::FILLED);
        }
    } catch (...) {}
}

namespace {

const int kFont = cv::FONT_HERSHEY_SIMPLEX;

int textThickness(double scale) { return std::max(1, (int)(scale * 1.5)); }

// The text's background box: the text with 2 px left and right, 4 above, its baseline and 2 below.
cv::Size textBox(const char *text, double scale, int *baseline) {
    cv::Size size = cv::getTextSize(text, kFont, scale, textThickness(scale), baseline);
    return cv::Size(size.width + 4, size.height + *baseline + 6);
}

// The coded-picture rectangle shown at displayed rectangle r when the coded picture is turned
// `rotation` degrees clockwise for display.
cv::Rect codedRect(cv::Rect r, int rotation, int codedWidth, int codedHeight) {
    switch (rotation) {
    case 90: return cv::Rect(r.y, codedHeight - (r.x + r.width), r.height, r.width);
    case 180: return cv::Rect(codedWidth - (r.x + r.width), codedHeight - (r.y + r.height), r.width, r.height);
    case 270: return cv::Rect(codedWidth - (r.y + r.height), r.x, r.height, r.width);
    default: return r;
    }
}

// A displayed-orientation image turned back into the coded orientation.
cv::Mat toCoded(const cv::Mat &m, int rotation) {
    if (rotation != 90 && rotation != 180 && rotation != 270) return m;
    cv::Mat out;
    cv::rotate(m, out, rotation == 90 ? cv::ROTATE_90_COUNTERCLOCKWISE
                       : rotation == 180 ? cv::ROTATE_180 : cv::ROTATE_90_CLOCKWISE);
    return out;
}

// The chroma-plane rectangle covering luma rectangle r (4:2:0), rounding outwards.
cv::Rect halfRect(cv::Rect r) {
    auto down = [](int v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
    auto up = [&](int v) { return -down(-v); };
    const int x0 = down(r.x), y0 = down(r.y);
    return cv::Rect(x0, y0, up(r.x + r.width) - x0, up(r.y + r.height) - y0);
}

// Blends `src` (sized like `full`) over `dst` where `full` lies inside it, weighted by `alpha`.
void blend(cv::Mat &dst, cv::Rect full, const cv::Mat &src, const cv::Mat &alpha) {
    cv::Rect c = clip(dst, full);
    for (int i = 0; i < c.height; i++) {
        uint8_t *d = dst.ptr<uint8_t>(c.y + i) + c.x;
        const uint8_t *s = src.ptr<uint8_t>(c.y - full.y + i) + (c.x - full.x);
        const uint8_t *a = alpha.ptr<uint8_t>(c.y - full.y + i) + (c.x - full.x);
        for (int j = 0; j < c.width; j++) {
            d[j] = (uint8_t)((a[j] * s[j] + (255 - a[j]) * d[j] + 127) / 255);
        }
    }
}

cv::Mat resized(const cv::Mat &m, cv::Size size) {
    cv::Mat out;
    const bool shrinking = size.width < m.cols && size.height < m.rows;
    cv::resize(m, out, size, 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
    return out;
}

} // namespace

extern "C" void slv_text_box_size(const char *text, double scale, int *width, int *height) {
    try {
        int baseline = 0;
        cv::Size box = textBox(text, scale, &baseline);
        *width = box.width;
        *height = box.height;
    } catch (...) {
        *width = 0;
        *height = 0;
    }
}

extern "C" void slv_draw_text(slv_yuv420 p, const char *text, int x, int y, double scale,
                              const uint8_t c[3], const uint8_t bg[3], int rotation) {
    try {
        Planes planes(p);
        int baseline = 0;
        cv::Size box = textBox(text, scale, &baseline);
        // Drawn upright in a small image of its own, then turned into the coded orientation.
        cv::Mat label(box, CV_8UC1, cv::Scalar(bg[0]));
        cv::putText(label, text, cv::Point(2, box.height - baseline - 2), kFont, scale, cv::Scalar(c[0]),
                    textThickness(scale), cv::LINE_AA);
        cv::Mat coded = toCoded(label, rotation);
        cv::Rect r = codedRect(cv::Rect(x, y, box.width, box.height), rotation, p.width, p.height);
        cv::Rect visible = clip(planes.y, r);
        if (visible.empty()) return;
        coded(cv::Rect(visible.x - r.x, visible.y - r.y, visible.width, visible.height)).copyTo(planes.y(visible));
        cv::Rect half = clip(planes.u, halfRect(visible));
        planes.u(half).setTo(bg[1]);
        planes.v(half).setTo(bg[2]);
    } catch (...) {}
}

extern "C" void slv_draw_image(slv_yuv420 p, const slv_yuva444 *image, int x, int y, int w, int h, int rotation) {
    try {
        if (!image || image->width < 1 || image->height < 1 || w < 1 || h < 1) return;
        Planes planes(p);
        auto plane = [&](const uint8_t *data) {
            return toCoded(wrapPlane(data, image->width, image->height, image->stride), rotation);
        };
        cv::Mat py = plane(image->y), pu = plane(image->u), pv = plane(image->v), pa = plane(image->a);
        cv::Rect r = codedRect(cv::Rect(x, y, w, h), rotation, p.width, p.height);
        if (clip(planes.y, r).empty()) return;
        blend(planes.y, r, resized(py, r.size()), resized(pa, r.size()));
        cv::Rect hr = halfRect(r);
        cv::Mat ha = resized(pa, hr.size());
        blend(planes.u, hr, resized(pu, hr.size()), ha);
        blend(planes.v, hr, resized(pv, hr.size()), ha);
    } catch (...) {}
}

extern "C" int slv_rotate_rgb(const uint8_t *src, int src_width, int src_height, int src_stride, int x, int y, int w, int h,
                              int rotation, uint8_t *dst, int dst_stride) {
    try {
        if (x < 0 || y < 0 || w < 1 || h < 1 || x + w > src_width || y + h > src_height) return -1;
        cv::Mat whole(src_height, src_width, CV_8UC3, const_cast<uint8_t *>(src), (size_t)src_stride);
        cv::Mat region = whole(cv::Rect(x, y, w, h));
        const bool swaps = rotation == 90 || rotation == 270;
        cv::Mat out(swaps ? w : h, swaps ? h : w, CV_8UC3, dst, (size_t)dst_stride);
        cv::Mat turned = region;
        if (rotation == 90) cv::rotate(region, turned, cv::ROTATE_90_CLOCKWISE);
        else if (rotation == 180) cv::rotate(region, turned, cv::ROTATE_180);
        else if (rotation == 270) cv::rotate(region, turned, cv::ROTATE_90_COUNTERCLOCKWISE);
        turned.copyTo(out);   // into the caller's buffer (out wraps it at the right size)
        return 0;
    } catch (...) {
        return -1;
    }
}
