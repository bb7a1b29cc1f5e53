import CFFmpeg
import SightlineFrames

/// One swscale context, kept for the next frame of the same sizes and formats and freed with
/// its owner: a sink holds one of these, never the C pointer.
package final class FrameScaler {
    private var context: OpaquePointer?

    package init() {}

    deinit { sws_freeContext(context) }

    /// The context for converting a `width` × `height` picture in `source` to `target` (at
    /// `size`, or the same size), reused when the last call asked for the same; nil when
    /// swscale cannot.
    package func context(width: Int32, height: Int32, from source: AVPixelFormat, to target: AVPixelFormat,
                         size: (width: Int32, height: Int32)? = nil, flags: Int32) -> OpaquePointer? {
        let (outW, outH) = size ?? (width, height)
        context = sws_getCachedContext(context, width, height, source, outW, outH, target, flags, nil, nil, nil)
        return context
    }

    /// A new frame holding `src`'s picture in `format` (scaled to `size`, if given): a plain copy
    /// when the memory layouts agree, otherwise converted by swscale. The caller owns the result.
    /// `reusing` is a frame of the caller's that is no longer needed: its buffers are written
    /// over when they are of that format and size and nothing else holds them, and it is freed
    /// otherwise (either way the caller gives it up).
    package func converted(_ src: UnsafeMutablePointer<AVFrame>, to format: AVPixelFormat,
                           size: (width: Int32, height: Int32)? = nil,
                           reusing spare: UnsafeMutablePointer<AVFrame>? = nil) throws -> UnsafeMutablePointer<AVFrame> {
        try convertedFrame(src, to: format, size: size, scaler: self, reusing: spare)
    }
}

/// A frame with buffers of its own for a `width` × `height` picture in `format`.
private func newFrame(width: Int32, height: Int32, format: AVPixelFormat) throws -> UnsafeMutablePointer<AVFrame> {
    var frame = av_frame_alloc()
    guard let out = frame else { throw SightlineError.internal("out of memory copying a frame") }
    out.pointee.width = width
    out.pointee.height = height
    out.pointee.format = format.rawValue
    guard av_frame_get_buffer(out, 0) >= 0 else {
        av_frame_free(&frame)
        throw SightlineError.internal("out of memory copying a frame")
    }
    return out
}

private func convertedFrame(_ src: UnsafeMutablePointer<AVFrame>, to format: AVPixelFormat, size: (width: Int32, height: Int32)?,
                            scaler: FrameScaler, reusing spare: UnsafeMutablePointer<AVFrame>?) throws -> UnsafeMutablePointer<AVFrame> {
    let w = src.pointee.width, h = src.pointee.height
    let (outW, outH) = size ?? (w, h)
    // A spare frame's buffers are written over: a 1080p frame is 3 MB, and fresh memory for each
    // frame is memory the kernel maps and clears again.
    var owned = spare
    let reusable = spare.map { $0.pointee.width == outW && $0.pointee.height == outH && $0.pointee.format == format.rawValue
        && av_frame_is_writable($0) != 0 } ?? false
    if !reusable {
        av_frame_free(&owned)
        owned = try newFrame(width: outW, height: outH, format: format)
    }
    let out = owned!
    // yuvj420p differs from yuv420p only in its range tag: same planes, so a copy will do.
    let jpegTwin = format == AV_PIX_FMT_YUV420P && src.pointee.format == AV_PIX_FMT_YUVJ420P.rawValue
    if (src.pointee.format == format.rawValue || jpegTwin) && outW == w && outH == h {
        av_frame_copy(out, src)
        return out
    }
    guard let scaler = scaler.context(width: w, height: h, from: AVPixelFormat(src.pointee.format), to: format,
                                      size: (outW, outH), flags: SWS_BILINEAR) else {
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
