import SightlineFrames
import SightlineRecords

/// Face identity settings: which model, when two tracks are one person, what is written.
public struct IdentityOptions: Sendable {
    /// Cosine similarity at which a track joins a person. Stricter than OpenCV's pairwise
    /// same-person threshold for SFace (0.363): on the dlib photos a mother and her daughter
    /// score 0.43–0.50 (OpenCV's own SFace pipeline: 0.46), and linking a whole video must not
    /// merge two people; crops of one person scored 0.91 or more there (docs/identities.md).
    public static let defaultThreshold = 0.55
    public var threshold = IdentityOptions.defaultThreshold
    /// Faces smaller than this (pixels, the box's shorter side) are not embedded: they do not link reliably.
    public var minFace = 40.0
    /// Embeddings a track keeps (its highest-scoring sampled faces).
    public var samples = 3
    /// A track's faces are sampled on frames whose index is a multiple of `spacing`, within
    /// `window` frames of its first face that can be embedded, at most `tries` of them (the first
    /// decides its person; a second makes the person's mean embedding steadier): by stream
    /// position, so shards sample the faces the whole run does (`SampleSchedule`). A sample is
    /// aligned at once (37 KB kept) and run through SFace (about 5 ms of CPU) only when a link
    /// compares it (`IdentityClustering`).
    public var spacing = 5
    public var window = 30
    public var tries = 2
    /// Write each person's mean embedding (biometric data) in the identity records.
    public var writeEmbeddings = false
    /// The SFace file (--identity-model), or nil for the installed, checked copy.
    public var modelPath: String?
    public var runtime: DNNRuntime = .openvino

    public init(writeEmbeddings: Bool = false, modelPath: String? = nil, runtime: DNNRuntime = .openvino) {
        self.writeEmbeddings = writeEmbeddings
        self.modelPath = modelPath
        self.runtime = runtime
    }
}

extension IdentityOptions {
    /// The identity settings a stream record reports (`analyzers.identities`); nil when
    /// identities were off.
    package init?(streamRecord o: [String: Any]) throws {
        guard let i = (o["analyzers"] as? [String: Any])?["identities"] as? [String: Any] else { return nil }
        guard let threshold = recordNumber(i["threshold"]), let minFace = recordNumber(i["min_face"]), let samples = recordInteger(i["samples"]),
              let spacing = recordInteger(i["spacing"]), let window = recordInteger(i["window"]), let tries = recordInteger(i["tries"]),
              let embeddings = i["embeddings"] as? Bool else {
            throw RecordShapeError("analyzers.identities without threshold, min_face, samples, spacing, window, tries and embeddings (written by an earlier sightline?)")
        }
        self.init(writeEmbeddings: embeddings)
        self.threshold = threshold
        self.minFace = minFace
        self.samples = samples
        self.spacing = spacing
        self.window = window
        self.tries = tries
    }
}

extension StreamHeader {
    /// The identity settings the run used (`analyzers.identities`); nil when identities were off.
    public func identities() throws -> IdentityOptions? { try IdentityOptions(streamRecord: fields.object) }
}
