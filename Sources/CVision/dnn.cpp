// The parts of the ONNX face detectors that OpenCV does, behind the C API of CVision.h: the
// network input made from a frame's planes, OpenCV's dnn module as one of the inference runtimes,
// and OpenCV's non-maximum suppression. Model formats (input layout, output decoding) live in
// Swift (Detection/FaceModelFormat.swift). Every entry point catches C++ exceptions: one
// unwinding into Swift would end the process.
#include "CVision.h"
#include "Interop.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// `src` at `size` (coded orientation), turned `rotation` degrees clockwise for display: only the
/// steps needed, into kept buffers; with neither, `src` itself (no copy). Luma (`averaged` given)
/// is area-averaged when shrinking, so fine detail does not alias: by whole factors first, over
/// k x k pixels (OpenCV's fast integer path), then the rest of the way, bilinearly when that is
/// within 10 %. 720p to CenterFace's 640x352: 0.11 ms of CPU, against 0.97 for area averaging at
/// the exact factor. Chroma: bilinear, enough for colour that carries no fine detail.
cv::Mat prepare(const cv::Mat &src, cv::Size size, int rotation, cv::Mat &scaled, cv::Mat &turned,
                cv::Mat *averaged = nullptr) {
    cv::Mat m = src;
    if (src.size() != size) {
        // Whole factors up to 3 % above the ratio (1080 rows to 544: 2, then 540 to 544).
        const int kx = averaged ? std::max(1, (int)(1.03 * src.cols / size.width)) : 1;
        const int ky = averaged ? std::max(1, (int)(1.03 * src.rows / size.height)) : 1;
        const bool whole = kx > 1 || ky > 1;
        if (whole) {
            cv::resize(m, *averaged, cv::Size(src.cols / kx, src.rows / ky), 0, 0, cv::INTER_AREA);
            m = *averaged;
        }
        if (m.size() != size) {
            const bool shrinks = size.width <= m.cols && size.height <= m.rows;
            const bool near = m.cols <= 1.1 * size.width && m.rows <= 1.1 * size.height;
            const bool area = averaged && shrinks && !(whole && near);
            cv::resize(m, scaled, size, 0, 0, area ? cv::INTER_AREA : cv::INTER_LINEAR);
            m = scaled;
        }
    }
    if (rotation != 0) {
        cv::rotate(m, turned, rotation == 90 ? cv::ROTATE_90_CLOCKWISE
                            : rotation == 180 ? cv::ROTATE_180 : cv::ROTATE_90_COUNTERCLOCKWISE);
        m = turned;
    }
    return m;
}

} // namespace

struct slv_dnn_input {
    // Reused buffers: averaged, scaled and turned planes, the interleaved chroma and its halves, the blob.
    cv::Mat yAveraged, yScaled, yTurned, cbScaled, cbTurned, crScaled, crTurned, chroma, halves[2], blob;
    // Neutral chroma (128) for a grey picture.
    std::vector<uint8_t> neutral;
};

struct slv_cv_net {
    cv::dnn::Net net;
    std::vector<cv::String> outputs;
    std::vector<cv::Mat> results;
    cv::Mat input;
};

namespace {

/// One row of Y'CbCr bytes to the network's planar R'G'B' floats (clamped to 0..255, then
/// scaled and offset).
void convertRow(const YCbCrToRGB &convert, const uint8_t *__restrict ys, const uint8_t *__restrict cbs,
                const uint8_t *__restrict crs, int w, float scale, float offset, float *__restrict outR,
                float *__restrict outG, float *__restrict outB) {
    for (int col = 0; col < w; col++) {
        float r, g, b;
        convert(ys[col], cbs[col], crs[col], r, g, b);
        outR[col] = std::min(255.0f, std::max(0.0f, r)) * scale + offset;
        outG[col] = std::min(255.0f, std::max(0.0f, g)) * scale + offset;
        outB[col] = std::min(255.0f, std::max(0.0f, b)) * scale + offset;
    }
}

/// Fills `d->blob` (1 x 3 x H x W float, display orientation) from the YUV planes: the planes are
/// scaled to the small detection size first, so colour is converted only for that small image.
void makeBlob(slv_dnn_input *d, const slv_yuv_image &image, cv::Size displaySize, int rotation, bool useColor,
              bool rgb, float scale, float offset) {
    const bool swaps = rotation == 90 || rotation == 270;
    const cv::Size coded = swaps ? cv::Size(displaySize.height, displaySize.width) : displaySize;
    const cv::Mat y = prepare(wrapPlane(image.luma),
                              coded, rotation, d->yScaled, d->yTurned, &d->yAveraged);

    const bool color = useColor && image.cb && image.cr && image.chroma_width > 0 && image.chroma_height > 0;
    cv::Mat cb, cr;
    if (color) {
        cv::Mat cbCoded, crCoded;
        if (image.chroma_step == 2) {
            // Interleaved (NV12: Cb Cr, NV21: Cr Cb): scale both at once, then split.
            const uint8_t *first = std::min(image.cb, image.cr);
            const cv::Mat both = wrapPlane(first, image.chroma_width, image.chroma_height, image.chroma_stride, 2);
            cv::Mat sized = both;
            if (both.size() != coded) {
                cv::resize(both, d->chroma, coded, 0, 0, cv::INTER_LINEAR);
                sized = d->chroma;
            }
            cv::split(sized, d->halves);
            cbCoded = image.cb < image.cr ? d->halves[0] : d->halves[1];
            crCoded = image.cb < image.cr ? d->halves[1] : d->halves[0];
        } else {
            cbCoded = wrapPlane(image.cb, image.chroma_width, image.chroma_height, image.chroma_stride, 1);
            crCoded = wrapPlane(image.cr, image.chroma_width, image.chroma_height, image.chroma_stride, 1);
        }
        cb = prepare(cbCoded, coded, rotation, d->cbScaled, d->cbTurned);
        cr = prepare(crCoded, coded, rotation, d->crScaled, d->crTurned);
    }

    const int w = displaySize.width, h = displaySize.height;
    const int dims[4] = {1, 3, h, w};
    d->blob.create(4, dims, CV_32F);
    float *planes[3] = {d->blob.ptr<float>(0, 0), d->blob.ptr<float>(0, 1), d->blob.ptr<float>(0, 2)};

    // Y'CbCr to R'G'B' (0..255) for the frame's matrix and range.
    const YCbCrToRGB convert(image.matrix, image.full_range);
    float *outR = rgb ? planes[0] : planes[2], *outG = planes[1], *outB = rgb ? planes[2] : planes[0];
    // A grey picture is converted with neutral chroma rows: one loop without branches, which
    // the compiler vectorizes (the same operations per pixel, so the same floats).
    if (!color) d->neutral.assign(w, 128);
    for (int row = 0; row < h; row++) {
        convertRow(convert, y.ptr<uint8_t>(row), color ? cb.ptr<uint8_t>(row) : d->neutral.data(),
                   color ? cr.ptr<uint8_t>(row) : d->neutral.data(), w, scale, offset,
                   outR + (size_t)row * w, outG + (size_t)row * w, outB + (size_t)row * w);
    }
}

} // namespace

