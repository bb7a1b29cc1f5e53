import SightlineFrames

/// Options of the tracker stage.
public struct TrackerOptions: Sendable, Equatable {
    /// Frames a track may go unseen before it ends.
    public var maxGap = 15
    /// Minimum overlap of a face with a track's predicted box for the first association pass.
    public var faceIoU = 0.3
    /// When a code track counts as confirmed.
    public var codeConfirmation = CodeConfirmation()

    public init(maxGap: Int = 15, codeConfirmation: CodeConfirmation = CodeConfirmation()) {
        self.maxGap = maxGap
        self.codeConfirmation = codeConfirmation
    }
}

/// Gives faces and codes stable track ids across frames.
///
/// Faces: each track predicts its box with a constant-velocity Kalman filter (as SORT does);
/// detections are paired with predictions greedily by overlap, then the rest by centre distance.
/// Codes: by symbology and payload first, nearest predicted position second, so the same payload
/// in two places at once makes two tracks. Ids are small integers in order of first appearance;
/// everything is processed in frame order, so ids do not depend on the thread count.
public final class Tracker {
    private final class LiveTrack {
        let id: Int
        let kind: TrackKind
        var motion: BoxMotion
        var misses = 0
        /// The box of its last observation (not interpolated).
        var seen: Box
        /// Codes: the corners of its last read.
        var polygon: [Point] = []
        private(set) var builder: TrackRecordBuilder
        var record: TrackRecord { builder.record }
        /// Codes: the reads that confirm the track.
        var confirmation = CodeConfirmation.Tally()

        init(id: Int, kind: TrackKind, box: Box, frame: FrameRecord) {
            self.id = id
            self.kind = kind
            motion = BoxMotion(box)
            seen = box
            builder = TrackRecordBuilder(id: id, kind: kind, box: box, frame: frame)
        }

        /// Folds one observation of this track into its record.
        func observe(box: Box, score: Double, source: ObservationSource, frame: FrameRecord) {
            builder.observe(box: box, score: score, source: source, frame: frame)
            if source == .interpolated { return }
            seen = box
            motion.update(box)
            misses = 0
        }

        func read(_ code: CodeObservation) { builder.read(code) }

        func observe(_ code: CodeObservation, frame: FrameRecord) {
            observe(box: code.box, score: 1, source: code.source, frame: frame)
            if code.source != .interpolated { polygon = code.polygon }
        }

        func observeEarlier(box: Box, score: Double, frame: FrameRecord) {
            builder.observeEarlier(box: box, score: score, frame: frame)
        }

        var finished: TrackRecord {
            var r = builder.finished
            if kind == .code { r.state = confirmation.state }
            return r
        }
    }

    public let options: TrackerOptions
    private var live: [LiveTrack] = []
    private var nextID = 1
    /// Frames the code reader ran on so far (the confirmation window counts these).
    private var codeFrames = 0
    /// Ids of the tracks the last `update` began, in id order.
    public private(set) var begun: [Int] = []

    public init(options: TrackerOptions = TrackerOptions()) { self.options = options }

    /// Where a live track is expected in the coming frame.
    public struct Prediction: Sendable {
        public var id: Int
        public var kind: TrackKind
        public var box: Box
        /// The box of its last observation: what depends on observations only (so a shard that
        /// starts on a full detection follows a face exactly as the whole run does).
        public var seen: Box
        /// Frames since the track was last observed (1 right after `advance` if seen last frame).
        public var misses: Int
        /// The track so far (codes: symbology and payload).
        public var record: TrackRecord
        /// Codes: the corners of the last read (its reading direction from the first to the second).
        public var polygon: [Point] = []

        package init(id: Int, kind: TrackKind, box: Box, seen: Box, misses: Int, record: TrackRecord, polygon: [Point] = []) {
            (self.id, self.kind, self.box, self.seen, self.misses, self.record, self.polygon) = (id, kind, box, seen, misses, record, polygon)
        }
    }

    /// The live tracks' predicted boxes for the coming frame (call `advance` first), by id.
    public var predictions: [Prediction] {
        live.sorted { $0.id < $1.id }.map {
            Prediction(id: $0.id, kind: $0.kind, box: $0.motion.box, seen: $0.seen, misses: $0.misses, record: $0.record,
                       polygon: $0.polygon)
        }
    }

    /// Moves every live track one frame ahead. Call once per frame before `update`.
    public func advance() {
        for track in live {
            track.motion.predict()
            track.misses += 1
        }
    }

