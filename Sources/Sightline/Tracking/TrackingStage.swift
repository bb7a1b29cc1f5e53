/// Tracking settings reported in the stream record.
public struct TrackingConfiguration: Sendable, Equatable {
    public var maxGap: Int
    public var detectEvery: Int
}

/// The ordered stage after the synchronizer: on frames skipped by the detection stride it
/// searches the frame around each live track's predicted place, then it gives every
/// observation its track id. Runs on one thread, in frame order, so it is deterministic.
/// It is the one serial stage, so it stays lean: face attributes are read on detection frames
/// only (by the parallel workers).
public final class TrackingStage {
    private let tracker: Tracker
    private let detectEvery: Int
    private let faceDetector: CascadeFaceDetector?
    private let codeOptions: CodeReaderOptions
    /// Region search reads one known code at a time: a reader per symbology, which skips every
    /// other format's pass (most of zxing's time on a region that holds a QR code).
    private var codeReaders: [Symbology: CodeReader] = [:]
    /// Region searches that failed with an error (counted in the summary).
    public private(set) var errors = 0

    public init(tracker options: TrackerOptions, detectEvery: Int, faces: FaceDetectorOptions, codes: CodeReaderOptions) throws {
        tracker = Tracker(options: options)
        self.detectEvery = max(1, detectEvery)
        codeOptions = codes
        // Region search needs detectors of its own (the workers' are busy on other frames). Faces
        // are searched with a cascade for the DNN backends too: a network costs a whole pass per
        // call, a cascade only what the small region holds.
        var regionFaces = faces
        if faces.backend.model != nil { regionFaces.backend = .haarAlt2 }
        faceDetector = detectEvery > 1 ? try regionFaces.cascadePath().map { try CascadeFaceDetector(options: regionFaces, path: $0) } : nil
    }

    /// The tracking settings, as the stream record reports them.
    public var configuration: TrackingConfiguration {
        TrackingConfiguration(maxGap: tracker.options.maxGap, detectEvery: detectEvery)
    }

    /// The frame's record with track ids (and region-search results on stride frames), and the
    /// tracks that ended with it.
    public func process(_ record: FrameRecord, frame: VideoFrame) -> (record: FrameRecord, ended: [TrackRecord]) {
        // A frame dropped from analysis says nothing about the objects: tracks neither move nor age.
        if record.faceStatus == .dropped || record.codeStatus == .dropped { return (record, []) }
        var record = record
        tracker.advance()
        if record.faceStatus == .skipped || record.codeStatus == .skipped {
            refine(&record, in: frame)
        }
        let ended = tracker.update(&record)
        return (record, ended)
    }

    /// Ends every live track (end of stream).
    public func finish() -> [TrackRecord] { tracker.finish() }

    // MARK: - Region search

    private func refine(_ record: inout FrameRecord, in frame: VideoFrame) {
        let luma = frame.luma
        let rotation = frame.rotation
        let searchFaces = record.faceStatus == .skipped && faceDetector != nil
        let searchCodes = record.codeStatus == .skipped && codeOptions.backend != .off
        var faceFailed = false, codeFailed = false
        for prediction in tracker.predictions {
            // Search the predicted box grown by half its size on every side.
            let b = prediction.box
            let region = Box(x: b.x - b.w / 2, y: b.y - b.h / 2, w: b.w * 2, h: b.h * 2)
            // Where refinement fails, the motion model's box stands in, for at most one stride.
            let mayInterpolate = prediction.misses <= detectEvery
            switch prediction.kind {
            case .face where searchFaces:
                do {
                    // The face keeps roughly its size from one frame to the next: a few coarse
                    // pyramid levels around it will do.
                    let side = min(b.w, b.h)
                    let found = try faceDetector!.detect(in: luma, rotation: rotation, region: region,
                                                         sizes: max(8, Int(0.7 * side))...max(9, Int(1.45 * side)),
                                                         scaleFactor: 1.2)
                    if let best = found.max(by: { b.iou($0.box) < b.iou($1.box) }), b.iou(best.box) >= 0.2 {
                        record.faces.append(FaceObservation(box: best.box, score: best.score, track: prediction.id, source: .refined))
                    } else if mayInterpolate {
                        record.faces.append(FaceObservation(box: b, score: 0, track: prediction.id, source: .interpolated))
                    }
                } catch {
                    faceFailed = true
                }
            case .code where searchCodes:
                guard let symbology = prediction.record.symbology, let text = prediction.record.text,
                      let bytes = prediction.record.bytes else { continue }
                let key = Tracker.key(symbology, bytes)
                do {
                    let codes = try codesIn(region, symbology: symbology, luma: luma, rotation: rotation)
                    let same = codes.filter { Tracker.key($0) == key }
                    if var best = same.min(by: { $0.box.center.distance(to: b.center) < $1.box.center.distance(to: b.center) }) {
                        best.track = prediction.id
                        best.source = .refined
                        record.codes.append(best)
                    } else if mayInterpolate {
                        let corners = [Point(x: b.x, y: b.y), Point(x: b.x + b.w, y: b.y),
                                       Point(x: b.x + b.w, y: b.y + b.h), Point(x: b.x, y: b.y + b.h)]
                        record.codes.append(CodeObservation(symbology: symbology, text: text, bytes: bytes, polygon: corners,
                                                            track: prediction.id, source: .interpolated))
                    }
                } catch {
                    codeFailed = true
                }
            default:
                continue
            }
        }
        if searchFaces { record.faceStatus = faceFailed ? .error : .refined }
        if searchCodes { record.codeStatus = codeFailed ? .error : .refined }
        errors += (faceFailed ? 1 : 0) + (codeFailed ? 1 : 0)
    }

    /// Codes read in a displayed-frame region: the region is mapped back to the coded picture
    /// and read there in place.
    private func codesIn(_ region: Box, symbology: Symbology, luma: GrayImage, rotation: Rotation) throws -> [CodeObservation] {
        let corners = [Point(x: region.x, y: region.y), Point(x: region.x + region.w, y: region.y + region.h)]
        let coded = Box(bounding: corners.map(rotation.coded))
        guard let crop = luma.cropped(x: Int(coded.x.rounded(.down)), y: Int(coded.y.rounded(.down)),
                                      width: Int(coded.w.rounded(.up)), height: Int(coded.h.rounded(.up))) else { return [] }
        if codeReaders[symbology] == nil {
            var options = codeOptions
            options.symbologies = [symbology]
            codeReaders[symbology] = try makeCodeReader(options)
        }
        return try codeReaders[symbology]?.read(crop, rotation: rotation) ?? []
    }
}
