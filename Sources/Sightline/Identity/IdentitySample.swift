/// One embedded face of a track: what linking uses, and what a shard run writes (`sample`
/// records) so that `merge` links the shards' tracks as the whole run does.
public struct IdentitySample: Sendable, Equatable {
    public var track: Int
    /// The frame's index (its position in the stream).
    public var frame: Int
    /// The face's detection score, unrounded (samples are ranked by it).
    public var score: Double
    public var box: Box
    public var embedding: FaceEmbedding

    public init(track: Int, frame: Int, score: Double, box: Box, embedding: FaceEmbedding) {
        self.track = track
        self.frame = frame
        self.score = score
        self.box = box
        self.embedding = embedding
    }

    /// Higher scores first, the earlier frame first among equals.
    static func ranked(_ a: IdentitySample, _ b: IdentitySample) -> Bool {
        a.score != b.score ? a.score > b.score : a.frame < b.frame
    }
}

/// Which faces are embedded, decided by stream position alone: a track's faces on frames whose
/// index is a multiple of `spacing`, within `window` frames of the track's first face that can
/// be embedded. A shard therefore embeds the faces the whole run embeds on the frames it owns
/// (its warm-up sees where the track began), and `merge` finds the same faces due again on the
/// merged frames.
public struct SampleSchedule {
    public let spacing: Int
    public let window: Int
    public let minFace: Double
    /// Each track's first face that could be embedded: its frame.
    private var firstEmbeddable: [Int: Int] = [:]

    public init(options: IdentityOptions) {
        spacing = max(1, options.spacing)
        window = options.window
        minFace = options.minFace
    }

    /// Whether a face can be embedded: tracked, found by the full-frame detector with its five
    /// landmarks (faces are aligned by them), and large enough to link reliably.
    public func embeddable(_ face: FaceObservation) -> Bool {
        face.track != nil && face.source == .detected && face.landmarks != nil && min(face.box.w, face.box.h) >= minFace
    }

    /// The positions in `record.faces` of the faces to embed on this frame. Call once per frame,
    /// in frame order.
    public mutating func due(_ record: FrameRecord) -> [Int] {
        record.faces.indices.filter { i in
            let face = record.faces[i]
            guard embeddable(face), let track = face.track else { return false }
            let first = firstEmbeddable[track] ?? record.index
            firstEmbeddable[track] = first
            return record.index % spacing == 0 && record.index - first < window
        }
    }
}
