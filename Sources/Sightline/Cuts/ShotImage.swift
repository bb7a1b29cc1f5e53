import CVision
import SightlineFrames
import SightlineMedia

/// A frame as shot-cut detection compares it: scaled so its longer side is 256 pixels (smaller
/// frames are kept as they are) and converted to HSV with OpenCV's ranges (hue 0–179), as
/// PySceneDetect 0.7.2 scales frames (`compute_downscale_factor`, bilinear) for ContentDetector.
/// Made on the analysis workers; compared in frame order.
public struct ShotImage: Sendable {
    public let width: Int
    public let height: Int
    /// Interleaved H, S, V bytes, row by row.
    public let hsv: [UInt8]

    /// The longer side PySceneDetect scales frames down to.
    package static let minimumWidth = 256

    /// The scaled size of a `width` × `height` frame: factor = longer side / 256 when the longer
    /// side is at least 256, each side divided by it and rounded half to even (Python's `round`).
    public static func size(width: Int, height: Int) -> (width: Int, height: Int) {
        let longer = max(width, height)
        guard longer > minimumWidth else { return (width, height) }
        let factor = Double(longer) / Double(minimumWidth)
        func scaled(_ side: Int) -> Int { max(1, Int((Double(side) / factor).rounded(.toNearestOrEven))) }
        return (scaled(width), scaled(height))
    }

    /// Rotation only reorders pixels, which the mean change ignores: the coded picture is used.
    package init(_ frame: VideoFrame) throws {
        var yuv = frame.yuv
        let size = Self.size(width: Int(yuv.luma.width), height: Int(yuv.luma.height))
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
        var error = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeMutableBufferPointer { out in
            slv_shot_hsv(&yuv, Int32(size.width), Int32(size.height), out.baseAddress, &error, error.count)
        }
        guard status == 0 else {
            throw SightlineError.internal("shot image of frame \(frame.position): \(error.cString)")
        }
        width = size.width
        height = size.height
        hsv = pixels
    }

    /// PySceneDetect's `content_val`: the mean absolute difference of each channel over all
    /// pixels, averaged over H, S and V. Integer sums, so the result does not depend on order.
    public func score(from previous: ShotImage) -> Double {
        guard previous.width == width, previous.height == height else { return 0 }
        var sums = (0, 0, 0)
        hsv.withUnsafeBufferPointer { a in
            previous.hsv.withUnsafeBufferPointer { b in
                var i = 0
                while i < a.count {
                    sums.0 += abs(Int(a[i]) - Int(b[i]))
                    sums.1 += abs(Int(a[i + 1]) - Int(b[i + 1]))
                    sums.2 += abs(Int(a[i + 2]) - Int(b[i + 2]))
                    i += 3
                }
            }
        }
        let pixels = Double(width * height)
        return (Double(sums.0) / pixels + Double(sums.1) / pixels + Double(sums.2) / pixels) / 3
    }
}
