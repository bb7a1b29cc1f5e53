import SightlineFrames

/// Tracking settings reported in the stream record.
public struct TrackingConfiguration: Sendable, Equatable {
    public var maxGap: Int
    public var detectEvery: Int
    public var codeConfirmation = CodeConfirmation()
}

/// The ordered stage after the synchronizer. It uses what the tracks know: on every frame each
/// live code track is read again in its predicted region (full reader options, its symbology
/// only), and a code track missed there has the whole next frame searched (not only the next
/// scheduled full search); on frames skipped by the detection stride it searches around each
/// live face (a crowd, whose crops would cost more than the whole frame, is detected whole).
/// Then it gives every observation its track id. Runs in frame order, so it is
/// deterministic; as the one serial stage it stays lean: the searches of one frame run in
/// parallel (each on its own searcher, results kept in track order), and face attributes are
/// read on detection frames only (by the parallel workers).
public final class TrackingStage {
    private let tracker: Tracker
    private let detectEvery: Int
    /// One region searcher per lane of parallel search.
    private let searchers: [RegionSearcher]
    /// The whole-frame search after a code track was missed in its region.
    private let fullReader: CodeReader?
    /// A code track was missed in its region on the last frame: search the whole of this one.
    private var widen = false
    /// Live face tracks' appearance at their last detection, by track id (detection stride only).
    private var patches: [Int: AppearancePatch] = [:]
    /// Region searches that failed with an error (counted in the summary).
    public private(set) var errors = 0

    /// A frame tracked but not yet handed on: a later full search may still find, looking back,
    /// an object on it.
    public struct Settled {
        public var record: FrameRecord
        public var frame: VideoFrame
        /// Tracks that ended with this frame.
        public var ended: [TrackRecord]
    }
    /// The frames since the last frame that had every full search (oldest first).
    private var window: [Settled] = []

    /// `lanes`: how many region searches of one frame may run at once (the analysis threads).
    /// `detectEvery`: the schedule's full-detection stride (faces are searched around their
    /// tracks on the frames between). A record whose code status is `ok` had the full code search.
    public init(tracker options: TrackerOptions, detectEvery: Int, lanes: Int = 1, faces: ResolvedFaceDetector,
                codes: CodeReaderOptions) throws {
        tracker = Tracker(options: options)
        self.detectEvery = detectEvery
        // Region search needs detectors of its own (the workers' are busy on other frames).
        let searchFaces = detectEvery > 1
        searchers = searchFaces || codes.backend != .off
            ? try (0..<max(1, lanes)).map { _ in
                try RegionSearcher(faces: faces, codes: codes, detectEvery: detectEvery, searchFaces: searchFaces, workers: max(1, lanes))
            }
            : []
        fullReader = try makeCodeReader(codes)
        searchers.first?.prepare()
    }
    /// The tracking settings, as the stream record reports them.
    public var configuration: TrackingConfiguration {
        TrackingConfiguration(maxGap: tracker.options.maxGap, detectEvery: detectEvery,
                              codeConfirmation: tracker.options.codeConfirmation)
    }

    /// Takes the next frame's record; returns the frames now settled, in order, each with its
    /// track ids (and region-search results) and the tracks that ended with it. A frame is held
    /// until a later frame has had every full search, so the objects that search finds are
    /// looked for backwards on it first (a track begins on the first frame its object shows).
    public func process(_ record: FrameRecord, frame: VideoFrame) -> [Settled] {
        let (record, ended, full) = track(record, frame: frame)
        window.append(Settled(record: record, frame: frame, ended: ended))
        if full {
            defer { window = [] }
            return window
        }
        // Memory stays bounded whatever the strides: past this many frames the oldest go on
        // without being looked back on.
        guard window.count > Self.maxHeld else { return [] }
        let settled = Array(window.prefix(window.count - Self.maxHeld))
        window.removeFirst(settled.count)
        return settled
    }

    /// The most frames held for looking back (about 90 MB of 720p pictures).
    static let maxHeld = 60

    private func track(_ record: FrameRecord, frame: VideoFrame) -> (FrameRecord, [TrackRecord], full: Bool) {
        // A frame dropped from analysis says nothing about the objects: tracks neither move nor age.
        if record.faceStatus == .dropped || record.codeStatus == .dropped { return (record, [], false) }
        var record = record
        var facesDetected = record.faceStatus == .ok || record.faceStatus == .error
        tracker.advance()
        // The workers run the code reader on full-search frames only.
        var codesFull = record.codeStatus == .off || record.codeStatus == .ok
        if widen && !codesFull {
            searchWhole(&record, frame: frame)
            codesFull = true
        }
        widen = false
        if refine(&record, in: frame) { facesDetected = true }
        let ended = tracker.update(&record)
        if !tracker.begun.isEmpty { lookBack(for: tracker.begun, in: record, frame: frame) }
        if facesDetected && searchers.first?.usesPatches == true { keepPatches(record, frame: frame) }
        return (record, ended, codesFull && (facesDetected || record.faceStatus == .off))
    }

