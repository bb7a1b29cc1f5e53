import SightlineFrames

/// Shot-cut detection settings (PySceneDetect's ContentDetector defaults).
public struct CutOptions: Sendable, Equatable {
    /// A frame whose content score is at least this starts a new shot.
    public var threshold: Double
    /// Frames a shot lasts at least: a frame closer than this to the previous frame over the
    /// threshold (or to the stream's first frame) starts none.
    public var minShot: Int

    public init(threshold: Double = 27, minShot: Int = 15) {
        self.threshold = threshold
        self.minShot = minShot
    }
}