extern "C" slv_dnn_input *slv_dnn_input_create(void) {
    try {
        return new slv_dnn_input();
    } catch (...) {
        return nullptr;
    }
}

extern "C" void slv_dnn_input_destroy(slv_dnn_input *input) { delete input; }

extern "C" const float *slv_dnn_input_make(slv_dnn_input *d, const slv_yuv_image *image, const slv_dnn_input_options *o,
                                           char *error, size_t error_size) {
    try {
        if (o->width <= 0 || o->height <= 0 || image->luma.width <= 0 || image->luma.height <= 0) {
            report(error, error_size, "empty picture or input size");
            return nullptr;
        }
        makeBlob(d, *image, cv::Size(o->width, o->height), o->rotation, o->use_color != 0, o->rgb != 0, o->scale, o->offset);
        return d->blob.ptr<float>();
    } catch (...) {
        reportCaught(error, error_size, "unknown error making the network input", "OpenCV: ");
    }
    return nullptr;
}

extern "C" slv_cv_net *slv_cv_net_create(const char *path, const char *const *outputs, int output_count,
                                         char *error, size_t error_size) {
    slv_cv_net *n = nullptr;
    try {
        n = new slv_cv_net();
        n->net = cv::dnn::readNetFromONNX(path);
        if (n->net.empty()) {
            delete n;
            report(error, error_size, "not a readable ONNX model");
            return nullptr;
        }
        n->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        n->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        const std::vector<cv::String> present = n->net.getUnconnectedOutLayersNames();
        for (int i = 0; i < output_count; i++) {
            const cv::String name = outputs[i];
            if (std::find(present.begin(), present.end(), name) == present.end()) {
                std::string names;
                for (const auto &p : present) names += (names.empty() ? "" : ", ") + p;
                report(error, error_size, "it has no output '" + name + "' (its outputs: " + names + ")");
                delete n;
                return nullptr;
            }
            n->outputs.push_back(name);
        }
        return n;
    } catch (...) {
        reportCaught(error, error_size, "unknown error loading the model", "OpenCV cannot use this model: ");
    }
    delete n;
    return nullptr;
}

extern "C" void slv_cv_net_destroy(slv_cv_net *net) { delete net; }

extern "C" int slv_cv_net_run(slv_cv_net *n, const float *input, int width, int height, slv_tensor *results,
                              char *error, size_t error_size) {
    try {
        const int dims[4] = {1, 3, height, width};
        n->input = cv::Mat(4, dims, CV_32F, const_cast<float *>(input));
        n->net.setInput(n->input);
        n->net.forward(n->results, n->outputs);
        for (size_t i = 0; i < n->outputs.size(); i++) {
            cv::Mat &m = n->results[i];
            if (m.type() != CV_32F || !m.isContinuous()) m.convertTo(m, CV_32F);
            slv_tensor &t = results[i];
            t.data = m.ptr<float>();
            t.count = m.total();
            t.rank = std::min(m.dims, 6);
            for (int k = 0; k < 6; k++) t.dims[k] = k < t.rank ? m.size[k] : 0;
        }
        return 0;
    } catch (...) {
        reportCaught(error, error_size, "unknown error in the network", "OpenCV: ");
    }
    return -1;
}

extern "C" const char *slv_opencv_version(void) { return CV_VERSION; }

extern "C" int slv_nms_boxes(const float *boxes, const float *scores, int count, float score_threshold, float nms_iou,
                             int *keep, char *error, size_t error_size) {
    try {
        std::vector<cv::Rect2d> rects;
        std::vector<float> values(scores, scores + count);
        for (int i = 0; i < count; i++) rects.emplace_back(boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3]);
        std::vector<int> kept;
        if (count > 0) cv::dnn::NMSBoxes(rects, values, score_threshold, nms_iou, kept);
        const int n = std::min((int)kept.size(), count);
        std::copy(kept.begin(), kept.begin() + n, keep);
        return n;
    } catch (...) {
        reportCaught(error, error_size, "unknown error in non-maximum suppression", "OpenCV: ");
    }
    return -1;
}
