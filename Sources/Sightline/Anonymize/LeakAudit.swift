import Foundation
import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// The ways `leaks` looks for a face the anonymized video still shows. Each is reported on its
/// own, so a publisher sees which one a leak got past.
public enum LeakCheck: String, CaseIterable, Sendable {
    /// The masker's network, on the full-size frame in f32 at a lower threshold than the mask's.
    case detector
    /// A network with other weights (YuNet by default), on the full-size frame: what the masker's
    /// network is blind to, another one may not be.
    case secondDetector = "second-detector"
    /// SFace: the original's face against the same region of the anonymized frame, aligned by the
    /// original's landmarks. Finds a face that still shows the person where no detector fires.
    case identity

    /// Reports and leaks are listed in this order.
    var rank: Int { Self.allCases.firstIndex(of: self)! }
}

/// A face the anonymized video still shows.
public struct Leak: Sendable, Equatable {
    public let check: LeakCheck
    /// Stream position of the frame (from 0).
    public let frame: Int
    public let t: Double
    /// Detector checks: the detection in the anonymized frame. Identity: the original's face,
    /// the region compared.
    public let box: Box
    /// Detector checks: the detection's score. Identity: the cosine similarity of the two embeddings.
    public let score: Double
    /// Detector checks: the original frame's face it overlaps (nil for identity, where it is `box`).
    public let original: Box?
}

/// What one check found.
public struct LeakCheckReport: Sendable {
    public let check: LeakCheck
    /// The network of a detector check (nil for identity).
    public let detector: FaceBackend?
    /// The detector's score threshold, or the identity check's similarity threshold.
    public let threshold: Double
    /// Detector checks: the detections in the original (face-frames). Identity: the original's
    /// faces compared (from `LeakAudit.identityMinFace`, with landmarks).
    public var originalFaces = 0
    /// Detector checks: the detections in the anonymized video (nil for identity).
    public var anonymizedFaces: Int?
    public var leaks: [Leak] = []
    /// Frames with at least one leak.
    public var leakedFrames: Int { Set(leaks.map(\.frame)).count }
}

/// What `leaks` found: every check that ran, in `LeakCheck` order.
public struct LeakReport: Sendable {
    public var frames = 0
    public var checks: [LeakCheckReport] = []
    /// Every check's leaks, by frame, then check.
    public var leaks: [Leak] {
        checks.flatMap(\.leaks).sorted { ($0.frame, $0.check.rank) < ($1.frame, $1.check.rank) }
    }
    /// Frames with at least one leak, by any check.
    public var leakedFrames: Int { Set(checks.flatMap { $0.leaks.map(\.frame) }).count }
}

/// How `leaks` checks an anonymized video against its original.
public struct LeakAuditOptions: Sendable {
    public var checks: Set<LeakCheck> = Set(LeakCheck.allCases)
    /// The detector check's network; its faces of the original are also the faces the identity
    /// check compares (so it must give landmarks for that: CenterFace or YuNet).
    public var faces: ResolvedFaceDetector
    /// The second detector check's network (other weights than `faces`).
    public var secondFaces: ResolvedFaceDetector?
    /// Overlap (IoU) from which a detection in the anonymized frame is the original's face.
    public var minOverlap = LeakAudit.defaultMinOverlap
    /// Cosine similarity from which the anonymized region is the original's person.
    public var identityThreshold = LeakAudit.defaultIdentityThreshold
    /// The SFace file (nil: the installed, checked copy).
    public var identityModel: String?
    public var threads = 1

    public init(faces: ResolvedFaceDetector, secondFaces: ResolvedFaceDetector?) {
        self.faces = faces
        self.secondFaces = secondFaces
    }
}

