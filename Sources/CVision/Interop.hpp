// What every CVision entry point shares: views of caller-owned pixels as cv::Mat, and errors
// written as one line into the caller's message buffer.
#pragma once

#include "CVision.h"

#include <opencv2/core.hpp>

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
