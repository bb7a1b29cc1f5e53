import SightlineFrames

extension IdentitySample {
    /// The sample as linking takes it.
    package var link: LinkSample { LinkSample(track: track, frame: frame, score: score, box: box, face: .embedded(embedding)) }
}

/// A sampled face as linking takes it: embedded, or aligned and embedded only when a link compares
/// it. A run keeps its faces aligned (`IdentityLinker`); `merge` has every embedding from its shards.
public struct LinkSample: Sendable {
    public enum Face: Sendable {
        case embedded(FaceEmbedding)
        case aligned(AlignedFace)
        /// SFace could not embed it: kept for its frame and box, left out of the means.
        case failed
    }
    public var track: Int
    public var frame: Int
    public var score: Double
    public var box: Box
    public var face: Face

    package init(track: Int, frame: Int, score: Double, box: Box, face: Face) {
        (self.track, self.frame, self.score, self.box, self.face) = (track, frame, score, box, face)
    }

    package var embedding: FaceEmbedding? {
        if case .embedded(let embedding) = face { return embedding }
        return nil
    }

    package var aligned: AlignedFace? {
        if case .aligned(let face) = face { return face }
        return nil
    }

    /// Higher scores first, the earlier frame first among equals.
    package static func ranked(_ a: LinkSample, _ b: LinkSample) -> Bool {
        a.score != b.score ? a.score > b.score : a.frame < b.frame
    }
}

/// Which faces are sampled for linking: a track's faces on frames whose index is a multiple of
/// `spacing`, within `window` frames of the track's first face that can be embedded, the first
/// `tries` of them. The candidates depend on stream position alone; the count depends on where the track
/// began, which a shard cannot always see, so a shard run embeds every candidate
/// (`everyCandidate`): it then holds each face the whole run embeds on the frames it owns (its
/// warm-up sees where the track began), and `merge`, which sees the whole track, picks the
/// whole run's faces from them.
public struct SampleSchedule {
    public let spacing: Int
    public let window: Int
    public let tries: Int
    public let minFace: Double
    private let everyCandidate: Bool
    /// Each track's first face that could be embedded: its frame.
    private var firstEmbeddable: [Int: Int] = [:]
    /// Faces of each track sampled so far.
    private var taken: [Int: Int] = [:]

    public init(options: IdentityOptions, everyCandidate: Bool = false) {
        spacing = max(1, options.spacing)
        window = options.window
        tries = options.tries
        minFace = options.minFace
        self.everyCandidate = everyCandidate
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
            guard record.index % spacing == 0 && record.index - first < window else { return false }
            if everyCandidate { return true }
            guard taken[track, default: 0] < tries else { return false }
            taken[track, default: 0] += 1
            return true
        }
    }
}

/// A face aligned for SFace by its five landmarks: 112×112, planar R, G, B bytes. Small (37 KB),
/// so a run can keep a face and embed it only when a link needs it (`IdentityClustering`).
public struct AlignedFace: Sendable {
    package let pixels: [UInt8]

    package init(pixels: [UInt8]) { self.pixels = pixels }
}
