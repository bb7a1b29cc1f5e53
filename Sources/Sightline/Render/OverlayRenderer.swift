import CFFmpeg
import CVision
import Foundation

/// How observations are drawn.
public enum OverlayStyle: String, CaseIterable, Sendable {
    /// Boxes with track-id labels (faces) and outlines with the payload (codes).
    case boxes
    /// Faces (and codes with `anonymizeCodes`) blurred beyond recognition.
    case blur
    /// Faces (and codes with `anonymizeCodes`) turned into large blocks.
    case pixelate
}

/// Draws a frame's observations into a copy of its picture and hands it to an MP4 writer.
/// Drawing happens in the coded picture's orientation: geometry is mapped back from the
/// displayed frame, and the writer keeps the display rotation.
public final class OverlayRenderer {
    /// YUV (BT.601, video range) colours.
    static let faceColor: [UInt8] = [145, 54, 34]      // green
    static let codeColor: [UInt8] = [152, 50, 189]     // orange
    static let labelText: [UInt8] = [235, 128, 128]    // white
    static let labelBackground: [UInt8] = [16, 128, 128]

    private let style: OverlayStyle
    private let anonymizeCodes: Bool
    private let writer: MP4Writer
    /// Where audio packets to copy come from (nil: no audio).
    private let audioSource: VideoFileSource?
    private var scaler: OpaquePointer?

    public init(style: OverlayStyle, anonymizeCodes: Bool = false, writer: MP4Writer, audioFrom source: VideoFileSource? = nil) {
        self.style = style
        self.anonymizeCodes = anonymizeCodes
        self.writer = writer
        audioSource = writer.hasAudio ? source : nil
    }

    deinit { sws_freeContext(scaler) }

    public func render(_ record: FrameRecord, on frame: VideoFrame) throws {
        var picture: UnsafeMutablePointer<AVFrame>? = try frame.drawableCopy(scaler: &scaler)
        defer { av_frame_free(&picture) }
        let p = picture!.pointee
        let yuv = slv_yuv420(y: p.data.0, u: p.data.1, v: p.data.2, y_stride: p.linesize.0, u_stride: p.linesize.1,
                             v_stride: p.linesize.2, width: p.width, height: p.height)
        let rotation = frame.rotation
        // A displayed-frame box in coded-picture pixels.
        func coded(_ box: Box) -> (x: Int32, y: Int32, w: Int32, h: Int32) {
            let corners = [Point(x: box.x, y: box.y), Point(x: box.x + box.w, y: box.y + box.h)].map(rotation.coded)
            let b = Box(bounding: corners)
            return (Int32(b.x.rounded()), Int32(b.y.rounded()), Int32(b.w.rounded()), Int32(b.h.rounded()))
        }
        func hide(_ box: Box) {
            let r = coded(box)
            if style == .blur { slv_blur_rect(yuv, r.x, r.y, r.w, r.h) } else { slv_pixelate_rect(yuv, r.x, r.y, r.w, r.h, max(8, r.w / 8)) }
        }
        let thickness = Int32(max(2, Int(p.width) / 400))
        let textScale = max(0.5, Double(p.width) / 1600)
        for face in record.faces {
            if style == .boxes {
                let r = coded(face.box)
                slv_draw_rect(yuv, r.x, r.y, r.w, r.h, Self.faceColor, thickness)
                let label = face.track.map { "face \($0)" } ?? "face"
                slv_draw_label(yuv, label, r.x, max(Int32(24 * textScale), r.y - Int32(10 * textScale) - thickness), textScale,
                               Self.labelText, Self.labelBackground)
            } else {
                hide(face.box)
            }
        }
        for code in record.codes {
            if style != .boxes && anonymizeCodes {
                hide(code.box)
                continue
            }
            let points = code.polygon.map(rotation.coded).flatMap { [Int32($0.x.rounded()), Int32($0.y.rounded())] }
            slv_draw_polygon(yuv, points, Int32(code.polygon.count), Self.codeColor, thickness)
            let r = coded(code.box)
            let text = (code.track.map { "\($0) " } ?? "") + Self.shorten(code.text)
            slv_draw_label(yuv, text, r.x, r.y + r.h + Int32(22 * textScale), textScale, Self.labelText, Self.labelBackground)
        }
        if let audioSource { try writer.writeAudio(audioSource.takeAudioPackets()) }
        try writer.write(picture!)
    }

    public func finish() throws {
        if let audioSource { try writer.writeAudio(audioSource.takeAudioPackets()) }
        try writer.finish()
    }

    /// Payloads on one line of at most 32 characters.
    static func shorten(_ text: String) -> String {
        let flat = text.map { $0.isNewline ? " " : $0 }.filter { $0.isASCII }
        return flat.count > 32 ? String(flat.prefix(31)) + "~" : String(flat)
    }
}
