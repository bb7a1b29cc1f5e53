import SightlineFrames
import SightlineRecords

/// The kinds of object an audit covers.
public enum AuditKind: String, CaseIterable, Sendable {
    case faces, codes
}

public struct AuditOptions: Sendable {
    /// Minimum IoU for a predicted box to count as a truth box.
    public var iou = 0.5
    public var matching = FrameMatching.index
    public var kinds: [AuditKind] = AuditKind.allCases
    /// Collect the missed, extra and wrong-payload items of every frame.
    public var perFrame = false

    public init(iou: Double = 0.5, matching: FrameMatching = .index, kinds: [AuditKind] = AuditKind.allCases, perFrame: Bool = false) {
        self.iou = iou
        self.matching = matching
        self.kinds = kinds
        self.perFrame = perFrame
    }
}

/// Tracking metrics, or why they cannot be computed.
public enum TrackingResult: Sendable, Equatable {
    case available(CLEARMOTMetrics, IdentityMetrics, HOTAMetrics)
    case unavailable(String)

    public var clearMOT: CLEARMOTMetrics? { if case .available(let m, _, _) = self { return m } else { return nil } }
    public var identity: IdentityMetrics? { if case .available(_, let i, _) = self { return i } else { return nil } }
    public var hota: HOTAMetrics? { if case .available(_, _, let h) = self { return h } else { return nil } }
}

/// The audit of one kind of object.
public struct KindAudit: Sendable, Equatable {
    public var kind: AuditKind
    /// Why this kind was not compared (not analyzed in the prediction, absent from a file's format),
    /// or nil when it was.
    public var skipped: String?
    public var detection = DetectionMetrics()
    /// COCO-style AP at the IoU threshold, or nil with the reason in `averagePrecisionNote`.
    public var averagePrecision: Double?
    public var averagePrecisionNote: String?
    public var tracking = TrackingResult.unavailable("not computed")
    /// Codes only.
    public var payloads: CodePayloadMetrics?
}

/// What went wrong in one frame.
public struct FrameIssues: Sendable, Equatable {
    public var index: Int
    public var t: Double
    public var missedFaces: [FaceObservation] = []
    public var extraFaces: [FaceObservation] = []
    public var missedCodes: [CodeObservation] = []
    public var extraCodes: [CodeObservation] = []
    public var wrongPayloads: [WrongPayload] = []
    /// Truth objects paired with another predicted track than before (CLEAR MOT ID switches).
    public var idSwitches: [IDSwitch] = []

    public struct IDSwitch: Sendable, Equatable {
        public var kind: AuditKind
        public var truthTrack: Int
        /// The predicted track the truth object was paired with last, and the one it is paired with now.
        public var from: Int
        public var to: Int
    }

    public struct WrongPayload: Sendable, Equatable {
        public var truth: CodeObservation
        public var read: CodeObservation
    }

    public var isEmpty: Bool {
        missedFaces.isEmpty && extraFaces.isEmpty && missedCodes.isEmpty && extraCodes.isEmpty && wrongPayloads.isEmpty && idSwitches.isEmpty
    }
}

public struct AuditReport: Sendable, Equatable {
    public var predictedPath: String
    public var truthPath: String
    public var options: AuditOptions
    /// Frames compared.
    public var frames = 0
    /// Truth frames before the prediction's first or after its last frame, left out (a run over
    /// part of the video).
    public var truthFramesOutsidePrediction = 0
    /// Truth frames the prediction has no frame for (their objects count as missed).
    public var truthFramesWithoutPrediction = 0
    /// Prediction frames outside the truth's frames, left out.
    public var predictedFramesLeftOut = 0
    /// Frames paired by index whose times differ by more than half a frame interval.
    public var framesWithOtherTimes = 0
    public var faces: KindAudit?
    public var codes: KindAudit?
    /// Frames with issues, when asked for.
    public var perFrame: [FrameIssues] = []

