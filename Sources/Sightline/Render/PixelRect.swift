import SightlineFrames

/// A rectangle of whole pixels (displayed-frame pixels unless said otherwise).
public struct PixelRect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part inside a `width` x `height` frame; nil when nothing of it is.
    public func clipped(width frameWidth: Int, height frameHeight: Int) -> PixelRect? {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(frameWidth, x + width), y1 = min(frameHeight, y + height)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The same pixels in the coded picture that `rotation` turns for display.
    func coded(_ rotation: Rotation) -> PixelRect {
        let b = rotation.coded(Box(x: Double(x), y: Double(y), w: Double(width), h: Double(height)))
        return PixelRect(x: Int(b.x.rounded()), y: Int(b.y.rounded()), width: Int(b.w.rounded()), height: Int(b.h.rounded()))
    }
}
