import SightlineFrames

/// Track records computed from frame records, as the tracker computes them while it runs.
package struct TrackBook {
    private var live: [Int: TrackRecordBuilder] = [:]
    package private(set) var written = 0

    package init() {}

    package mutating func observe(_ frame: FrameRecord) {
        for face in frame.faces { if let id = face.track { add(id, .face, face.box, face.score, face.source, frame, nil) } }
        for code in frame.codes { if let id = code.track { add(id, .code, code.box, 1, code.source, frame, code) } }
    }

    private mutating func add(_ id: Int, _ kind: TrackKind, _ box: Box, _ score: Double, _ source: ObservationSource,
                              _ frame: FrameRecord, _ code: CodeObservation?) {
        var builder = live[id] ?? TrackRecordBuilder(id: id, kind: kind, box: box, frame: frame, code: code)
        // A code track stays confirmed once a frame shows it confirmed (CodeConfirmation).
        if let state = code?.state, builder.record.state != .confirmed { builder.setState(state) }
        builder.observe(box: box, score: score, source: source, frame: frame)
        live[id] = builder
    }

    /// Tracks unseen for more than `gap` frames after frame `index`, in id order.
    package mutating func ending(after index: Int, gap: Int) -> [TrackRecord] {
        let ended = live.values.filter { index - $0.record.lastFrame > gap }.sorted { $0.record.id < $1.record.id }
        for e in ended { live[e.record.id] = nil }
        written += ended.count
        return ended.map(\.finished)
    }

    /// The record of track `id` from the frames observed (nil: none of them holds it), closed.
    package mutating func end(_ id: Int) -> TrackRecord? {
        guard let builder = live.removeValue(forKey: id) else { return nil }
        written += 1
        return builder.finished
    }

    /// The tracks still open at the end, in id order.
    package mutating func finish() -> [TrackRecord] {
        let ended = live.values.sorted { $0.record.id < $1.record.id }
        live.removeAll()
        written += ended.count
        return ended.map(\.finished)
    }
}
