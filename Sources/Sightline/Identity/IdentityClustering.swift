/// Face tracks into people from their samples, in frame order; no model. A run feeds it the
/// samples it embeds; `merge` feeds it the samples its shards wrote, and so gets the whole run's
/// people.
///
/// A track keeps its `samples` highest-ranked samples. At its first sample it joins the person
/// whose mean embedding is most similar (cosine ≥ `threshold`) or becomes a new person, and keeps
/// that identity from then on, so the frame records written before a later sample stay true.
/// Two tracks ever seen in one frame are never one person.
public final class IdentityClustering {
    public let threshold: Double
    public let samples: Int

    private struct TrackState {
        /// The highest-ranked samples, and their mean (kept with them: linking reads every
        /// person's tracks' means for each new track).
        private(set) var samples: [IdentitySample] = []
        private(set) var embedding: FaceEmbedding?
        var identity: Int?
        /// Other face tracks seen in the same frame as this one.
        var together = Set<Int>()

        mutating func add(_ sample: IdentitySample, keeping count: Int) {
            samples.append(sample)
            samples.sort(by: IdentitySample.ranked)
            if samples.count > count { samples.removeLast() }
            embedding = FaceEmbedding.mean(samples.map(\.embedding))
        }
    }
    private var states: [Int: TrackState] = [:]
    /// Each person's tracks, by identity id (from 1).
    private var members: [[Int]] = []
    private var ended: [Int: TrackRecord] = [:]

    public init(threshold: Double, samples: Int) {
        self.threshold = threshold
        self.samples = samples
    }

    /// Takes the frame's samples (of its faces, in the faces' order), links the tracks sampled
    /// for the first time, and sets every face's `identity`.
    public func process(_ record: inout FrameRecord, samples new: [IdentitySample]) {
        let ids = record.faces.compactMap(\.track)
        for id in ids { states[id, default: TrackState()].together.formUnion(ids.filter { $0 != id }) }
        for sample in new {
            var state = states[sample.track, default: TrackState()]
            state.add(sample, keeping: samples)
            states[sample.track] = state
            if state.identity == nil, let embedding = state.embedding { link(sample.track, embedding) }
        }
        for i in record.faces.indices { record.faces[i].identity = record.faces[i].track.flatMap { states[$0]?.identity } }
    }

    private func link(_ id: Int, _ embedding: FaceEmbedding) {
        let together = states[id]!.together
        var best: (person: Int, similarity: Double)?
        for (k, tracks) in members.enumerated() where !tracks.contains(where: together.contains) {
            guard let mean = FaceEmbedding.mean(tracks.compactMap { states[$0]?.embedding }) else { continue }
            let similarity = mean.cosine(embedding)
            if similarity >= threshold, similarity > (best?.similarity ?? -2) { best = (k, similarity) }
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

    /// The people, once every track has ended. `frameDuration`: seconds per frame;
    /// `embeddings`: give each person's mean embedding (biometric data).
    public func finish(frameDuration: Double, embeddings: Bool) -> [IdentityRecord] {
        members.enumerated().compactMap { k, tracks in
            let records = tracks.compactMap { ended[$0] }
            guard let first = records.min(by: { $0.firstFrame < $1.firstFrame }),
                  let last = records.max(by: { $0.lastFrame < $1.lastFrame }) else { return nil }
            let frames = records.reduce(0) { $0 + $1.lastFrame - $1.firstFrame + 1 }
            let best = tracks.flatMap { states[$0]?.samples ?? [] }.min(by: IdentitySample.ranked)!
            return IdentityRecord(id: k + 1, tracks: tracks.sorted(), firstFrame: first.firstFrame, lastFrame: last.lastFrame,
                                  firstT: first.firstT, lastT: last.lastT, frames: frames,
                                  seconds: Double(frames) * frameDuration, bestFrame: best.frame, bestBox: best.box,
                                  embedding: embeddings ? FaceEmbedding.mean(tracks.compactMap { states[$0]?.embedding }) : nil)
        }
    }
}
