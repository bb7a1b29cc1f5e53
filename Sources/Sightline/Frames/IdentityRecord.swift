// What identity records carry: a person (`IdentityRecord`), the embedded faces a shard run
// writes for `merge` (`IdentitySample`), and the embedding itself.

/// The `identity` record: one person, as the face tracks linked by their embeddings. Written at
/// the end of the run, after the track records.
public struct IdentityRecord: Sendable {
    public var id: Int
    /// Face track ids, in order.
    public var tracks: [Int]
    public var firstFrame: Int
    public var lastFrame: Int
    public var firstT: Double
    public var lastT: Double
    /// Frames in which one of the tracks is (tracks of one person never share a frame).
    public var frames: Int
    /// Seconds on screen: those frames' durations added up.
    public var seconds: Double
    /// The face with the highest detection score among the embedded ones.
    public var bestFrame: Int
    public var bestBox: Box
    /// The mean embedding, only when asked for.
    public var embedding: FaceEmbedding?

    public init(id: Int, tracks: [Int], firstFrame: Int, lastFrame: Int, firstT: Double, lastT: Double, frames: Int,
                seconds: Double, bestFrame: Int, bestBox: Box, embedding: FaceEmbedding? = nil) {
        (self.id, self.tracks, self.firstFrame, self.lastFrame) = (id, tracks, firstFrame, lastFrame)
        (self.firstT, self.lastT, self.frames, self.seconds) = (firstT, lastT, frames, seconds)
        (self.bestFrame, self.bestBox, self.embedding) = (bestFrame, bestBox, embedding)
    }
}

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
}

/// A face's 128-number SFace embedding, L2-normalized: two faces of one person have a cosine
/// similarity of 0.363 or more (OpenCV's threshold for SFace).
public struct FaceEmbedding: Sendable, Equatable {
    public private(set) var values: [Float]

    /// `values` scaled to unit length (nil when they are all zero).
    public init?(_ values: [Float]) {
        let norm = values.reduce(0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard norm > 0 else { return nil }
        self.values = values.map { Float(Double($0) / norm) }
    }

    /// Values of unit length kept exactly as they are (an embedding read back from a record).
    public init(normalized values: [Float]) { self.values = values }

    public func cosine(_ other: FaceEmbedding) -> Double {
        zip(values, other.values).reduce(0) { $0 + Double($1.0) * Double($1.1) }
    }

    /// The normalized mean of several embeddings (a track's or a person's).
    public static func mean(_ embeddings: [FaceEmbedding]) -> FaceEmbedding? {
        guard let first = embeddings.first else { return nil }
        var sum = [Float](repeating: 0, count: first.values.count)
        for e in embeddings { for i in sum.indices { sum[i] += e.values[i] } }
        return FaceEmbedding(sum)
    }
}
