import Foundation

/// Links face tracks into people during a run, in frame order (deterministic): embeds the faces
/// `SampleSchedule` says are due with SFace, and hands the samples to `IdentityClustering`.
public final class IdentityLinker {
    public let options: IdentityOptions
    /// One per lane: a frame's due faces are embedded in parallel.
    private let embedders: [FaceEmbedder]
    private var schedule: SampleSchedule
    private let clustering: IdentityClustering
    /// Embedding failures (counted in the summary's analyzer errors).
    public private(set) var errors = 0

    /// `lanes`: how many faces of one frame may be embedded at once (the analysis threads).
    /// `shard`: a shard run, which embeds every candidate face for merge (`SampleSchedule`).
    public init(options: IdentityOptions, lanes: Int = 1, shard: Bool = false) throws {
        self.options = options
        let store = ModelStore()
        let sface = KnownModel.sface
        if let path = options.modelPath, !FileManager.default.isReadableFile(atPath: path) {
            throw SightlineError.detectorUnavailable(name: sface.name, reason: "--identity-model \(path): not a readable file")
        }
        if options.modelPath == nil, store.installedPath(sface) == nil {
            throw SightlineError.detectorUnavailable(name: sface.name, reason: "the face embedding model \(sface.file) is not installed (looked in \(store.searchDirectories.joined(separator: ", "))); install it with Scripts/deps/build/sface-model.sh, or pass a file with --identity-model PATH")
        }
        let model = try store.resolve(sface, override: options.modelPath)
        embedders = try (0..<max(1, lanes)).map { _ in try FaceEmbedder(model: model, runtime: options.runtime, workers: max(1, lanes)) }
        schedule = SampleSchedule(options: options, everyCandidate: shard)
        clustering = IdentityClustering(threshold: options.threshold, samples: options.samples)
    }

    /// Embeds the frame's due faces, links new tracks, and sets every face's `identity`. Returns
    /// the samples taken (a shard run writes them).
    @discardableResult
    public func process(_ record: inout FrameRecord, frame: VideoFrame) -> [IdentitySample] {
        let due = schedule.due(record), embedders = self.embedders, faces = record.faces
        let embeddings = inParallel(due.count, lanes: embedders.count) { k, lane in
            Result { try embedders[lane].embed(frame, landmarks: faces[due[k]].landmarks!) }
        }
        var samples: [IdentitySample] = []
        for (i, embedding) in zip(due, embeddings) {
            let face = faces[i]
            if case .success(let embedding) = embedding {
                samples.append(IdentitySample(track: face.track!, frame: record.index, score: face.score, box: face.box, embedding: embedding))
            } else {
                errors += 1
            }
        }
        clustering.process(&record, samples: samples)
        return samples
    }

    /// Sets the identity of ended face tracks (and keeps them for the identity records).
    public func tracksEnded(_ tracks: inout [TrackRecord]) { clustering.tracksEnded(&tracks) }

    /// The people, once every track has ended. `frameDuration`: seconds per frame.
    public func finish(frameDuration: Double) -> [IdentityRecord] {
        clustering.finish(frameDuration: frameDuration, embeddings: options.writeEmbeddings)
    }
}
