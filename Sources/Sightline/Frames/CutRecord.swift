/// A shot boundary: the frame that starts a new shot (every track ends before it), and how much
/// its content changed from the frame before.
public struct CutRecord: Sendable, Equatable {
    /// Position in the stream of the first frame of the new shot.
    public var index: Int
    public var pts: Int64
    /// Seconds on the file's presentation timeline, as the frame record's `t`.
    public var t: Double
    /// Mean absolute change of hue, saturation and value from the previous frame (0–255 scale).
    public var score: Double

    public init(index: Int, pts: Int64, t: Double, score: Double) {
        self.index = index
        self.pts = pts
        self.t = t
        self.score = score
    }
}
