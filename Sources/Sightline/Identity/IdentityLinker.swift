import Foundation

/// Links face tracks into people, in frame order (deterministic).
///
/// Each face track is embedded on a few of its faces (detected, with landmarks, at least
/// `minFace` pixels, `spacing` frames apart), keeping the `samples` with the highest scores. At
/// its first embedding the track joins the person whose mean embedding is most similar (cosine ≥
/// `threshold`) or becomes a new person; it keeps that identity from then on, so the frame
/// records written before a later sample stay true. Two tracks ever seen in one frame are never
/// one person.
public final class IdentityLinker {
    public let options: IdentityOptions
    private let embedder: FaceEmbedder

    private struct Sample {
        var score: Double
        var frame: Int
        var box: Box
        var embedding: FaceEmbedding
    }
    private struct TrackState {
        var samples: [Sample] = []
        var attempts = 0
        var lastAttempt: Int?
        var identity: Int?
        /// Other face tracks seen in the same frame as this one.
        var together = Set<Int>()
        var embedding: FaceEmbedding? { FaceEmbedding.mean(samples.map(\.embedding)) }
    }
    private var states: [Int: TrackState] = [:]
    /// Each person's tracks, by identity id (from 1).
    private var members: [[Int]] = []
    private var ended: [Int: TrackRecord] = [:]
    /// Embedding failures (counted in the summary's analyzer errors).
    public private(set) var errors = 0

    public init(options: IdentityOptions) throws {
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
        embedder = try FaceEmbedder(model: model, runtime: options.runtime)
    }

    /// Embeds the frame's qualifying faces, links new tracks, and sets every face's `identity`.
    public func process(_ record: inout FrameRecord, frame: VideoFrame) {
        let ids = record.faces.compactMap(\.track)
        for id in ids { states[id, default: TrackState()].together.formUnion(ids.filter { $0 != id }) }
        for i in record.faces.indices {
            let face = record.faces[i]
            guard let id = face.track, face.source == .detected, let landmarks = face.landmarks,
                  min(face.box.w, face.box.h) >= options.minFace else { continue }
            var state = states[id]!
            if state.attempts < options.maxAttempts, state.lastAttempt.map({ record.index - $0 >= options.spacing }) ?? true {
                state.attempts += 1
                state.lastAttempt = record.index
                do {
                    let embedding = try embedder.embed(frame, landmarks: landmarks)
                    state.samples.append(Sample(score: face.score, frame: record.index, box: face.box, embedding: embedding))
                    // The highest scores, the earlier frame first among equals.
                    state.samples.sort { $0.score != $1.score ? $0.score > $1.score : $0.frame < $1.frame }
                    if state.samples.count > options.samples { state.samples.removeLast() }
                } catch {
                    errors += 1
                }
            }
            states[id] = state
            if state.identity == nil, let embedding = state.embedding { link(id, embedding) }
        }
        for i in record.faces.indices { record.faces[i].identity = record.faces[i].track.flatMap { states[$0]?.identity } }
    }

    private func link(_ id: Int, _ embedding: FaceEmbedding) {
        let together = states[id]!.together
        var best: (person: Int, similarity: Double)?
        for (k, tracks) in members.enumerated() where !tracks.contains(where: together.contains) {
            guard let mean = FaceEmbedding.mean(tracks.compactMap { states[$0]?.embedding }) else { continue }
            let similarity = mean.cosine(embedding)
            if similarity >= options.threshold, similarity > (best?.similarity ?? -2) { best = (k, similarity) }
        }
        if let best {
            members[best.person].append(id)
            states[id]!.identity = best.person + 1
        } else {
            members.append([id])
            states[id]!.identity = members.count
        }
    }

    /// Sets the identity of ended face tracks (and keeps them for the identity records).
    public func tracksEnded(_ tracks: inout [TrackRecord]) {
        for i in tracks.indices where tracks[i].kind == .face {
            tracks[i].identity = states[tracks[i].id]?.identity
            if tracks[i].identity != nil { ended[tracks[i].id] = tracks[i] }
        }
    }

    /// The people, once every track has ended. `frameDuration`: seconds per frame.
    public func finish(frameDuration: Double) -> [IdentityRecord] {
        members.enumerated().compactMap { k, tracks in
            let records = tracks.compactMap { ended[$0] }
            guard let first = records.min(by: { $0.firstFrame < $1.firstFrame }),
                  let last = records.max(by: { $0.lastFrame < $1.lastFrame }) else { return nil }
            let frames = records.reduce(0) { $0 + $1.lastFrame - $1.firstFrame + 1 }
            let samples = tracks.flatMap { states[$0]?.samples ?? [] }
            let best = samples.min { $0.score != $1.score ? $0.score > $1.score : $0.frame < $1.frame }!
            return IdentityRecord(id: k + 1, tracks: tracks.sorted(), firstFrame: first.firstFrame, lastFrame: last.lastFrame,
                                  firstT: first.firstT, lastT: last.lastT, frames: frames,
                                  seconds: Double(frames) * frameDuration, bestFrame: best.frame, bestBox: best.box,
                                  embedding: options.writeEmbeddings ? FaceEmbedding.mean(tracks.compactMap { states[$0]?.embedding }) : nil)
        }
    }
}
