import CFFmpeg

/// A new frame holding `src`'s picture in `format`: a plain copy when the memory layouts agree,
/// otherwise converted by swscale with the caller's cached context. The caller owns the result.
/// With `size`, the picture is also scaled to that size.
func convertedFrame(_ src: UnsafeMutablePointer<AVFrame>, to format: AVPixelFormat, size: (width: Int32, height: Int32)? = nil,
                    scaler: inout OpaquePointer?) throws -> UnsafeMutablePointer<AVFrame> {
    let w = src.pointee.width, h = src.pointee.height
    let (outW, outH) = size ?? (w, h)
    guard let out = av_frame_alloc() else { throw SightlineError.internal("out of memory copying a frame") }
    var owned: UnsafeMutablePointer<AVFrame>? = out
    out.pointee.width = outW
    out.pointee.height = outH
    out.pointee.format = format.rawValue
    guard av_frame_get_buffer(out, 0) >= 0 else {
        av_frame_free(&owned)
        throw SightlineError.internal("out of memory copying a frame")
    }
    // yuvj420p differs from yuv420p only in its range tag: same planes, so a copy will do.
    let jpegTwin = format == AV_PIX_FMT_YUV420P && src.pointee.format == AV_PIX_FMT_YUVJ420P.rawValue
    if (src.pointee.format == format.rawValue || jpegTwin) && outW == w && outH == h {
        av_frame_copy(out, src)
        return out
    }
    scaler = sws_getCachedContext(scaler, w, h, AVPixelFormat(src.pointee.format), outW, outH, format, SWS_BILINEAR, nil, nil, nil)
    guard let scaler else {
        av_frame_free(&owned)
        throw SightlineError.internal("cannot convert pixel format \(src.pointee.format) to \(format.rawValue)")
    }
    withUnsafePointer(to: &src.pointee.data) { srcData in
        withUnsafePointer(to: &src.pointee.linesize) { srcLines in
            withUnsafePointer(to: &out.pointee.data) { dstData in
                withUnsafePointer(to: &out.pointee.linesize) { dstLines in
                    _ = sws_scale(scaler,
                                  UnsafeRawPointer(srcData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                  UnsafeRawPointer(srcLines).assumingMemoryBound(to: Int32.self), 0, h,
                                  UnsafeRawPointer(dstData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                  UnsafeRawPointer(dstLines).assumingMemoryBound(to: Int32.self))
                }
            }
        }
    }
    return out
}
