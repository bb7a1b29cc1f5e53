import SightlineFrames

/// A packed 8-bit RGB picture in display orientation: a still or a thumbnail.
public struct RGBImage: Sendable {
    public let width: Int
    public let height: Int
    /// Rows of `width` x 3 bytes, top to bottom.
    public internal(set) var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "RGB pixels must be width x height x 3 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}
