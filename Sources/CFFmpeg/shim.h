#ifndef SIGHTLINE_CFFMPEG_SHIM_H
#define SIGHTLINE_CFFMPEG_SHIM_H
// FFmpeg headers plus inline wrappers for what Swift cannot import (function-like macros).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/sha.h>
#include <libswscale/swscale.h>
#include <libavutil/opt.h>

static inline int sl_averror(int e) { return AVERROR(e); }
static inline int sl_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t sl_nopts_value(void) { return AV_NOPTS_VALUE; }

/// Display rotation of a stream in degrees clockwise (0, 90, 180 or 270), from its display matrix.
static inline int sl_stream_rotation(const AVStream *st) {
    const int32_t *matrix = (const int32_t *)av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!matrix) return 0;
    double degrees = -av_display_rotation_get(matrix);   // FFmpeg gives counter-clockwise
    if (degrees != degrees) return 0;                      // NaN: degenerate matrix
    long r = lround(degrees / 90.0) * 90 % 360;
    return (int)(r < 0 ? r + 360 : r);
}

/// Sets a stream's display matrix so players turn the picture `degrees` clockwise.
static inline int sl_set_stream_rotation(AVStream *st, int degrees) {
    uint8_t *data = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (!data) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)data, (double)degrees);   // set takes clockwise degrees (get returns counter-clockwise)
    return 0;
}
#endif
