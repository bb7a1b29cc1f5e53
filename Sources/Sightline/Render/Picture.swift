import CFFmpeg
import CVision
import SightlineFrames
import SightlineMedia

/// A writable YUV 4:2:0 copy of one frame's coded picture: what overlays are drawn on, and what
/// stills and thumbnails are cut from (the decoder's frame is shared with the analyzers and
/// never changed).
final class Picture {
    private(set) var frame: UnsafeMutablePointer<AVFrame>?
    let rotation: Rotation
    /// The frame's Y'CbCr matrix (709 or 601) and range, for conversions to and from RGB.
    let matrix: Int32
    let fullRange: Bool

    /// `spare`: a picture written and no longer needed, whose memory this one takes over when it
    /// can (the spare is left without a frame).
    init(copying source: VideoFrame, scaler: FrameScaler, reusing spare: Picture? = nil) throws {
        let spareFrame = spare?.frame
        spare?.frame = nil
        frame = try source.drawableCopy(scaler: scaler, reusing: spareFrame)
        rotation = source.rotation
        let yuv = source.yuv
        matrix = yuv.matrix == 709 ? 709 : 601
        fullRange = yuv.full_range != 0
    }

    deinit { av_frame_free(&frame) }

    var codedWidth: Int { Int(frame!.pointee.width) }
    var codedHeight: Int { Int(frame!.pointee.height) }
    var displayWidth: Int { rotation.swapsAxes ? codedHeight : codedWidth }
    var displayHeight: Int { rotation.swapsAxes ? codedWidth : codedHeight }

    /// The planes, for the drawing functions of CVision.
    var planes: slv_yuv420 {
        let p = frame!.pointee
        return slv_yuv420(y: p.data.0, u: p.data.1, v: p.data.2, y_stride: p.linesize.0, u_stride: p.linesize.1,
                          v_stride: p.linesize.2, width: p.width, height: p.height)
    }

    /// A displayed-frame rectangle (the whole frame by default) as RGB, turned upright: only
    /// that region is converted, then rotated by OpenCV.
    func rgb(_ region: PixelRect? = nil, converter scaler: FrameScaler) throws -> RGBImage {
        guard let frame else { throw SightlineError.internal("picture without a frame") }
        guard let shown = (region ?? PixelRect(x: 0, y: 0, width: displayWidth, height: displayHeight))
            .clipped(width: displayWidth, height: displayHeight) else {
            throw SightlineError.internal("region outside the picture")
        }
        let coded = shown.coded(rotation)
        // Convert from an even corner so the 4:2:0 chroma rows and columns line up.
        let x0 = coded.x & ~1, y0 = coded.y & ~1
        let w = coded.x + coded.width - x0, h = coded.y + coded.height - y0
        guard let converter = scaler.context(width: Int32(w), height: Int32(h), from: AV_PIX_FMT_YUV420P, to: AV_PIX_FMT_RGB24,
                                             flags: SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT) else { throw SightlineError.internal("cannot set up a YUV to RGB conversion") }
        let range = frame.pointee.color_range == AVCOL_RANGE_JPEG || fullRange ? Int32(1) : 0
        sws_setColorspaceDetails(converter, sws_getCoefficients(matrix == 709 ? SWS_CS_ITU709 : SWS_CS_ITU601), range,
                                 sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
        let p = frame.pointee
        let source: [UnsafePointer<UInt8>?] = [
            UnsafePointer(p.data.0! + y0 * Int(p.linesize.0) + x0),
            UnsafePointer(p.data.1! + (y0 / 2) * Int(p.linesize.1) + x0 / 2),
            UnsafePointer(p.data.2! + (y0 / 2) * Int(p.linesize.2) + x0 / 2),
            nil,
        ]
        let sourceStrides: [Int32] = [p.linesize.0, p.linesize.1, p.linesize.2, 0]
        let stride = SwscaleBuffer.stride(w * 3)
        var converted = [UInt8](repeating: 0, count: stride * h + SwscaleBuffer.slack)
        converted.withUnsafeMutableBufferPointer { out in
            let destination: [UnsafeMutablePointer<UInt8>?] = [out.baseAddress, nil, nil, nil]
            let destinationStrides: [Int32] = [Int32(stride), 0, 0, 0]
            _ = sws_scale(converter, source, sourceStrides, 0, Int32(h), destination, destinationStrides)
        }
        let outWidth = rotation.swapsAxes ? coded.height : coded.width
        let outHeight = rotation.swapsAxes ? coded.width : coded.height
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        let status = pixels.withUnsafeMutableBufferPointer { out in
            slv_rotate_rgb(converted, Int32(w), Int32(h), Int32(stride), Int32(coded.x - x0), Int32(coded.y - y0),
                           Int32(coded.width), Int32(coded.height), Int32(rotation.degrees), out.baseAddress, Int32(outWidth * 3))
        }
        guard status == 0 else { throw SightlineError.internal("cannot cut \(shown) from the picture") }
        return RGBImage(width: outWidth, height: outHeight, pixels: pixels)
    }
}

/// The size of a buffer swscale writes into: its vector code writes whole blocks past the end of
/// a row that is not a multiple of its block size (found by fuzzing with a 7x5 mask image: heap
/// corruption), so rows are rounded up to 64 bytes and 64 bytes are kept to spare at the end.
enum SwscaleBuffer {
    static func stride(_ rowBytes: Int) -> Int { (rowBytes + 63) / 64 * 64 }
    static let slack = 64
}
