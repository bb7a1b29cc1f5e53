import CFFmpeg
import CVision
import SightlineFrames

/// A read-only view of an 8-bit gray image (a decoded frame's luma plane). Valid only while the
/// `VideoFrame` it came from is alive.
public struct GrayImage {
    package let image: slv_gray_image
    /// Where this view starts in the full plane (non-zero for a region, see `cropped`).
    public let originX: Int
    public let originY: Int
    public var width: Int { Int(image.width) }
    public var height: Int { Int(image.height) }
    public var stride: Int { Int(image.stride) }
    /// True for a view made by `cropped`: its rows do not run to the end of the plane's rows.
    public let isRegion: Bool

    package init(image: slv_gray_image, originX: Int = 0, originY: Int = 0, isRegion: Bool = false) {
        self.image = image
        self.originX = originX
        self.originY = originY
        self.isRegion = isRegion
    }

    /// A view of a rectangle of this image (clipped to it), without copying; nil if empty.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> GrayImage? {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + w), y1 = min(height, y + h)
        guard x1 > x0, y1 > y0 else { return nil }
        let view = slv_gray_image(data: image.data + y0 * stride + x0, width: Int32(x1 - x0), height: Int32(y1 - y0),
                                  stride: image.stride)
        return GrayImage(image: view, originX: originX + x0, originY: originY + y0, isRegion: true)
    }
}

/// One decoded video frame with its place on the timeline.
///
/// Owns a reference to the decoder's frame (`av_frame_clone`), so the picture stays valid while
/// analyzers on other threads read it. Sendable because nothing mutates the frame after the
/// source hands it out, and FFmpeg's buffer references are thread-safe.
public final class VideoFrame: @unchecked Sendable {
    /// Position in presentation order among the frames the source delivered, from 0.
    public let index: Int
    /// Position in presentation order in the whole stream, from 0, also when reading began later
    /// (`--start`): the frame record's `index`.
    public let position: Int
    /// Presentation timestamp in the stream's time base.
    public let pts: Int64
    /// Seconds on the file's presentation timeline (pts × time base − the container's start time).
    public let seconds: Double
    /// Maps coded-picture coordinates to displayed-frame coordinates (made with this frame's own
    /// size: a stream's frames may change size).
    public let rotation: Rotation
    /// The stream stops being continuous before this frame (its clock jumped, its size changed, a
    /// live source reconnected): set by the source before the frame is handed out; the run fills
    /// in the frame's index and time.
    public internal(set) var discontinuity: DiscontinuityRecord?
    /// A live stream whose clock jumped before this frame: the seconds without packets before the
    /// jump (the wall clock's view of the gap, which the stream's own clock cannot give).
    public internal(set) var arrivalGap: Double?
    /// Live sources: when the frame was read from the source, for the latency of its record.
    public package(set) var arrival: ContinuousClock.Instant?
    /// The displayed size of this frame (rotation applied).
    public var displaySize: FrameSize { rotation.displaySize }

    private var decoded: UnsafeMutablePointer<AVFrame>?
    /// A GRAY8 copy, only for pixel formats whose first plane is not 8-bit luma.
    private var gray: UnsafeMutablePointer<AVFrame>?

    package init(index: Int, position: Int? = nil, pts: Int64, seconds: Double, rotation: Rotation,
                 decoded: UnsafeMutablePointer<AVFrame>, gray: UnsafeMutablePointer<AVFrame>?) {
        self.index = index
        self.position = position ?? index
        self.pts = pts
        self.seconds = seconds
        self.rotation = rotation
        self.decoded = decoded
        self.gray = gray
    }

    /// The same picture (shared, not copied) at another place on the timeline: a live source
    /// that reopened its stream puts the new connection's frames after the old one's.
    package func retimed(index: Int, pts: Int64, seconds: Double) throws -> VideoFrame {
        guard let decoded, let clone = av_frame_clone(decoded) else { throw SightlineError.internal("out of memory cloning a frame") }
        let frame = VideoFrame(index: index, position: index, pts: pts, seconds: seconds, rotation: rotation, decoded: clone,
                               gray: gray.flatMap { av_frame_clone($0) })
        frame.discontinuity = discontinuity
        return frame
    }

    deinit {
        av_frame_free(&decoded)
        av_frame_free(&gray)
    }

    /// A writable YUV 4:2:0 copy of the coded picture to draw on (the decoder's frame is shared
    /// and never changed). The caller owns the result (`av_frame_free`).
    package func drawableCopy(scaler: FrameScaler, reusing spare: UnsafeMutablePointer<AVFrame>? = nil) throws -> UnsafeMutablePointer<AVFrame> {
        guard let decoded else {
            var spare = spare
            av_frame_free(&spare)
            throw SightlineError.internal("frame without a picture")
        }
        let out = try scaler.converted(decoded, to: AV_PIX_FMT_YUV420P, reusing: spare)
        out.pointee.pts = pts
        out.pointee.color_range = decoded.pointee.color_range
        return out
    }

