// What every CVision entry point shares: views of caller-owned pixels as cv::Mat, and errors
// written as one line into the caller's message buffer.
#pragma once

#include "CVision.h"

#include <opencv2/core.hpp>
#include <opencv2/core/hal/intrin.hpp>

#include <cstring>
#include <exception>
#include <string>

/// The caller's pixels, without copying: valid for the duration of a call.
inline cv::Mat wrapPlane(const uint8_t *data, int width, int height, int stride, int channels = 1) {
    return cv::Mat(height, width, CV_8UC(channels), const_cast<uint8_t *>(data), (size_t)stride);
}

inline cv::Mat wrapPlane(slv_gray_image image) {
    return wrapPlane(image.data, image.width, image.height, image.stride);
}

/// Y'CbCr to R'G'B' (0..255, not clamped) for a frame's matrix (709, else 601) and range, as a
/// player shows it. Without chroma (cb = cr = 128) every channel is the luma.
struct YCbCrToRGB {
    float kr, kgb, kgr, kb, yScale, yOffset, cScale;

    YCbCrToRGB(int matrix, bool fullRange) {
        const bool bt709 = matrix == 709;
        kr = bt709 ? 1.5748f : 1.402f;
        kgb = bt709 ? 0.187324f : 0.344136f;
        kgr = bt709 ? 0.468124f : 0.714136f;
        kb = bt709 ? 1.8556f : 1.772f;
        yScale = fullRange ? 1.0f : 255.0f / 219.0f;
        yOffset = fullRange ? 0.0f : 16.0f;
        cScale = fullRange ? 1.0f : 255.0f / 224.0f;
    }

    inline void operator()(uint8_t y, uint8_t cb, uint8_t cr, float &r, float &g, float &b) const {
        const float luma = (y - yOffset) * yScale;
        const float u = (cb - 128.0f) * cScale, v = (cr - 128.0f) * cScale;
        r = luma + kr * v;
        g = luma - kgb * u - kgr * v;
        b = luma + kb * u;
    }

    /// One row of `n` pixels (`cb`, `cr` null: grey) to interleaved B'G'R' bytes, each rounded as
    /// cv::saturate_cast does. Sixteen pixels at a time with the same operations in the same
    /// order, so the bytes are those of the per-pixel conversion.
    void rowToBGR(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int n, uint8_t *bgr) const {
        int x = 0;
#if CV_SIMD128
        for (cv::v_uint8x16 r, g, b; x + 16 <= n; x += 16) {
            sixteen(y + x, cb ? cb + x : nullptr, cr ? cr + x : nullptr, r, g, b);
            cv::v_store_interleave(bgr + 3 * x, b, g, r);
        }
#endif
        for (; x < n; x++) one(y[x], cb ? cb[x] : 128, cr ? cr[x] : 128, bgr[3 * x + 2], bgr[3 * x + 1], bgr[3 * x]);
    }

    /// The same to three planes of R', G' and B' bytes.
    void rowToPlanes(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int n, uint8_t *r, uint8_t *g,
                     uint8_t *b) const {
        int x = 0;
#if CV_SIMD128
        for (cv::v_uint8x16 rs, gs, bs; x + 16 <= n; x += 16) {
            sixteen(y + x, cb ? cb + x : nullptr, cr ? cr + x : nullptr, rs, gs, bs);
            cv::v_store(r + x, rs);
            cv::v_store(g + x, gs);
            cv::v_store(b + x, bs);
        }
#endif
        for (; x < n; x++) one(y[x], cb ? cb[x] : 128, cr ? cr[x] : 128, r[x], g[x], b[x]);
    }

  private:
    void one(uint8_t y, uint8_t cb, uint8_t cr, uint8_t &r, uint8_t &g, uint8_t &b) const {
        float fr, fg, fb;
        (*this)(y, cb, cr, fr, fg, fb);
        r = cv::saturate_cast<uint8_t>(fr);
        g = cv::saturate_cast<uint8_t>(fg);
        b = cv::saturate_cast<uint8_t>(fb);
    }

#if CV_SIMD128
    /// Four pixels' channels as floats.
    void four(const cv::v_float32x4 &fy, const cv::v_float32x4 &fcb, const cv::v_float32x4 &fcr, cv::v_int32x4 &r,
              cv::v_int32x4 &g, cv::v_int32x4 &b) const {
        const cv::v_float32x4 luma = (fy - cv::v_setall_f32(yOffset)) * cv::v_setall_f32(yScale);
        const cv::v_float32x4 half = cv::v_setall_f32(128.0f), scale = cv::v_setall_f32(cScale);
        const cv::v_float32x4 u = (fcb - half) * scale, v = (fcr - half) * scale;
        r = cv::v_round(luma + cv::v_setall_f32(kr) * v);
        g = cv::v_round(luma - cv::v_setall_f32(kgb) * u - cv::v_setall_f32(kgr) * v);
        b = cv::v_round(luma + cv::v_setall_f32(kb) * u);
    }

    static void floats(const cv::v_uint8x16 &bytes, cv::v_float32x4 f[4]) {
        cv::v_uint16x8 lo, hi;
        cv::v_expand(bytes, lo, hi);
        cv::v_uint32x4 q[4];
        cv::v_expand(lo, q[0], q[1]);
        cv::v_expand(hi, q[2], q[3]);
        for (int i = 0; i < 4; i++) f[i] = cv::v_cvt_f32(cv::v_reinterpret_as_s32(q[i]));
    }

    void sixteen(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, cv::v_uint8x16 &r, cv::v_uint8x16 &g,
                 cv::v_uint8x16 &b) const {
        cv::v_float32x4 fy[4], fcb[4], fcr[4];
        floats(cv::v_load(y), fy);
        floats(cb ? cv::v_load(cb) : cv::v_setall_u8(128), fcb);
        floats(cr ? cv::v_load(cr) : cv::v_setall_u8(128), fcr);
        cv::v_int32x4 ri[4], gi[4], bi[4];
        for (int i = 0; i < 4; i++) four(fy[i], fcb[i], fcr[i], ri[i], gi[i], bi[i]);
        // Saturating packs: int32 to int16, then int16 to 0..255, as saturate_cast<uint8_t>(int).
        r = cv::v_pack_u(cv::v_pack(ri[0], ri[1]), cv::v_pack(ri[2], ri[3]));
        g = cv::v_pack_u(cv::v_pack(gi[0], gi[1]), cv::v_pack(gi[2], gi[3]));
        b = cv::v_pack_u(cv::v_pack(bi[0], bi[1]), cv::v_pack(bi[2], bi[3]));
    }
#endif
};

/// Copies `message` into the caller's buffer (cut to fit, always NUL-terminated).
inline void report(char *error, size_t size, const std::string &message) {
    if (error && size > 0) {
        std::strncpy(error, message.c_str(), size - 1);
        error[size - 1] = '\0';
    }
}

/// For a `catch (...)` block: reports the exception being handled. An OpenCV error is reported as
/// `opencv` followed by OpenCV's own message when `opencv` is given (otherwise like any
/// std::exception, by `what()`); anything else that is not a std::exception as `unknown`.
inline void reportCaught(char *error, size_t size, const char *unknown, const char *opencv = nullptr) {
    try {
        throw;
    } catch (const cv::Exception &e) {
        report(error, size, opencv ? std::string(opencv) + (e.err.empty() ? e.what() : e.err) : std::string(e.what()));
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, unknown);
    }
}
