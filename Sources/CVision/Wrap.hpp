// Views of caller-owned pixels as cv::Mat, without copying: valid for the duration of a call.
#pragma once

#include "CVision.h"

#include <opencv2/core.hpp>

inline cv::Mat wrapPlane(const uint8_t *data, int width, int height, int stride, int channels = 1) {
    return cv::Mat(height, width, CV_8UC(channels), const_cast<uint8_t *>(data), (size_t)stride);
}

inline cv::Mat wrapPlane(slv_gray_image image) {
    return wrapPlane(image.data, image.width, image.height, image.stride);
}
