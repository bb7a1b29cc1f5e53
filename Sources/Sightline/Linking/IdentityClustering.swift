import SightlineFrames

/// Face tracks into people from their samples, in frame order; no model. A run feeds it the faces
/// it samples, aligned, and the function that embeds them; `merge` feeds it the samples its shards
/// wrote, embedded, and so gets the whole run's people.
///
/// A track keeps its `samples` highest-ranked samples. At its first sample it joins the person
/// whose mean embedding is most similar (cosine ≥ `threshold`) or becomes a new person, and keeps
/// that identity from then on, so the frame records written before a later sample stay true.
/// Two tracks ever seen in one frame are never one person.
///
/// Faces are embedded only when a link compares them: a track no person could join (each person
/// has a track seen with it) becomes a new person without running SFace, so a crowd that stays in
/// the picture costs no embedding. The people are those of embedding every sample at once: an
/// embedding is the same whenever it is computed.
public final class IdentityClustering {
    /// Embeds aligned faces, in order (nil: that face could not be embedded).
    public typealias Embed = ([AlignedFace]) -> [FaceEmbedding?]

    public let threshold: Double
    public let samples: Int
    private let embed: Embed?
    /// Aligned faces waiting, at most (37 KB each): beyond, every waiting face is embedded.
    package static let maxAligned = 256
    private var alignedCount = 0

    private struct TrackState {
        /// The highest-ranked samples, and their mean once none waits to be embedded (kept with
        /// them: linking reads every person's tracks' means for each new track).
        private(set) var samples: [LinkSample] = []
        private(set) var embedding: FaceEmbedding?
        var identity: Int?
        /// Other face tracks seen in the same frame as this one.
        var together = Set<Int>()

        /// The samples' faces waiting to be embedded.
        var aligned: [AlignedFace] { samples.compactMap(\.aligned) }
        var waiting: Int { samples.count { $0.aligned != nil } }

        mutating func add(_ sample: LinkSample, keeping count: Int) {
            samples.append(sample)
            samples.sort(by: LinkSample.ranked)
            if samples.count > count { samples.removeLast() }
            updateMean()
        }

        /// Takes the embeddings of `aligned`, in its order.
        mutating func embedded(_ embeddings: some Sequence<FaceEmbedding?>) {
            var next = embeddings.makeIterator()
            for i in samples.indices where samples[i].aligned != nil {
                samples[i].face = next.next().flatMap { $0.map(LinkSample.Face.embedded) } ?? .failed
            }
            updateMean()
        }

        private mutating func updateMean() {
            embedding = waiting > 0 ? nil : FaceEmbedding.mean(samples.compactMap(\.embedding))
        }
    }
    private var states: [Int: TrackState] = [:]
    /// Each person's tracks, by identity id (from 1).
    private var members: [[Int]] = []
    private var ended: [Int: TrackRecord] = [:]

    /// `embed`: how aligned samples are embedded (nil when every sample comes embedded).
    public init(threshold: Double, samples: Int, embed: Embed? = nil) {
        self.threshold = threshold
        self.samples = samples
        self.embed = embed
    }

    /// Takes the frame's samples (of its faces, in the faces' order), links the tracks sampled
    /// for the first time, and sets every face's `identity`.
    public func process(_ record: inout FrameRecord, samples new: [LinkSample]) {
        let ids = record.faces.compactMap(\.track)
        for id in ids { states[id, default: TrackState()].together.formUnion(ids.filter { $0 != id }) }
        for sample in new {
            var state = states[sample.track, default: TrackState()]
            let waiting = state.waiting
            state.add(sample, keeping: samples)
            alignedCount += state.waiting - waiting
            states[sample.track] = state
            if state.identity == nil { link(sample.track) }
        }
        if alignedCount > Self.maxAligned { embedAligned(of: states.keys.sorted()) }
        for i in record.faces.indices { record.faces[i].identity = record.faces[i].track.flatMap { states[$0]?.identity } }
    }

    private func link(_ id: Int) {
        let together = states[id]!.together
        let open = members.indices.filter { !members[$0].contains(where: together.contains) }
        var best: (person: Int, similarity: Double)?
        if !open.isEmpty {
            embedAligned(of: [id] + open.flatMap { members[$0] })
            // Not embedded: the track waits for its next sample.
            guard let embedding = states[id]!.embedding else { return }
            for k in open {
                guard let mean = FaceEmbedding.mean(members[k].compactMap { states[$0]?.embedding }) else { continue }
                let similarity = mean.cosine(embedding)
                if similarity >= threshold, similarity > (best?.similarity ?? -2) { best = (k, similarity) }
            }
        }
        if let best {
            members[best.person].append(id)
            states[id]!.identity = best.person + 1
        } else {
            members.append([id])
            states[id]!.identity = members.count
        }
    }

    /// Embeds the waiting faces of `tracks`, all in one call (the embedder runs them in parallel).
    private func embedAligned(of tracks: [Int]) {
        guard let embed else { return }
        let waiting = tracks.filter { (states[$0]?.waiting ?? 0) > 0 }
        let faces = waiting.flatMap { states[$0]!.aligned }
        guard !faces.isEmpty else { return }
        var embeddings = embed(faces)[...]
        for id in waiting {
            let count = states[id]!.waiting
            states[id]!.embedded(embeddings.prefix(count))
            embeddings = embeddings.dropFirst(count)
        }
        alignedCount -= faces.count
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
        if embeddings { embedAligned(of: members.flatMap { $0 }) }
        return members.enumerated().compactMap { k, tracks in
            let records = tracks.compactMap { ended[$0] }
            guard let first = records.min(by: { $0.firstFrame < $1.firstFrame }),
                  let last = records.max(by: { $0.lastFrame < $1.lastFrame }) else { return nil }
            let frames = records.reduce(0) { $0 + $1.lastFrame - $1.firstFrame + 1 }
            let best = tracks.flatMap { states[$0]?.samples ?? [] }.min(by: LinkSample.ranked)!
            return IdentityRecord(id: k + 1, tracks: tracks.sorted(), firstFrame: first.firstFrame, lastFrame: last.lastFrame,
                                  firstT: first.firstT, lastT: last.lastT, frames: frames,
                                  seconds: Double(frames) * frameDuration, bestFrame: best.frame, bestBox: best.box,
                                  embedding: embeddings ? FaceEmbedding.mean(tracks.compactMap { states[$0]?.embedding }) : nil)
        }
    }
}
