import SightlineFrames

/// Which key frames a key-frame-only read decodes (`sightline scan`): every other packet is read
/// but never decoded, which is what makes such a read several times cheaper than decoding.
public struct KeyFrameSampling: Sendable, Equatable {
    /// With a value: the first key frame at or after each multiple of this many seconds on the
    /// file's timeline (one per interval at most; none for an interval without a key frame).
    public var every: Double?
    /// Without `every`: every key frame at least this many seconds after the last one taken, so
    /// an all-intra file (every frame a key frame) is still sampled sparsely.
    public var minimumSpacing: Double

    public static let defaultMinimumSpacing = 1.0

    public init(every: Double? = nil, minimumSpacing: Double = KeyFrameSampling.defaultMinimumSpacing) {
        self.every = every
        self.minimumSpacing = minimumSpacing
    }

    /// Decides, key frame by key frame in decoding order, which to take.
    package struct Chooser {
        package let sampling: KeyFrameSampling
        private var lastTaken: Double?
        private var nextDue = 0.0

        package init(_ sampling: KeyFrameSampling) { self.sampling = sampling }

        /// Whether the key frame at `t` seconds is taken.
        package mutating func take(_ t: Double) -> Bool {
            if let every = sampling.every {
                guard t >= nextDue - 1e-9 else { return false }
                nextDue = ((t + 1e-9) / every).rounded(.down) * every + every
                return true
            }
            if let lastTaken, t < lastTaken + sampling.minimumSpacing - 1e-9 { return false }
            lastTaken = t
            return true
        }
    }
}