    public subscript(kind: AuditKind) -> KindAudit? { kind == .faces ? faces : codes }
}

extension AuditOptions: Equatable {}

/// Holds a run's records against ground truth: detection counts, AP, CLEAR MOT and identity
/// metrics per kind, code payload accuracy, and per-frame issues.
public struct Auditor: Sendable {
    public var options: AuditOptions

    public init(options: AuditOptions = AuditOptions()) { self.options = options }

    public func audit(predicted: RecordFile, truth: RecordFile) throws -> AuditReport {
        let alignment = try FrameAligner(matching: options.matching).align(reference: truth, other: predicted)
        var report = AuditReport(predictedPath: predicted.path, truthPath: truth.path, options: options)
        report.frames = alignment.frames.count
        report.truthFramesOutsidePrediction = alignment.referenceOutside
        report.truthFramesWithoutPrediction = alignment.referenceOnly
        report.predictedFramesLeftOut = alignment.otherLeftOut
        report.framesWithOtherTimes = alignment.timeMismatches
        let matcher = ObservationMatcher(minIoU: options.iou)
        var issues = alignment.frames.map { FrameIssues(index: $0.index, t: $0.t) }

        if options.kinds.contains(.faces) {
            var audit = KindAudit(kind: .faces)
            audit.skipped = skipReason(.faces, predicted: predicted, truth: truth)
            if audit.skipped == nil {
                // Average precision needs scores: without them, nothing to accumulate.
                var ap = predicted.facesHaveScores ? AveragePrecision(minIoU: options.iou) : nil
                for (k, frame) in alignment.frames.enumerated() {
                    let t = frame.reference?.faces ?? [], p = frame.other?.faces ?? []
                    let match = matcher.match(truth: t, predicted: p)
                    audit.detection.add(match)
                    ap?.add(truth: t.map(\.box), predicted: p.map { ($0.box, $0.score) })
                    if options.perFrame {
                        issues[k].missedFaces = match.missed.map { t[$0] }
                        issues[k].extraFaces = match.extra.map { p[$0] }
                    }
                }
                audit.averagePrecision = ap?.value
                if ap == nil {
                    audit.averagePrecisionNote = predicted.frames.contains { !$0.faces.isEmpty } ? "the prediction's faces have no scores" : "the prediction has no faces"
                } else if audit.averagePrecision == nil {
                    audit.averagePrecisionNote = "the truth has no faces"
                }
                audit.tracking = tracking(alignment.frames, kind: .faces, ids: { $0.faces.map(\.track) },
                                          boxes: { $0.faces.map(\.box) }, issues: &issues)
            }
            report.faces = audit
        }

        if options.kinds.contains(.codes) {
            var audit = KindAudit(kind: .codes)
            audit.skipped = skipReason(.codes, predicted: predicted, truth: truth)
            if audit.skipped == nil {
                var payloads = CodePayloadMetrics()
                for (k, frame) in alignment.frames.enumerated() {
                    let t = frame.reference?.codes ?? [], p = frame.other?.codes ?? []
                    let match = matcher.match(truth: t, predicted: p)
                    audit.detection.add(match)
                    payloads.add(frame: frame.index, t: frame.t, truth: t, predicted: p, match: match)
                    if options.perFrame {
                        issues[k].missedCodes = match.missed.map { t[$0] }
                        issues[k].extraCodes = match.extra.map { p[$0] }
                        issues[k].wrongPayloads = match.pairs.filter { !t[$0.truth].hasSamePayload(as: p[$0.predicted]) }
                            .map { FrameIssues.WrongPayload(truth: t[$0.truth], read: p[$0.predicted]) }
                    }
                }
                audit.payloads = payloads
                audit.averagePrecisionNote = "code reads have no scores"
                audit.tracking = tracking(alignment.frames, kind: .codes, ids: { $0.codes.map(\.track) },
                                          boxes: { $0.codes.map(\.box) }, issues: &issues)
            }
            report.codes = audit
        }
        if options.perFrame { report.perFrame = issues.filter { !$0.isEmpty } }
        return report
    }