    /// Searches the held frames, newest first, for each track the frame began, in the region
    /// where it was found, until a frame where it is not.
    private func lookBack(for ids: [Int], in record: FrameRecord, frame: VideoFrame) {
        guard let searcher = searchers.first else { return }
        for id in ids {
            guard let trackRecord = tracker.record(of: id) else { continue }
            var box: Box
            var patch: AppearancePatch?
            var polygon: [Point] = []
            if let face = record.faces.first(where: { $0.track == id }) {
                guard searcher.searchesFaces else { continue }
                box = face.box
                patch = searcher.usesPatches
                    ? AppearancePatch(box: face.box, score: face.score, luma: frame.luma, rotation: frame.rotation) : nil
            } else if let code = record.codes.first(where: { $0.track == id }) {
                guard searcher.searchesCodes else { continue }
                box = code.box
                polygon = code.polygon
            } else { continue }
            for i in window.indices.reversed() {
                let held = window[i]
                if held.record.faceStatus == .dropped || held.record.codeStatus == .dropped { break }
                let prediction = Tracker.Prediction(id: id, kind: trackRecord.kind, box: box, seen: box, misses: Int.max / 2,
                                                    record: trackRecord, polygon: polygon)
                switch searcher.search(prediction, patch: patch, frame: held.frame, faces: true, codes: true) {
                case .face(let face) where face.source == .refined:
                    tracker.observeEarlier(track: id, box: face.box, score: face.score, frame: held.record)
                    window[i].record.faces.append(face)
                    box = face.box
                    continue
                case .code(var code):
                    code.state = tracker.observeEarlier(track: id, box: code.box, score: 1, frame: held.record)
                    window[i].record.codes.append(code)
                    box = code.box
                    polygon = code.polygon
                    continue
                default:
                    break
                }
                break
            }
        }
    }

    /// The frames still held, then every live track ended (after them): at the end of the
    /// stream, and at a shot cut (nothing seen before a cut continues after it, and looking back
    /// never crosses one).
    public func finish() -> (frames: [Settled], ended: [TrackRecord]) {
        defer {
            window = []
            patches = [:]
            widen = false
        }
        return (window, tracker.finish())
    }

    /// The full code search over the whole frame, in place of what the workers read.
    private func searchWhole(_ record: inout FrameRecord, frame: VideoFrame) {
        guard let fullReader else { return }
        do {
            record.codes = try fullReader.read(frame.luma, rotation: frame.rotation)
            if record.codeStatus == .skipped { record.codeStatus = .refined }
        } catch {
            record.codeStatus = .error
            errors += 1
        }
    }

    /// On a detection frame, takes each detected face's look for the frames up to the next
    /// detection. A face the detector did not find keeps none: a look that old may belong to a
    /// face that has turned away or is leaving the frame, so the cascade searches for it instead.
    private func keepPatches(_ record: FrameRecord, frame: VideoFrame) {
        patches = [:]
        for face in record.faces where face.source == .detected {
            guard let id = face.track else { continue }
            patches[id] = AppearancePatch(box: face.box, score: face.score, luma: frame.luma, rotation: frame.rotation)
        }
    }

    // MARK: - Region search

    /// Searches the frame around the live tracks; returns whether it detected the whole frame's
    /// faces instead (a crowd).
    private func refine(_ record: inout FrameRecord, in frame: VideoFrame) -> Bool {
        guard let first = searchers.first else { return false }
        var searchFaces = record.faceStatus == .skipped && first.searchesFaces
        // So many faces that their crops would cost the network more than the whole frame: one
        // full detection finds them all (and any new face) for less.
        var wholeFrame = false
        let live = tracker.predictions
        if searchFaces, first.wholeFrameIsCheaper(frame, faces: live.count { $0.kind == .face }) {
            do {
                record.faces = try first.detectWhole(frame)
                record.faceStatus = .ok
            } catch {
                record.faceStatus = .error
                errors += 1
            }
            searchFaces = false
            wholeFrame = true
        }
        let searchCodes = (record.codeStatus == .skipped || record.codeStatus == .ok || record.codeStatus == .refined)
            && first.searchesCodes
        // Codes already read on this frame need no second read.
        let read = Set(record.codes.map { ReadKey(symbology: $0.symbology, bytes: $0.bytes) })
        let predictions = live.filter {
            switch $0.kind {
            case .face: return searchFaces
            case .code:
                guard searchCodes, let symbology = $0.record.symbology, let bytes = $0.record.bytes else { return false }
                return !read.contains(ReadKey(symbology: symbology, bytes: bytes))
            }
        }
        guard !predictions.isEmpty || searchFaces || record.codeStatus == .skipped else { return wholeFrame }
        let searchers = self.searchers, looks = predictions.map { patches[$0.id] }, codes = searchCodes, faces = searchFaces
        let outcomes = inParallel(predictions.count, lanes: searchers.count) { i, lane in
            searchers[lane].search(predictions[i], patch: looks[i], frame: frame, faces: faces, codes: codes)
        }
        var faceFailed = false, codeFailed = false
        for (prediction, outcome) in zip(predictions, outcomes) {
            switch outcome {
            case .face(let face): record.faces.append(face)
            case .code(let code): record.codes.append(code)
            case .faceFailed: faceFailed = true
            case .codeFailed: codeFailed = true
            case .nothing:
                // A code seen on the last frame and not in its region now: it may have moved
                // further than the region reaches, so the next frame is searched whole.
                if prediction.kind == .code && prediction.misses <= 1 { widen = true }
            }
        }
        if searchFaces { record.faceStatus = faceFailed ? .error : .refined }
        if searchCodes && record.codeStatus == .skipped { record.codeStatus = .refined }
        if codeFailed { record.codeStatus = .error }
        errors += (faceFailed ? 1 : 0) + (codeFailed ? 1 : 0)
        return wholeFrame
    }
}

/// A code's identity within one frame: symbology and payload bytes.
private struct ReadKey: Hashable {
    let symbology: Symbology
    let bytes: [UInt8]
}
