import CFFmpeg
import CVision
import SightlineFrames

/// Frames drawn in memory instead of decoded: a scene whose every box is known, run through
/// `Run` in-process (what swift-nio's EmbeddedChannel is to a channel's handlers), or pictures
/// another library made. `draw` paints frame `index`'s luma plane; chroma stays neutral (gray).
/// Frame `index` has pts `index` in a time base of 1/`frameRate`.
public final class MemoryFrameSource: FrameSource {
    public let info: VideoStreamInfo
    public let damage = DecodeDamage()
    private let frames: Int
    private let draw: (_ index: Int, _ canvas: inout GrayCanvas) -> Void
    private var next = 0

    public init(width: Int, height: Int, frames: Int, frameRate: Int = 30, name: String = "memory",
                draw: @escaping (_ index: Int, _ canvas: inout GrayCanvas) -> Void) {
        info = VideoStreamInfo(source: name, container: "memory", codec: "rawvideo", streamIndex: 0,
                               codedWidth: width, codedHeight: height, rotation: 0, timeBase: (1, frameRate),
                               frameRate: (frameRate, 1), duration: Double(frames) / Double(frameRate),
                               frameCountHint: frames)
        self.frames = frames
        self.draw = draw
    }

    public func nextFrame() throws -> VideoFrame? {
        guard next < frames else { return nil }
        guard let picture = av_frame_alloc() else { throw SightlineError.internal("out of memory allocating a frame") }
        picture.pointee.width = Int32(info.codedWidth)
        picture.pointee.height = Int32(info.codedHeight)
        picture.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        picture.pointee.color_range = AVCOL_RANGE_MPEG
        guard av_frame_get_buffer(picture, 0) >= 0 else {
            var owned: UnsafeMutablePointer<AVFrame>? = picture
            av_frame_free(&owned)
            throw SightlineError.internal("out of memory allocating a frame")
        }
        let p = picture.pointee
        let chromaRows = (info.codedHeight + 1) / 2
        p.data.1?.update(repeating: 128, count: chromaRows * Int(p.linesize.1))
        p.data.2?.update(repeating: 128, count: chromaRows * Int(p.linesize.2))
        var canvas = GrayCanvas(pixels: p.data.0!, width: info.codedWidth, height: info.codedHeight, stride: Int(p.linesize.0))
        draw(next, &canvas)
        picture.pointee.pts = Int64(next)
        defer { next += 1 }
        return VideoFrame(index: next, pts: Int64(next), seconds: Double(next) / Double(info.frameRate.num),
                          rotation: Rotation(degrees: 0, codedWidth: info.codedWidth, codedHeight: info.codedHeight),
                          decoded: picture, gray: nil)
    }
}

extension VideoFrame {
    /// A black frame of this size (frame 0): what a network's first inference runs on, before a
    /// live source's first frame.
    package static func blank(width: Int, height: Int) -> VideoFrame? {
        try? MemoryFrameSource(width: width, height: height, frames: 1, draw: { _, _ in }).nextFrame()
    }
}

/// An 8-bit gray picture being drawn (a `MemoryFrameSource` frame's luma plane). Writes outside
/// it are clipped.
public struct GrayCanvas {
    public let width: Int
    public let height: Int
    private let pixels: UnsafeMutablePointer<UInt8>
    private let stride: Int

    package init(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        self.pixels = pixels
        self.width = width
        self.height = height
        self.stride = stride
    }

    /// Paints the rectangle (clipped to the picture) with `value`.
    public func fill(x: Int = 0, y: Int = 0, width w: Int? = nil, height h: Int? = nil, value: UInt8) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + (w ?? width)), y1 = min(height, y + (h ?? height))
        guard x1 > x0 else { return }
        for row in y0..<max(y0, y1) { (pixels + row * stride + x0).update(repeating: value, count: x1 - x0) }
    }

    /// Draws a gray picture (`rows` of equal length) with its top left corner at (`x`, `y`),
    /// each of its pixels `scale` × `scale` pixels here.
    public func draw(_ rows: [[UInt8]], x: Int, y: Int, scale: Int = 1) {
        for (r, row) in rows.enumerated() {
            for (c, value) in row.enumerated() {
                fill(x: x + c * scale, y: y + r * scale, width: scale, height: scale, value: value)
            }
        }
    }
}
