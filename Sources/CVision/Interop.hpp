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
