/// What kind of object a track follows.
public enum TrackKind: String, Sendable {
    case face, code
}

/// The `track` record: one object's life on the timeline, written when the track ends.
public struct TrackRecord: Sendable, Equatable {
    public var id: Int
    public var kind: TrackKind
    /// Faces: the person the track was linked to (`--identities on`).
    public var identity: Int?
    public var firstFrame: Int
    public var lastFrame: Int
    public var firstT: Double
    public var lastT: Double
    /// Frames with a detected or refined observation.
    public var framesObserved = 0
    /// Frames where the box was predicted from the track's motion.
    public var framesInterpolated = 0
    /// Mean score of the observed frames (faces).
    public var meanScore: Double?
    /// Codes: what the track reads.
    public var symbology: Symbology?
    public var text: String?
    public var bytes: [UInt8]?
    /// Codes: whether the payload was confirmed by repeated reads (`CodeConfirmation`).
    public var state: CodeTrackState?
    /// The best observation: highest score for faces, largest area for codes.
    public var bestBox: Box
    public var bestFrame: Int

    public var duration: Double { lastT - firstT }

    package init(id: Int, kind: TrackKind, identity: Int? = nil, firstFrame: Int, lastFrame: Int, firstT: Double, lastT: Double,
                 framesObserved: Int = 0, framesInterpolated: Int = 0, meanScore: Double? = nil, symbology: Symbology? = nil,
                 text: String? = nil, bytes: [UInt8]? = nil, state: CodeTrackState? = nil, bestBox: Box, bestFrame: Int) {
        self.id = id
        self.kind = kind
        self.identity = identity
        self.firstFrame = firstFrame
        self.lastFrame = lastFrame
        self.firstT = firstT
        self.lastT = lastT
        self.framesObserved = framesObserved
        self.framesInterpolated = framesInterpolated
        self.meanScore = meanScore
        self.symbology = symbology
        self.text = text
        self.bytes = bytes
        self.state = state
        self.bestBox = bestBox
        self.bestFrame = bestFrame
    }
}

/// Whether a code track's payload is trusted yet.
public enum CodeTrackState: String, Sendable {
    /// The same bytes were read often enough (see `CodeConfirmation`).
    case confirmed
    /// Not yet, or never: possibly a misread (1D readers in noise, a code glimpsed once).
    case unconfirmed
}
