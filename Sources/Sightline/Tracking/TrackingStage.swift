/// Tracking settings reported in the stream record.
public struct TrackingConfiguration: Sendable, Equatable {
    public var maxGap: Int
    public var detectEvery: Int
    public var codeConfirmation = CodeConfirmation()
}

import Dispatch

/// The ordered stage after the synchronizer: on frames skipped by the detection stride it
/// searches the frame around each live track's predicted place, then it gives every
/// observation its track id. Runs in frame order, so it is deterministic; as the one serial
/// stage it stays lean: the searches of one frame run in parallel (each on its own searcher,
/// results kept in track order), and face attributes are read on detection frames only (by the
/// parallel workers).
public final class TrackingStage {
    private let tracker: Tracker
    private let detectEvery: Int
    /// One region searcher per lane of parallel search (none without a detection stride).
    private let searchers: [RegionSearcher]
    /// Live face tracks' appearance at their last detection, by track id (detection stride only).
    private var patches: [Int: AppearancePatch] = [:]
    /// Region searches that failed with an error (counted in the summary).
    public private(set) var errors = 0

    /// `lanes`: how many region searches of one frame may run at once (the analysis threads).
    /// `detectEvery`: the schedule's full-detection stride (region search on the frames between).
    public init(tracker options: TrackerOptions, detectEvery: Int, lanes: Int = 1, faces: FaceDetectorOptions,
                codes: CodeReaderOptions) throws {
        tracker = Tracker(options: options)
        self.detectEvery = detectEvery
        // Region search needs detectors of its own (the workers' are busy on other frames).
        searchers = detectEvery > 1
            ? try (0..<max(1, lanes)).map { _ in try RegionSearcher(faces: faces, codes: codes, detectEvery: detectEvery) }
            : []
    }
    /// The tracking settings, as the stream record reports them.
    public var configuration: TrackingConfiguration {
        TrackingConfiguration(maxGap: tracker.options.maxGap, detectEvery: detectEvery,
                              codeConfirmation: tracker.options.codeConfirmation)
    }

    /// The frame's record with track ids (and region-search results on stride frames), and the
    /// tracks that ended with it.
    public func process(_ record: FrameRecord, frame: VideoFrame) -> (record: FrameRecord, ended: [TrackRecord]) {
        // A frame dropped from analysis says nothing about the objects: tracks neither move nor age.
        if record.faceStatus == .dropped || record.codeStatus == .dropped { return (record, []) }
        var record = record
        let facesDetected = record.faceStatus == .ok || record.faceStatus == .error
        tracker.advance()
        if record.faceStatus == .skipped || record.codeStatus == .skipped {
            refine(&record, in: frame)
        }
        let ended = tracker.update(&record)
        if facesDetected && !searchers.isEmpty { keepPatches(record, frame: frame) }
        return (record, ended)
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

    /// Ends every live track (end of stream).
    public func finish() -> [TrackRecord] { tracker.finish() }

    /// Ends every live track at a shot cut: nothing seen before it continues after it.
    public func endAllTracks() -> [TrackRecord] {
        patches = [:]
        return tracker.finish()
    }

    // MARK: - Region search

    private func refine(_ record: inout FrameRecord, in frame: VideoFrame) {
        guard let first = searchers.first else { return }
        let luma = frame.luma
        let rotation = frame.rotation
        let searchFaces = record.faceStatus == .skipped && first.searchesFaces
        let searchCodes = record.codeStatus == .skipped && first.searchesCodes
        let predictions = tracker.predictions
        var outcomes = [RegionSearcher.Outcome](repeating: .nothing, count: predictions.count)
        let lanes = min(searchers.count, predictions.count)
        outcomes.withUnsafeMutableBufferPointer { out in
            let work = SearchLanes(out: out, searchers: searchers, predictions: predictions,
                                   patches: predictions.map { patches[$0.id] }, luma: luma, rotation: rotation,
                                   faces: searchFaces, codes: searchCodes, lanes: lanes)
            if lanes > 1 { DispatchQueue.concurrentPerform(iterations: lanes) { work.run(lane: $0) } } else if lanes == 1 { work.run(lane: 0) }
        }
        var faceFailed = false, codeFailed = false
        for outcome in outcomes {
            switch outcome {
            case .face(let face): record.faces.append(face)
            case .code(let code): record.codes.append(code)
            case .faceFailed: faceFailed = true
            case .codeFailed: codeFailed = true
            case .nothing: break
            }
        }
        if searchFaces { record.faceStatus = faceFailed ? .error : .refined }
        if searchCodes { record.codeStatus = codeFailed ? .error : .refined }
        errors += (faceFailed ? 1 : 0) + (codeFailed ? 1 : 0)
    }
}

/// One frame's region searches split over lanes: lane k takes predictions k, k + lanes, … with
/// searcher k, and writes only those slots of `out`.
private struct SearchLanes: @unchecked Sendable {
    // @unchecked Sendable: each lane touches only its own searcher and its own slots; the frame's
    // picture is only read.
    let out: UnsafeMutableBufferPointer<RegionSearcher.Outcome>
    let searchers: [RegionSearcher]
    let predictions: [Tracker.Prediction]
    let patches: [AppearancePatch?]
    let luma: GrayImage
    let rotation: Rotation
    let faces: Bool
    let codes: Bool
    let lanes: Int

    func run(lane: Int) {
        for i in stride(from: lane, to: predictions.count, by: lanes) {
            out[i] = searchers[lane].search(predictions[i], patch: patches[i], luma: luma, rotation: rotation,
                                            faces: faces, codes: codes)
        }
    }
}