    /// Assigns track ids to the frame's observations (keeping ids already set, e.g. by region
    /// refinement) and returns the tracks that ended with this frame.
    public func update(_ frame: inout FrameRecord) -> [TrackRecord] {
        var matched = Set<Int>()
        let firstNew = nextID
        defer { begun = Array(firstNew..<nextID) }
        // Observations that already name their track.
        for i in frame.faces.indices {
            if let id = frame.faces[i].track, let t = live.first(where: { $0.id == id }) {
                matched.insert(id)
                t.observe(box: frame.faces[i].box, score: frame.faces[i].score, source: frame.faces[i].source, frame: frame)
            }
        }
        for i in frame.codes.indices {
            if let id = frame.codes[i].track, let t = live.first(where: { $0.id == id }) {
                matched.insert(id)
                t.observe(frame.codes[i], frame: frame)
            }
        }
        associateFaces(&frame, matched: &matched)
        associateCodes(&frame, matched: &matched)
        confirmCodes(&frame)

        // Tracks unseen for longer than the gap end here.
        let ended = live.filter { $0.misses > options.maxGap }
        live.removeAll { $0.misses > options.maxGap }
        return ended.map(\.finished)
    }

    /// Adds an observation of a live track on an earlier frame than its first (look-back), and
    /// returns the track's confirmation state (codes).
    @discardableResult
    public func observeEarlier(track id: Int, box: Box, score: Double, frame: FrameRecord) -> CodeTrackState? {
        guard let track = live.first(where: { $0.id == id }) else { return nil }
        track.observeEarlier(box: box, score: score, frame: frame)
        return track.kind == .code ? track.confirmation.state : nil
    }

    /// The live track's record so far.
    public func record(of id: Int) -> TrackRecord? { live.first { $0.id == id }?.record }

    /// Ends every live track (end of stream), in id order.
    public func finish() -> [TrackRecord] {
        defer { live.removeAll() }
        return live.sorted { $0.id < $1.id }.map(\.finished)
    }

    // MARK: - Association

    private func associateFaces(_ frame: inout FrameRecord, matched: inout Set<Int>) {
        let pending = frame.faces.indices.filter { frame.faces[$0].track == nil }
        guard !pending.isEmpty else { return }
        let candidates = live.filter { $0.kind == .face && !matched.contains($0.id) }
        var pairs: [(score: Double, det: Int, track: Int)] = []
        for d in pending {
            let box = frame.faces[d].box
            for (t, track) in candidates.enumerated() {
                let predicted = track.motion.box
                let iou = predicted.iou(box)
                if iou >= options.faceIoU {
                    pairs.append((1 + iou, d, t))   // overlap pairs rank above distance pairs
                } else {
                    // Second chance after a gap or a fast move: centre within half the box size.
                    let reach = 0.5 * max(predicted.w, box.w)
                    let distance = predicted.center.distance(to: box.center)
                    if distance < reach { pairs.append((1 - distance / reach, d, t)) }
                }
            }
        }
        pairs.sort { $0.score != $1.score ? $0.score > $1.score : ($0.det, $0.track) < ($1.det, $1.track) }
        var usedDet = Set<Int>(), usedTrack = Set<Int>()
        for pair in pairs where !usedDet.contains(pair.det) && !usedTrack.contains(pair.track) {
            usedDet.insert(pair.det)
            usedTrack.insert(pair.track)
            let track = candidates[pair.track]
            frame.faces[pair.det].track = track.id
            matched.insert(track.id)
            track.observe(box: frame.faces[pair.det].box, score: frame.faces[pair.det].score,
                          source: frame.faces[pair.det].source, frame: frame)
        }
        for d in pending where !usedDet.contains(d) {
            let track = LiveTrack(id: nextID, kind: .face, box: frame.faces[d].box, frame: frame)
            nextID += 1
            live.append(track)
            frame.faces[d].track = track.id
            matched.insert(track.id)
            track.observe(box: frame.faces[d].box, score: frame.faces[d].score, source: frame.faces[d].source, frame: frame)
        }
    }

    /// Counts the frame's reads towards their tracks' confirmation and marks every code with
    /// its track's state (an interpolated code: the state so far).
    private func confirmCodes(_ frame: inout FrameRecord) {
        if frame.codeStatus == .ok || frame.codeStatus == .refined { codeFrames += 1 }
        for i in frame.codes.indices {
            guard let id = frame.codes[i].track, let track = live.first(where: { $0.id == id }) else { continue }
            frame.codes[i].state = frame.codes[i].source == .interpolated
                ? track.confirmation.state
                : track.confirmation.read(frame.codes[i].symbology, at: codeFrames, rule: options.codeConfirmation)
        }
    }

    private func associateCodes(_ frame: inout FrameRecord, matched: inout Set<Int>) {
        for i in frame.codes.indices where frame.codes[i].track == nil {
            let code = frame.codes[i]
            let box = code.box
            // Codes are the same object only if symbology and payload bytes agree.
            let nearest = live
                .filter { $0.record.symbology == code.symbology && $0.record.bytes == code.bytes && !matched.contains($0.id) }
                .min { a, b in
                    let da = a.motion.box.center.distance(to: box.center), db = b.motion.box.center.distance(to: box.center)
                    return da != db ? da < db : a.id < b.id
                }
            let track: LiveTrack
            if let nearest {
                track = nearest
            } else {
                track = LiveTrack(id: nextID, kind: .code, box: box, frame: frame)
                track.read(code)
                nextID += 1
                live.append(track)
            }
            frame.codes[i].track = track.id
            matched.insert(track.id)
            track.observe(code, frame: frame)
        }
    }
}