/// Checks an anonymized video against its original with detector configurations of its own (not
/// the ones that masked) and with face embeddings: every face the original shows and the
/// anonymized video still shows at the same place is a leak.
public enum LeakAudit {
    /// Overlap (IoU) from which a detection in the anonymized frame is the original's face.
    public static let defaultMinOverlap = 0.3
    /// Cosine similarity from which the anonymized region still shows the original's person.
    /// Measured on the anonymization scene: faces under a mask (blur or pixelate, hair and collar
    /// still around it, which the aligned crop takes in) score up to 0.53, faces left unmasked
    /// 0.8–1.0; two different people scored up to 0.50 on the dlib photos (docs/identities.md).
    /// OpenCV's same-person threshold, 0.363, would call those masked heads leaks.
    public static let defaultIdentityThreshold = 0.55
    /// Smallest face (pixels, the box's shorter side) the identity check compares: SFace's
    /// embeddings of smaller faces say little about who it is.
    public static let identityMinFace = 24.0

    /// Runs the checks. `open(path)` opens a video: each is read once per detector, the
    /// anonymized one once more, in step with the original, for the identity check (so nothing
    /// but boxes is kept per frame).
    public static func run(original: String, anonymized: String, options: LeakAuditOptions,
                           open: (String) throws -> FrameSource) throws -> LeakReport {
        // Both inputs open (and the identity check's model is found) before any detection: a
        // missing file fails at once. Each input is read again for every further pass.
        var unread: [String: FrameSource] = ["original": try open(original), "anonymized": try open(anonymized)]
        let (given, made) = (unread["original"]!.info, unread["anonymized"]!.info)
        if (given.displayWidth, given.displayHeight) != (made.displayWidth, made.displayHeight) {
            throw SightlineError.framesMismatch(path: anonymized, reason: "frames of \(made.displayWidth)x\(made.displayHeight), "
                                                + "the original \(original) has \(given.displayWidth)x\(given.displayHeight)")
        }
        func source(_ role: String) throws -> FrameSource {
            try unread.removeValue(forKey: role) ?? open(role == "original" ? original : anonymized)
        }
        let identity = options.checks.contains(.identity)
            ? try IdentityLeakCheck(anonymized: source("anonymized"), threshold: options.identityThreshold, model: options.identityModel,
                                    runtime: options.faces.options.runtime, lanes: options.threads)
            : nil
        var report = LeakReport()
        if options.checks.contains(.detector) || identity != nil {
            // The original's faces: the detector check's, and the ones the identity check compares.
            let before = try faces(in: source("original"), detector: options.faces, threads: options.threads, also: identity.map { [$0] } ?? [])
            report.frames = before.count
            if let identity {
                try sameFrames(original: original, before.count, anonymized: anonymized, try identity.framesRead())
                report.checks.append(identity.report)
            }
            if options.checks.contains(.detector) {
                let after = try faces(in: source("anonymized"), detector: options.faces, threads: options.threads)
                try sameFrames(original: original, before.count, anonymized: anonymized, after.count)
                report.checks.append(compare(.detector, detector: options.faces, original: before, anonymized: after, minOverlap: options.minOverlap))
            }
        }
        if options.checks.contains(.secondDetector), let second = options.secondFaces {
            let before = try faces(in: source("original"), detector: second, threads: options.threads)
            let after = try faces(in: source("anonymized"), detector: second, threads: options.threads)
            try sameFrames(original: original, before.count, anonymized: anonymized, after.count)
            report.frames = before.count
            report.checks.append(compare(.secondDetector, detector: second, original: before, anonymized: after, minOverlap: options.minOverlap))
        }
        report.checks.sort { $0.check.rank < $1.check.rank }
        return report
    }

    private static func sameFrames(original: String, _ originalFrames: Int, anonymized: String, _ anonymizedFrames: Int) throws {
        if originalFrames != anonymizedFrames {
            throw SightlineError.framesMismatch(path: anonymized, reason: "\(anonymizedFrames) frames, the original \(original) has \(originalFrames)")
        }
    }

