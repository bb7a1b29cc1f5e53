/// A point in pixels of the displayed frame: origin top-left, y down.
public struct Point: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    public func distance(to other: Point) -> Double { ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot() }
}

/// An axis-aligned box in pixels of the displayed frame.
public struct Box: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var w: Double
    public var h: Double

    public init(x: Double, y: Double, w: Double, h: Double) {
        self.x = x; self.y = y; self.w = w; self.h = h
    }

    /// The smallest box holding every point.
    public init(bounding points: [Point]) {
        let xs = points.map(\.x), ys = points.map(\.y)
        let minX = xs.min() ?? 0, minY = ys.min() ?? 0
        self.init(x: minX, y: minY, w: (xs.max() ?? 0) - minX, h: (ys.max() ?? 0) - minY)
    }

    public var area: Double { max(0, w) * max(0, h) }
    public var center: Point { Point(x: x + w / 2, y: y + h / 2) }

    public func contains(_ p: Point) -> Bool { p.x >= x && p.x <= x + w && p.y >= y && p.y <= y + h }

    /// Intersection over union, 0 when the boxes do not overlap.
    public func iou(_ other: Box) -> Double {
        let ix = max(0, min(x + w, other.x + other.w) - max(x, other.x))
        let iy = max(0, min(y + h, other.y + other.h) - max(y, other.y))
        let inter = ix * iy
        let union = area + other.area - inter
        return union > 0 ? inter / union : 0
    }
}

/// A picture size in pixels.
public struct FrameSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)" }
}

/// Display rotation of a video stream: how many degrees clockwise the coded picture is turned for
/// display. Maps coded-frame geometry into displayed-frame geometry.
public struct Rotation: Hashable, Sendable {
    public let degrees: Int   // 0, 90, 180 or 270
    /// Size of the coded (decoded, unrotated) picture.
    public let codedWidth: Double
    public let codedHeight: Double

    public init(degrees: Int, codedWidth: Int, codedHeight: Int) {
        self.degrees = ((degrees % 360) + 360) % 360
        self.codedWidth = Double(codedWidth)
        self.codedHeight = Double(codedHeight)
    }

    public var swapsAxes: Bool { degrees == 90 || degrees == 270 }

    /// The displayed frame's size (the coded picture's, turned).
    public var displaySize: FrameSize {
        let (w, h) = (Int(codedWidth), Int(codedHeight))
        return swapsAxes ? FrameSize(width: h, height: w) : FrameSize(width: w, height: h)
    }

    /// The coded-picture point shown at displayed-frame point `p` (inverse of `display`).
    public func coded(_ p: Point) -> Point {
        switch degrees {
        case 90: return Point(x: p.y, y: codedHeight - p.x)
        case 180: return Point(x: codedWidth - p.x, y: codedHeight - p.y)
        case 270: return Point(x: codedWidth - p.y, y: p.x)
        default: return p
        }
    }

    /// The coded-picture box shown at displayed-frame box `b`.
    public func coded(_ b: Box) -> Box {
        Box(bounding: [Point(x: b.x, y: b.y), Point(x: b.x + b.w, y: b.y + b.h)].map(coded))
    }

    public func display(_ p: Point) -> Point {
        switch degrees {
        case 90: return Point(x: codedHeight - p.y, y: p.x)
        case 180: return Point(x: codedWidth - p.x, y: codedHeight - p.y)
        case 270: return Point(x: p.y, y: codedWidth - p.x)
        default: return p
        }
    }

    /// The displayed-frame box showing coded-picture box `b` (inverse of `coded(_: Box)`).
    public func display(_ b: Box) -> Box {
        Box(bounding: [Point(x: b.x, y: b.y), Point(x: b.x + b.w, y: b.y + b.h)].map(display))
    }
}
