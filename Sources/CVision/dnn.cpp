// ONNX face detectors through OpenCV's dnn module, behind the C API of CVision.h. Every entry point
// catches C++ exceptions: one unwinding into Swift would end the process.
//
// Pre- and post-processing follow the model formats described in the project's model notes:
// - YuNet 2022 ("legacy", yunet_120x160.onnx): BGR 0..255 input of any size; outputs loc (N x 14),
//   conf (N x 2), iou (N x 1) over prior boxes generated here; decoded here rather than with
//   cv::FaceDetectorYN, which accepts this format only in OpenCV 4.5.4 .. 4.7.
// - UltraFace (version-RFB-320/-640): RGB (x - 127) / 128 input of a fixed size; outputs scores
//   (N x 2) and boxes (N x 4, corners relative to the image), already decoded by the graph.
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

struct Prior { float cx, cy, w, h; };

/// YuNet 2022 prior boxes for an input of w x h, in the order of the model's outputs:
/// level (steps 8, 16, 32, 64), row, column, size.
std::vector<Prior> yunetPriors(int w, int h) {
    static const int steps[4] = {8, 16, 32, 64};
    static const std::vector<std::vector<float>> minSizes = {{10, 16, 24}, {32, 48}, {64, 96}, {128, 192, 256}};
    // The first three stride-2 stages: ceil for the first, floor after it.
    int fw = (w + 1) / 2 / 2 / 2, fh = (h + 1) / 2 / 2 / 2;
    std::vector<Prior> priors;
    for (int level = 0; level < 4; level++) {
        const float step = (float)steps[level];
        for (int row = 0; row < fh; row++) {
            for (int col = 0; col < fw; col++) {
                for (float size : minSizes[level]) {
                    priors.push_back({(col + 0.5f) * step, (row + 0.5f) * step, size, size});
                }
            }
        }
        fw /= 2;
        fh /= 2;
    }
    return priors;
}

/// `src` at `size` (coded orientation), turned `rotation` degrees clockwise for display: only the
/// steps needed, into kept buffers; with neither, `src` itself (no copy). Luma: area averaging
/// when shrinking (no aliasing of fine detail). Chroma (`smooth`): bilinear, several times cheaper
/// for the non-integer factors chroma planes usually need, and enough for colour that carries no
/// fine detail.
cv::Mat prepare(const cv::Mat &src, cv::Size size, int rotation, cv::Mat &scaled, cv::Mat &turned, bool smooth = false) {
    cv::Mat m = src;
    if (src.size() != size) {
        const bool shrinks = size.width <= src.cols && size.height <= src.rows;
        cv::resize(src, scaled, size, 0, 0, shrinks && !smooth ? cv::INTER_AREA : cv::INTER_LINEAR);
        m = scaled;
    }
    if (rotation != 0) {
        cv::rotate(m, turned, rotation == 90 ? cv::ROTATE_90_CLOCKWISE
                            : rotation == 180 ? cv::ROTATE_180 : cv::ROTATE_90_COUNTERCLOCKWISE);
        m = turned;
    }
    return m;
}

} // namespace

struct slv_dnn {
    int kind = 0;
    cv::dnn::Net net;
    std::vector<cv::String> outputs;
    cv::Size fixedInput;                    // UltraFace: the model's input size
    cv::Size priorSize;                     // YuNet: the size `priors` were made for
    std::vector<Prior> priors;
    // Reused buffers: scaled and turned planes, the interleaved chroma and its halves, the blob.
    cv::Mat yScaled, yTurned, cbScaled, cbTurned, crScaled, crTurned, chroma, halves[2], blob;
    std::vector<cv::Mat> results;
};

namespace {

/// Fills `d->blob` (1 x 3 x H x W float, display orientation) from the YUV planes: the planes are
/// scaled to the small detection size first, so colour is converted only for that small image.
void makeBlob(slv_dnn *d, const slv_yuv_image &image, cv::Size displaySize, int rotation, bool useColor) {
    const bool swaps = rotation == 90 || rotation == 270;
    const cv::Size coded = swaps ? cv::Size(displaySize.height, displaySize.width) : displaySize;
    const cv::Mat y = prepare(wrapPlane(image.luma),
                              coded, rotation, d->yScaled, d->yTurned);

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
        cb = prepare(cbCoded, coded, rotation, d->cbScaled, d->cbTurned, true);
        cr = prepare(crCoded, coded, rotation, d->crScaled, d->crTurned, true);
    }