    /// Why a kind cannot be compared between these files, or nil.
    private func skipReason(_ kind: AuditKind, predicted: RecordFile, truth: RecordFile) -> String? {
        if kind == .codes {
            if truth.format == .motChallenge { return "the truth is MOTChallenge text, which has boxes only (read as faces)" }
            if predicted.format == .motChallenge { return "the prediction is MOTChallenge text, which has boxes only (read as faces)" }
        }
        let status: (FrameRecord) -> AnalyzerStatus = kind == .faces ? { $0.faceStatus } : { $0.codeStatus }
        if predicted.format == .jsonLines, !predicted.frames.isEmpty, predicted.frames.allSatisfy({ status($0) == .off }) {
            return "not analyzed in the prediction (status off)"
        }
        return nil
    }

    /// CLEAR MOT and identity metrics when both sides carry usable track ids; with `perFrame`, the
    /// ID switches go into `issues` (one entry per aligned frame).
    private func tracking(_ frames: [AlignedFrame], kind: AuditKind, ids: (FrameRecord) -> [Int?],
                          boxes: (FrameRecord) -> [Box], issues: inout [FrameIssues]) -> TrackingResult {
        let name = kind.rawValue
        if let problem = trackIdProblem(frames.compactMap(\.reference), side: "truth", name: name, ids: ids) { return .unavailable(problem) }
        if let problem = trackIdProblem(frames.compactMap(\.other), side: "prediction", name: name, ids: ids) { return .unavailable(problem) }
        let matcher = ObservationMatcher(minIoU: options.iou)
        var accumulator = MOTAccumulator()
        var hotaFrames: [HOTAMetrics.Frame] = []
        var lastPaired: [Int: Int] = [:]   // truth id -> predicted id it was last paired with
        for (k, frame) in frames.enumerated() {
            let truthBoxes = frame.reference.map(boxes) ?? [], predictedBoxes = frame.other.map(boxes) ?? []
            let objects = (frame.reference.map(ids) ?? []).compactMap { $0 }
            let hypotheses = (frame.other.map(ids) ?? []).compactMap { $0 }
            let ious = truthBoxes.map { t in predictedBoxes.map { t.iou($0) } }
            hotaFrames.append(HOTAMetrics.Frame(objects: objects, hypotheses: hypotheses, similarity: ious))
            let distances = ious.map { row in row.map { matcher.cost($0) } }
            let events = accumulator.update(objects: objects, hypotheses: hypotheses, distances: distances)
            guard options.perFrame else { continue }
            for event in events.events {
                guard let o = event.object, let h = event.hypothesis else { continue }
                if event.kind == .idSwitch, let from = lastPaired[o] {
                    issues[k].idSwitches.append(FrameIssues.IDSwitch(kind: kind, truthTrack: o, from: from, to: h))
                }
                lastPaired[o] = h
            }
        }
        return .available(accumulator.metrics, accumulator.identity, HOTAMetrics(frames: hotaFrames))
    }

    private func trackIdProblem(_ records: [FrameRecord], side: String, name: String, ids: (FrameRecord) -> [Int?]) -> String? {
        var total = 0, missing = 0
        for record in records {
            let frameIds = ids(record)
            total += frameIds.count
            missing += frameIds.filter { $0 == nil }.count
            var seen = Set<Int>()
            for id in frameIds.compactMap({ $0 }) where !seen.insert(id).inserted {
                return "track \(id) appears twice in frame \(record.index) of the \(side)"
            }
        }
        if missing == 0 { return nil }
        if missing == total { return "the \(side) has no track ids" }
        return "\(missing) of \(total) \(name) in the \(side) have no track id"
    }
}
