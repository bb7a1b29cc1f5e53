import Foundation
import SightlineFrames
import SightlineMedia
import SightlineTracking

/// Links face tracks into people during a run, in frame order (deterministic): aligns the faces
/// `SampleSchedule` says are due, and hands them to `IdentityClustering`, which has SFace embed
/// the ones a link compares. A shard run embeds every due face: it writes them for `merge`.
public final class IdentityLinker {
    public let options: IdentityOptions
    /// One per lane: faces are embedded in parallel.
    private let embedders: [FaceEmbedder]
    private let shard: Bool
    /// Whether SFace is being loaded ahead of the first embedding.
    private var loading = false
    private var schedule: SampleSchedule
    private lazy var clustering = IdentityClustering(threshold: options.threshold, samples: options.samples) { [unowned self] faces in
        embed(faces).map { try? $0.get() }
    }
    /// Alignment and embedding failures (counted in the summary's analyzer errors).
    public private(set) var errors = 0

    /// `lanes`: how many faces may be embedded at once (the analysis threads).
    /// `shard`: a shard run, which embeds every candidate face for merge (`SampleSchedule`).
    public init(options: IdentityOptions, lanes: Int = 1, shard: Bool = false) throws {
        self.options = options
        self.shard = shard
        let model = try FaceEmbedder.model(path: options.modelPath)
        embedders = try (0..<max(1, lanes)).map { _ in try FaceEmbedder(model: model, runtime: options.runtime, workers: max(1, lanes)) }
        schedule = SampleSchedule(options: options, everyCandidate: shard)
    }

    /// The faces' embeddings, on every lane (failures counted).
    private func embed(_ faces: [AlignedFace]) -> [Result<FaceEmbedding, Error>] {
        let embedders = self.embedders
        let embeddings = inParallel(faces.count, lanes: embedders.count) { k, lane in
            Result { try embedders[lane].embed(faces[k]) }
        }
        errors += embeddings.count { if case .failure = $0 { true } else { false } }
        return embeddings
    }

    /// Aligns the frame's due faces, links new tracks, and sets every face's `identity`. Returns
    /// the samples a shard run writes (embedded), else none.
    @discardableResult
    public func process(_ record: inout FrameRecord, frame: VideoFrame) -> [IdentitySample] {
        var due: [LinkSample] = []
        for i in schedule.due(record) {
            let face = record.faces[i]
            do {
                let aligned = try AlignedFace(frame, landmarks: face.landmarks!)
                due.append(LinkSample(track: face.track!, frame: record.index, score: face.score, box: face.box, face: .aligned(aligned)))
            } catch {
                errors += 1
            }
        }
        guard shard else {
            clustering.process(&record, samples: due)
            return []
        }
        var samples: [IdentitySample] = []
        for (sample, embedding) in zip(due, embed(due.compactMap(\.aligned))) {
            if case .success(let embedding) = embedding {
                samples.append(IdentitySample(track: sample.track, frame: sample.frame, score: sample.score, box: sample.box, embedding: embedding))
            }
        }
        clustering.process(&record, samples: samples.map(\.link))
        return samples
    }

    /// Sets the identity of ended face tracks (and keeps them for the identity records). `more`:
    /// frames follow (false at the end of the stream).
    public func tracksEnded(_ tracks: inout [TrackRecord], more: Bool = true) {
        clustering.tracksEnded(&tracks)
        // A face track that ended is a person a later track may be compared with: start loading
        // SFace now, in the background, rather than at that comparison, while the frames wait.
        if more, !loading, tracks.contains(where: { $0.kind == .face }) {
            loading = true
            embedders.first?.prepare()
        }
    }

    /// The people, once every track has ended. `frameDuration`: seconds per frame.
    public func finish(frameDuration: Double) -> [IdentityRecord] {
        clustering.finish(frameDuration: frameDuration, embeddings: options.writeEmbeddings)
    }
}