    const int w = displaySize.width, h = displaySize.height;
    const int dims[4] = {1, 3, h, w};
    d->blob.create(4, dims, CV_32F);
    float *planes[3] = {d->blob.ptr<float>(0, 0), d->blob.ptr<float>(0, 1), d->blob.ptr<float>(0, 2)};

    // Y'CbCr to R'G'B' (0..255) for the frame's matrix and range.
    const bool bt709 = image.matrix == 709;
    const float kr = bt709 ? 1.5748f : 1.402f, kgb = bt709 ? 0.187324f : 0.344136f;
    const float kgr = bt709 ? 0.468124f : 0.714136f, kb = bt709 ? 1.8556f : 1.772f;
    const float yScale = image.full_range ? 1.0f : 255.0f / 219.0f, yOffset = image.full_range ? 0.0f : 16.0f;
    const float cScale = image.full_range ? 1.0f : 255.0f / 224.0f;
    // YuNet: B, G, R planes, 0..255. UltraFace: R, G, B planes, (x - 127) / 128.
    const bool rgb = d->kind == SLV_DNN_ULTRAFACE;
    const float scale = rgb ? 1.0f / 128.0f : 1.0f, offset = rgb ? -127.0f / 128.0f : 0.0f;
    float *outR = rgb ? planes[0] : planes[2], *outG = planes[1], *outB = rgb ? planes[2] : planes[0];
    for (int row = 0; row < h; row++) {
        const uint8_t *ys = y.ptr<uint8_t>(row);
        const uint8_t *cbs = color ? cb.ptr<uint8_t>(row) : nullptr;
        const uint8_t *crs = color ? cr.ptr<uint8_t>(row) : nullptr;
        const size_t base = (size_t)row * w;
        for (int col = 0; col < w; col++) {
            const float luma = (ys[col] - yOffset) * yScale;
            float r = luma, g = luma, b = luma;
            if (color) {
                const float u = (cbs[col] - 128.0f) * cScale, v = (crs[col] - 128.0f) * cScale;
                r = luma + kr * v;
                g = luma - kgb * u - kgr * v;
                b = luma + kb * u;
            }
            outR[base + col] = std::min(255.0f, std::max(0.0f, r)) * scale + offset;
            outG[base + col] = std::min(255.0f, std::max(0.0f, g)) * scale + offset;
            outB[base + col] = std::min(255.0f, std::max(0.0f, b)) * scale + offset;
        }
    }
}

struct Candidate {
    cv::Rect2d box;          // detection-image pixels
    float score;
    float landmarks[10];
    int landmarkCount;
};

void decodeYuNet(slv_dnn *d, float threshold, std::vector<Candidate> &out) {
    const cv::Mat &loc = d->results[0], &conf = d->results[1], &iou = d->results[2];
    const size_t n = d->priors.size();
    if (loc.total() != n * 14 || conf.total() != n * 2 || iou.total() != n) {
        throw std::runtime_error("the model's outputs do not match YuNet 2022 (loc N x 14, conf N x 2, iou N x 1 for " +
                                 std::to_string(n) + " prior boxes)");
    }
    const float *l = loc.ptr<float>(), *c = conf.ptr<float>(), *u = iou.ptr<float>();
    for (size_t i = 0; i < n; i++) {
        const float iouScore = std::min(1.0f, std::max(0.0f, u[i]));
        const float score = std::sqrt(std::max(0.0f, c[2 * i + 1]) * iouScore);
        if (!(score >= threshold)) continue;
        const Prior &p = d->priors[i];
        const float *li = l + 14 * i;
        const float cx = p.cx + li[0] * 0.1f * p.w, cy = p.cy + li[1] * 0.1f * p.h;
        const float w = p.w * std::exp(li[2] * 0.2f), h = p.h * std::exp(li[3] * 0.2f);
        Candidate cand;
        cand.box = cv::Rect2d(cx - w / 2, cy - h / 2, w, h);
        cand.score = score;
        cand.landmarkCount = 5;
        for (int k = 0; k < 5; k++) {
            cand.landmarks[2 * k] = p.cx + li[4 + 2 * k] * 0.1f * p.w;
            cand.landmarks[2 * k + 1] = p.cy + li[5 + 2 * k] * 0.1f * p.h;
        }
        out.push_back(cand);
    }
}

