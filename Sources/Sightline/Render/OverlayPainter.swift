import CVision
import Foundation
import SightlineFrames
import SightlineMedia

/// Draws one frame's observations into its picture, the same way for videos and stills. Drawing
/// happens in the coded picture's orientation (geometry is mapped back from the displayed frame);
/// text and mask images are turned so that they are upright as displayed.
public final class OverlayPainter {
    /// YUV (BT.601, video range) colours.
    static let faceColor: [UInt8] = [145, 54, 34]      // green
    static let codeColor: [UInt8] = [152, 50, 189]     // orange
    static let landmarkColor: [UInt8] = [81, 90, 240]  // red
    static let labelText: [UInt8] = [235, 128, 128]    // white
    static let labelBackground: [UInt8] = [16, 128, 128]

    public let style: OverlayStyle
    public let anonymizeCodes: Bool
    public let timestamp: Bool
    private let mask: MaskImage?

    /// With `.mask(path)`, the image is loaded here: a missing file or one that is not an image is
    /// an error before anything is drawn or written.
    public init(style: OverlayStyle, anonymizeCodes: Bool = false, timestamp: Bool = false) throws {
        self.style = style
        self.anonymizeCodes = anonymizeCodes
        self.timestamp = timestamp
        mask = try style.maskPath.map { try MaskImage(path: $0) }
    }

    /// The frame with its observations drawn, upright as displayed (`snapshot`).
    public func still(_ record: FrameRecord, on frame: VideoFrame) throws -> RGBImage {
        let picture = try Picture(copying: frame, scaler: FrameScaler())
        draw(record, on: picture)
        return try picture.rgb(converter: FrameScaler())
    }

    func draw(_ record: FrameRecord, on picture: Picture) {
        let yuv = picture.planes
        let rotation = picture.rotation
        let degrees = Int32(rotation.degrees)
        let thickness = Int32(max(2, picture.displayWidth / 400))
        let textScale = max(0.5, Double(picture.displayWidth) / 1600)
        // A displayed-frame box in coded-picture pixels.
        func coded(_ box: Box) -> (x: Int32, y: Int32, w: Int32, h: Int32) {
            let b = rotation.coded(box)
            return (Int32(b.x.rounded()), Int32(b.y.rounded()), Int32(b.w.rounded()), Int32(b.h.rounded()))
        }
        func hide(_ box: Box) {
            switch style {
            case .mask:
                guard let mask else { return }
                mask.withYUVA(matrix: picture.matrix, fullRange: picture.fullRange) { image in
                    var image = image
                    slv_draw_image(yuv, &image, Int32(box.x.rounded()), Int32(box.y.rounded()), Int32(box.w.rounded()),
                                   Int32(box.h.rounded()), degrees)
                }
            case .blur:
                let r = coded(box)
                slv_blur_rect(yuv, r.x, r.y, r.w, r.h)
            default:
                let r = coded(box)
                slv_pixelate_rect(yuv, r.x, r.y, r.w, r.h, max(8, r.w / 8))
            }
        }
        // Text whose background box starts at displayed (x, y), kept inside the frame.
        func label(_ text: String, x: Double, y: Double) {
            let size = textBoxSize(text, scale: textScale)
            let lx = min(max(0, Int32(x.rounded())), Int32(picture.displayWidth) - size.width)
            let ly = min(max(0, Int32(y.rounded())), Int32(picture.displayHeight) - size.height)
            slv_draw_text(yuv, text, max(0, lx), max(0, ly), textScale, Self.labelText, Self.labelBackground, degrees)
        }
        func dots(_ points: [Point]) {
            guard !points.isEmpty else { return }
            let xy = points.map(rotation.coded).flatMap { [Int32($0.x.rounded()), Int32($0.y.rounded())] }
            slv_draw_dots(yuv, xy, Int32(points.count), thickness, Self.landmarkColor)
        }

        for face in record.faces {
            guard !style.hidesFaces else {
                hide(face.box)
                continue
            }
            let r = coded(face.box)
            slv_draw_rect(yuv, r.x, r.y, r.w, r.h, Self.faceColor, thickness)
            let text = face.track.map { "face \($0)" } ?? "face"
            let height = Double(textBoxSize(text, scale: textScale).height)
            label(text, x: face.box.x, y: face.box.y - height - Double(thickness))
            var points: [Point] = []
            if let l = face.landmarks { points += [l.leftEye, l.rightEye, l.nose, l.mouthLeft, l.mouthRight] }
            if let a = face.attributes { points += [a.leftEye, a.rightEye, a.mouth].compactMap { $0 } }
            dots(points)
        }
        for code in record.codes {
            if style.hidesFaces && anonymizeCodes {
                hide(code.box)
                continue
            }
            let points = code.polygon.map(rotation.coded).flatMap { [Int32($0.x.rounded()), Int32($0.y.rounded())] }
            slv_draw_polygon(yuv, points, Int32(code.polygon.count), Self.codeColor, thickness)
            let text = (code.track.map { "\($0) " } ?? "") + Self.shorten(code.text)
            let box = code.box
            label(text, x: box.x, y: box.y + box.h + Double(thickness) + 2)
        }
        if timestamp {
            let text = Self.clock(record.t)
            let size = textBoxSize(text, scale: textScale)
            let margin = Int32(max(4, picture.displayWidth / 160))
            slv_draw_text(yuv, text, Int32(picture.displayWidth) - size.width - margin,
                          Int32(picture.displayHeight) - size.height - margin, textScale, Self.labelText, Self.labelBackground, degrees)
        }
    }

    private func textBoxSize(_ text: String, scale: Double) -> (width: Int32, height: Int32) {
        var w: Int32 = 0, h: Int32 = 0
        slv_text_box_size(text, scale, &w, &h)
        return (w, h)
    }

    /// Payloads on one line of at most 32 characters.
    static func shorten(_ text: String) -> String {
        let flat = text.map { $0.isNewline ? " " : $0 }.filter { $0.isASCII }
        return flat.count > 32 ? String(flat.prefix(31)) + "~" : String(flat)
    }

    /// Seconds as hours:minutes:seconds.milliseconds, the way players show time.
    static func clock(_ t: Double) -> String {
        let ms = Int((max(0, t) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
