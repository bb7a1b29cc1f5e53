import SightlineFrames
import SightlineMedia
import SightlineTracking

/// The region-search stage: it detects, the tracker gives ids. On every frame each live code
/// track is read again in its predicted region (full reader options, its symbology only), and a
/// code track missed there has the whole next frame searched (not only the next scheduled full
/// search); on frames skipped by the detection stride it searches around each live face (a
/// crowd, whose crops would cost more than the whole frame, is detected whole), and on tiled
/// frames around each small face the frame's passes did not give (the whole-frame pass cannot
/// see them; the tiles only find them). Its detectors
/// are built here, from the run's resolved face detector and code options: a `RegionSearcher`
/// per lane, so the searches of one frame run in parallel (results kept in track order).
package final class RegionSearch {
    /// One region searcher per lane of parallel search (none when nothing is searched).
    private let searchers: [RegionSearcher]
    /// The whole-frame search after a code track was missed in its region.
    private let fullReader: CodeReader?
    /// Frames without full detection may come off the stride (live: see `init`).
    private let busyFrames: Bool
    /// A code track was missed in its region on the last frame: search the whole of this one.
    private var widen = false
    /// Live face tracks' appearance at their last detection, by track id (cascades only).
    private var patches: [Int: AppearancePatch] = [:]
    /// Searches that failed with an error (counted in the summary).
    package private(set) var errors = 0

    /// `lanes`: how many region searches of one frame may run at once (the analysis threads).
    /// `detectEvery`: the schedule's full-detection stride (faces are searched around their
    /// tracks on the frames between). `busyFrames`: frames without full detection may also come
    /// off the stride (live), and are searched the same way.
    package init(faces: ResolvedFaceDetector, codes: CodeReaderOptions, detectEvery: Int, lanes: Int, busyFrames: Bool = false) throws {
        // Region search needs detectors of its own (the workers' are busy on other frames).
        let searchFaces = detectEvery > 1 || faces.options.mayTile || busyFrames
        searchers = searchFaces || codes.backend != .off
            ? try (0..<max(1, lanes)).map { _ in
                try RegionSearcher(faces: faces, codes: codes, detectEvery: detectEvery, searchFaces: searchFaces, workers: max(1, lanes))
            }
            : []
        fullReader = try makeCodeReader(codes)
        self.busyFrames = busyFrames
    }

    /// Starts making the searchers' network ready. With frames off the schedule (live), waits
    /// for it and warms each searcher up: the first frames' searches must not wait for each
    /// searcher's first inference.
    package func prepare() {
        searchers.first?.prepare()
        if busyFrames && !searchers.isEmpty {
            OpenVINORuntime.finishPreparations()
            searchers.forEach { $0.warmUp() }
        }
    }

    /// Searches a frame before its observations get ids, around `live` (the tracks' predictions
    /// for it, asked for only when something is searched). Returns whether its faces were
    /// detected (by the workers, or whole here), whether it had the full code search (a record
    /// whose code status is `ok` had it on a worker), and the frame's tiles (nil: not tiled; its
    /// small faces are found on tiles only).
    package func search(_ record: inout FrameRecord, in frame: VideoFrame,
                        live: () -> [Tracker.Prediction]) -> (facesDetected: Bool, codesFull: Bool, tiles: TileGrid?) {
        var facesDetected = record.faceStatus == .ok || record.faceStatus == .error
        // The workers run the code reader on full-search frames only.
        var codesFull = record.codeStatus == .off || record.codeStatus == .ok
        if widen && !codesFull {
            searchWhole(&record, frame: frame)
            codesFull = true
        }
        widen = false
        let tiles = searchers.first.flatMap { $0.searchesFaces ? $0.tiles(frame) : nil }
        if refine(&record, in: frame, tiled: tiles != nil, live: live) { facesDetected = true }
        return (facesDetected, codesFull, tiles)
    }

    /// After the frame's observations got their ids: a detection frame's faces leave their look
    /// for the frames up to the next detection (cascades).
    package func tracked(_ record: FrameRecord, frame: VideoFrame, facesDetected: Bool) {
        if facesDetected && usesPatches { keepPatches(record, frame: frame) }
    }

    /// Looking back: a track's object searched for on an earlier frame, where `prediction` puts it.
    package func searchEarlier(_ prediction: Tracker.Prediction, patch: AppearancePatch?, frame: VideoFrame) -> RegionSearcher.Outcome {
        searchers.first?.search(prediction, patch: patch, frame: frame, faces: true, codes: true) ?? .nothing
    }

    package var searchesFaces: Bool { searchers.first?.searchesFaces ?? false }
    package var searchesCodes: Bool { searchers.first?.searchesCodes ?? false }
    /// Whether face searches use the appearance patch of the last detection (cascades).
    package var usesPatches: Bool { searchers.first?.usesPatches ?? false }

    /// Forgets what the tracks looked like and the pending whole-frame search: at a cut and at the
    /// end of the stream, when every track ends.
    package func reset() {
        patches = [:]
        widen = false
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

    /// Searches the frame around the live tracks; returns whether it detected the whole frame's
    /// faces instead (a crowd).
    private func refine(_ record: inout FrameRecord, in frame: VideoFrame, tiled: Bool, live: () -> [Tracker.Prediction]) -> Bool {
        guard let first = searchers.first else { return false }
        let live = live()
        var searchFaces = record.faceStatus == .skipped && first.searchesFaces
        // A tiled frame's whole-frame pass does not see its small faces: the region search
        // follows each of them on every frame (the tiles only find them).
        func isSmall(_ prediction: Tracker.Prediction) -> Bool {
            tiled && max(prediction.seen.w, prediction.seen.h) < TileGrid.overlap
        }
        // So many faces that their crops would cost the network more than the whole frame: one
        // whole-frame pass finds them all (and any new face) for less.
        var wholeFrame = false
        if searchFaces, first.wholeFrameIsCheaper(frame, faces: live.count { $0.kind == .face && !isSmall($0) }) {
            do {
                (record.faces, record.faceSearch) = try first.detectWholePass(frame)
                record.faceStatus = .ok
            } catch {
                record.faceStatus = .error
                errors += 1
            }
            searchFaces = false
            wholeFrame = true
        }
        let followSmall = tiled && record.faceStatus == .ok
        let found = record.faces
        let searchCodes = (record.codeStatus == .skipped || record.codeStatus == .ok || record.codeStatus == .refined)
            && first.searchesCodes
        // Codes already read on this frame need no second read.
        let read = Set(record.codes.map { ReadKey(symbology: $0.symbology, bytes: $0.bytes) })
        let predictions = live.filter { prediction in
            switch prediction.kind {
            case .face:
                if searchFaces { return true }
                // A small face the frame's passes did not give (none where it is predicted).
                return followSmall && isSmall(prediction) && !found.contains {
                    $0.box.iou(prediction.box) >= 0.1 || $0.box.contains(prediction.box.center)
                }
            case .code:
                guard searchCodes, let symbology = prediction.record.symbology, let bytes = prediction.record.bytes else { return false }
                return !read.contains(ReadKey(symbology: symbology, bytes: bytes))
            }
        }
        guard !predictions.isEmpty || searchFaces || record.codeStatus == .skipped else { return wholeFrame }
        let searchers = self.searchers, looks = predictions.map { patches[$0.id] }, codes = searchCodes
        let faces = searchFaces || followSmall
        // The network's face searches go in batches (their crops through it at once: less per
        // crop), every other search alone; the jobs share the lanes, the outcomes keep track order.
        let together = faces && first.searchesFacesTogether
        var batched: [Int] = [], alone: [Int] = []
        for i in predictions.indices {
            if together && predictions[i].kind == .face { batched.append(i) } else { alone.append(i) }
        }
        let batches = DNNFaceDetector.batches(of: batched.count).map { Array(batched[$0]) }
        let jobs = batches + alone.map { [$0] }
        let results = inParallel(jobs.count, lanes: searchers.count) { j, lane -> [RegionSearcher.Outcome] in
            let job = jobs[j]
            if j < batches.count { return searchers[lane].searchFaces(job.map { predictions[$0] }, frame: frame) }
            return [searchers[lane].search(predictions[job[0]], patch: looks[job[0]], frame: frame, faces: faces, codes: codes)]
        }
        var outcomes = [RegionSearcher.Outcome](repeating: .nothing, count: predictions.count)
        for (job, result) in zip(jobs, results) {
            for (i, outcome) in zip(job, result) { outcomes[i] = outcome }
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
        if faceFailed && !searchFaces { record.faceStatus = .error }
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