void decodeUltraFace(slv_dnn *d, float threshold, cv::Size input, std::vector<Candidate> &out) {
    const cv::Mat &scores = d->results[0], &boxes = d->results[1];
    const size_t n = scores.total() / 2;
    if (scores.total() != n * 2 || boxes.total() != n * 4 || n == 0) {
        throw std::runtime_error("the model's outputs do not match UltraFace (scores N x 2, boxes N x 4)");
    }
    const float *s = scores.ptr<float>(), *b = boxes.ptr<float>();
    for (size_t i = 0; i < n; i++) {
        const float score = s[2 * i + 1];
        if (!(score >= threshold)) continue;
        const float *bi = b + 4 * i;
        Candidate cand;
        cand.box = cv::Rect2d(bi[0] * input.width, bi[1] * input.height,
                              (bi[2] - bi[0]) * input.width, (bi[3] - bi[1]) * input.height);
        cand.score = score;
        cand.landmarkCount = 0;
        out.push_back(cand);
    }
}

/// Runs the network on `d->blob`; YuNet's priors follow the blob's size.
void forward(slv_dnn *d) {
    if (d->kind == SLV_DNN_YUNET_LEGACY) {
        const cv::Size size(d->blob.size[3], d->blob.size[2]);
        if (size != d->priorSize) {
            d->priors = yunetPriors(size.width, size.height);
            d->priorSize = size;
        }
    }
    d->net.setInput(d->blob);
    d->net.forward(d->results, d->outputs);
}

} // namespace

extern "C" slv_dnn *slv_dnn_create(const char *path, int kind, int input_width, int input_height,
                                   char *error, size_t error_size) {
    slv_dnn *d = nullptr;
    try {
        if (kind != SLV_DNN_YUNET_LEGACY && kind != SLV_DNN_ULTRAFACE) {
            report(error, error_size, "unknown model kind");
            return nullptr;
        }
        d = new slv_dnn();
        d->kind = kind;
        d->net = cv::dnn::readNetFromONNX(path);
        if (d->net.empty()) {
            delete d;
            report(error, error_size, "not a readable ONNX model");
            return nullptr;
        }
        d->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        d->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        const std::vector<cv::String> wanted = kind == SLV_DNN_YUNET_LEGACY
            ? std::vector<cv::String>{"loc", "conf", "iou"} : std::vector<cv::String>{"scores", "boxes"};
        const std::vector<cv::String> present = d->net.getUnconnectedOutLayersNames();
        for (const auto &name : wanted) {
            if (std::find(present.begin(), present.end(), name) == present.end()) {
                std::string names;
                for (const auto &p : present) names += (names.empty() ? "" : ", ") + p;
                report(error, error_size, std::string(kind == SLV_DNN_YUNET_LEGACY ? "not a YuNet 2022 model" : "not an UltraFace model") +
                       ": it has no output '" + name + "' (its outputs: " + names + ")");
                delete d;
                return nullptr;
            }
        }
        d->outputs = wanted;
        if (kind == SLV_DNN_ULTRAFACE) {
            if (input_width <= 0 || input_height <= 0) {
                report(error, error_size, "UltraFace needs its fixed input size");
                delete d;
                return nullptr;
            }
            d->fixedInput = cv::Size(input_width, input_height);
        }
        // One run on a blank image: a model that does not take this input fails now, not per frame.
        const cv::Size probe = kind == SLV_DNN_ULTRAFACE ? d->fixedInput : cv::Size(160, 120);
        const int dims[4] = {1, 3, probe.height, probe.width};
        d->blob = cv::Mat(4, dims, CV_32F, cv::Scalar(0));
        forward(d);
        std::vector<Candidate> unused;
        if (kind == SLV_DNN_ULTRAFACE) decodeUltraFace(d, 2.0f, probe, unused);
        else decodeYuNet(d, 2.0f, unused);
        return d;
    } catch (...) {
        reportCaught(error, error_size, "unknown error loading the model", "OpenCV cannot use this model: ");
    }
    delete d;
    return nullptr;
}