    /// The luma plane of the coded (unrotated) picture, without copying.
    public var luma: GrayImage {
        let f = (gray ?? decoded)!.pointee
        return GrayImage(image: slv_gray_image(data: f.data.0, width: f.width, height: f.height, stride: f.linesize.0))
    }

    /// The picture as YUV planes, without copying: the luma plane and, for 8-bit planar and
    /// semi-planar (NV12/NV21/NV16) YUV, the chroma planes; other formats give luma only. The DNN
    /// face detectors build their small colour image from these.
    /// The planes of a rectangle of the coded picture (clipped to it; its corner moved to even
    /// pixels so the chroma samples line up), without copying, and the rectangle taken; nil if empty.
    package func yuv(cropping r: Box) -> (image: slv_yuv_image, rect: Box)? {
        var out = yuv
        let x0 = max(0, Int(r.x.rounded(.down)) & ~1), y0 = max(0, Int(r.y.rounded(.down)) & ~1)
        let x1 = min(Int(out.luma.width), Int((r.x + r.w).rounded(.up))), y1 = min(Int(out.luma.height), Int((r.y + r.h).rounded(.up)))
        guard x1 > x0, y1 > y0, let luma = out.luma.data else { return nil }
        if out.cb != nil, out.cr != nil, out.chroma_width > 0, out.chroma_height > 0 {
            // Subsampling from the plane sizes: 2 for 4:2:0 (both axes), 1 for full chroma.
            let sx = (Int(out.luma.width) + Int(out.chroma_width) - 1) / Int(out.chroma_width)
            let sy = (Int(out.luma.height) + Int(out.chroma_height) - 1) / Int(out.chroma_height)
            let offset = (y0 / sy) * Int(out.chroma_stride) + (x0 / sx) * Int(out.chroma_step)
            out.cb = out.cb.map { $0 + offset }
            out.cr = out.cr.map { $0 + offset }
            out.chroma_width = Int32((x1 - x0 + sx - 1) / sx)
            out.chroma_height = Int32((y1 - y0 + sy - 1) / sy)
        }
        out.luma.data = luma + y0 * Int(out.luma.stride) + x0
        out.luma.width = Int32(x1 - x0)
        out.luma.height = Int32(y1 - y0)
        return (out, Box(x: Double(x0), y: Double(y0), w: Double(x1 - x0), h: Double(y1 - y0)))
    }

    package var yuv: slv_yuv_image {
        var out = slv_yuv_image()
        out.luma = luma.image
        guard gray == nil, let f = decoded?.pointee, let desc = av_pix_fmt_desc_get(AVPixelFormat(f.format)) else { return out }
        let format = f.format
        if Self.planarYUV.contains(format) {
            out.cb = UnsafePointer(f.data.1)
            out.cr = UnsafePointer(f.data.2)
            out.chroma_step = 1
        } else if format == AV_PIX_FMT_NV12.rawValue || format == AV_PIX_FMT_NV16.rawValue {
            out.cb = UnsafePointer(f.data.1)
            out.cr = f.data.1.map { UnsafePointer($0 + 1) }
            out.chroma_step = 2
        } else if format == AV_PIX_FMT_NV21.rawValue {
            out.cr = UnsafePointer(f.data.1)
            out.cb = f.data.1.map { UnsafePointer($0 + 1) }
            out.chroma_step = 2
        } else {
            return out
        }
        guard out.cb != nil, out.cr != nil else { return slv_yuv_image(luma: out.luma, cb: nil, cr: nil, chroma_width: 0, chroma_height: 0,
                                                                        chroma_stride: 0, chroma_step: 0, matrix: 0, full_range: 0) }
        let shiftW = Int32(desc.pointee.log2_chroma_w), shiftH = Int32(desc.pointee.log2_chroma_h)
        out.chroma_width = (f.width + (1 << shiftW) - 1) >> shiftW
        out.chroma_height = (f.height + (1 << shiftH) - 1) >> shiftH
        out.chroma_stride = f.linesize.1
        // Unspecified matrix: BT.709 for HD sizes, BT.601 for SD, as players guess.
        switch f.colorspace {
        case AVCOL_SPC_BT709: out.matrix = 709
        case AVCOL_SPC_UNSPECIFIED: out.matrix = f.height > 576 ? 709 : 601
        default: out.matrix = 601
        }
        out.full_range = (f.color_range == AVCOL_RANGE_JPEG || Self.jpegRange.contains(format)) ? 1 : 0
        return out
    }

    private static let planarYUV: Set<Int32> = Set([
        AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P,
        AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUV440P, AV_PIX_FMT_YUVJ440P,
        AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUVA420P,
    ].map { $0.rawValue })
    /// Pixel formats whose first plane is 8-bit luma, read in place (the others get a GRAY8 copy).
    package static let lumaFormats = planarYUV.union([AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_NV16, AV_PIX_FMT_GRAY8].map(\.rawValue))
    private static let jpegRange: Set<Int32> = Set([
        AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P,
    ].map { $0.rawValue })
}