    /// The faces of every frame of `source`, by stream position, one detection per frame (no
    /// tracking). `also`: more sinks for the same frames.
    public static func faces(in source: FrameSource, detector: ResolvedFaceDetector, threads: Int,
                             also: [FrameSink] = []) throws -> [(t: Double, faces: [FaceObservation])] {
        var configuration = RunConfiguration(source: source, analysis: .detect(faces: detector, codes: CodeReaderOptions(backend: .off)))
        // Frames on their own: no tracks, so no shot cuts to end them at.
        configuration.tracking = nil
        configuration.cuts = nil
        configuration.threads = threads
        let collector = FaceCollector()
        let summary = try Run(configuration).run(into: [collector] + also)
        if !summary.damage.isEmpty {
            throw SightlineError.inputDamaged(path: source.info.source, reason: "\(summary.damage)")
        }
        return collector.frames
    }

    /// The detector check: leaks between the faces of the same frames of the original and the
    /// anonymized video.
    public static func compare(_ check: LeakCheck = .detector, detector: ResolvedFaceDetector,
                               original: [(t: Double, faces: [FaceObservation])], anonymized: [(t: Double, faces: [FaceObservation])],
                               minOverlap: Double = defaultMinOverlap) -> LeakCheckReport {
        var report = LeakCheckReport(check: check, detector: detector.backend, threshold: detector.effectiveThreshold)
        report.originalFaces = original.reduce(0) { $0 + $1.faces.count }
        report.anonymizedFaces = anonymized.reduce(0) { $0 + $1.faces.count }
        for index in 0..<min(original.count, anonymized.count) {
            for face in anonymized[index].faces {
                let best = original[index].faces.max { face.box.iou($0.box) < face.box.iou($1.box) }
                if let best, face.box.iou(best.box) >= minOverlap {
                    report.leaks.append(Leak(check: check, frame: index, t: anonymized[index].t, box: face.box, score: face.score, original: best.box))
                }
            }
        }
        return report
    }
}

private final class FaceCollector: FrameSink {
    var frames: [(t: Double, faces: [FaceObservation])] = []
    func frame(_ record: FrameRecord, picture: VideoFrame?) throws { frames.append((record.t, record.faces)) }
}

extension LeakReport {
    /// The counts per check and every leak, for `leaks --json`.
    public var json: JSON {
        let detectors = Dictionary(uniqueKeysWithValues: checks.map { ($0.check, $0.detector) })
        return .object([
            ("frames", .int(Int64(frames))),
            ("leaked_faces", .int(Int64(checks.reduce(0) { $0 + $1.leaks.count }))), ("leaked_frames", .int(Int64(leakedFrames))),
            ("checks", .array(checks.map { check in
                var members: [(String, JSON)] = [("check", .string(check.check.rawValue))]
                if let detector = check.detector { members.append(("detector", .string(detector.rawValue))) }
                members.append(("threshold", .fixed(check.threshold, digits: Precision.score)))
                members.append(("original_faces", .int(Int64(check.originalFaces))))
                if let anonymized = check.anonymizedFaces { members.append(("anonymized_faces", .int(Int64(anonymized)))) }
                members += [("leaked_faces", .int(Int64(check.leaks.count))), ("leaked_frames", .int(Int64(check.leakedFrames)))]
                return .object(members)
            })),
            ("leaks", .array(leaks.map { leak in
                var members: [(String, JSON)] = [("check", .string(leak.check.rawValue))]
                if let detector = detectors[leak.check] ?? nil { members.append(("detector", .string(detector.rawValue))) }
                members += [("frame", .int(Int64(leak.frame))), ("t", .fixed(leak.t, digits: Precision.seconds)), ("box", leak.box.json)]
                if let original = leak.original {
                    members += [("score", .fixed(leak.score, digits: Precision.score)), ("original", original.json)]
                } else {
                    members.append(("similarity", .fixed(leak.score, digits: Precision.score)))
                }
                return .object(members)
            })),
        ])
    }
}