extern "C" void slv_dnn_destroy(slv_dnn *detector) { delete detector; }

extern "C" int slv_dnn_detect(slv_dnn *d, const slv_yuv_image *image, const slv_dnn_options *o,
                              slv_dnn_face *faces, int capacity, char *error, size_t error_size) {
    try {
        const bool swaps = o->rotation == 90 || o->rotation == 270;
        const int displayW = swaps ? image->luma.height : image->luma.width;
        const int displayH = swaps ? image->luma.width : image->luma.height;
        if (displayW <= 0 || displayH <= 0) return 0;

        cv::Size input;
        if (d->kind == SLV_DNN_ULTRAFACE) {
            input = d->fixedInput;   // the whole frame, aspect not kept: the priors are baked into the graph
        } else {
            double scale = 1.0;
            if (o->detect_width > 0 && o->detect_width < displayW) scale = (double)o->detect_width / displayW;
            input = cv::Size(std::max(1, (int)std::lround(displayW * scale)), std::max(1, (int)std::lround(displayH * scale)));
        }
        makeBlob(d, *image, input, o->rotation, o->use_color != 0);
        forward(d);

        std::vector<Candidate> candidates;
        if (d->kind == SLV_DNN_ULTRAFACE) decodeUltraFace(d, o->threshold, input, candidates);
        else decodeYuNet(d, o->threshold, candidates);

        std::vector<cv::Rect2d> boxes;
        std::vector<float> scores;
        for (const auto &c : candidates) {
            boxes.push_back(c.box);
            scores.push_back(c.score);
        }
        std::vector<int> keep;
        if (!boxes.empty()) cv::dnn::NMSBoxes(boxes, scores, o->threshold, o->nms_iou > 0 ? o->nms_iou : 0.3f, keep);

        // Back to displayed-frame pixels, clipped to the frame.
        const double sx = (double)displayW / input.width, sy = (double)displayH / input.height;
        std::vector<slv_dnn_face> found;
        for (int i : keep) {
            const Candidate &c = candidates[i];
            const double x0 = std::max(0.0, c.box.x * sx), y0 = std::max(0.0, c.box.y * sy);
            const double x1 = std::min((double)displayW, (c.box.x + c.box.width) * sx);
            const double y1 = std::min((double)displayH, (c.box.y + c.box.height) * sy);
            if (x1 <= x0 || y1 <= y0) continue;
            if (std::max(x1 - x0, y1 - y0) < o->min_face) continue;
            slv_dnn_face f;
            f.x = (float)x0; f.y = (float)y0; f.w = (float)(x1 - x0); f.h = (float)(y1 - y0);
            f.score = std::min(1.0f, std::max(0.0f, c.score));
            f.landmark_count = c.landmarkCount;
            for (int k = 0; k < 10; k++) f.landmarks[k] = k < 2 * c.landmarkCount ? (float)(c.landmarks[k] * (k % 2 ? sy : sx)) : 0.0f;
            found.push_back(f);
        }
        // Stable order (top-left first), as for the cascades.
        std::stable_sort(found.begin(), found.end(), [](const slv_dnn_face &a, const slv_dnn_face &b) {
            if (a.y != b.y) return a.y < b.y;
            return a.x < b.x;
        });
        const int n = std::min((int)found.size(), capacity);
        std::copy(found.begin(), found.begin() + n, faces);
        return n;
    } catch (...) {
        reportCaught(error, error_size, "unknown error in face detection", "OpenCV: ");
    }
    return -1;
}
