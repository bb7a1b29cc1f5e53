import Foundation

/// A face the anonymized video still shows: a detection in an anonymized frame that overlaps a
/// face the original frame had.
public struct Leak: Sendable, Equatable {
    /// Stream position of the frame (from 0).
    public let frame: Int
    public let t: Double
    /// The detection in the anonymized frame, and its score.
    public let box: Box
    public let score: Double
    /// The original frame's face it overlaps.
    public let original: Box
}

/// What `leaks` found.
public struct LeakReport: Sendable {
    public var frames = 0
    /// Faces the detector found in the original (face-frames), and in the anonymized video.
    public var originalFaces = 0
    public var anonymizedFaces = 0
    public var leaks: [Leak] = []
    /// Frames with at least one leak.
    public var leakedFrames: Int { Set(leaks.map(\.frame)).count }
}

/// Checks an anonymized video against its original with a detector configuration of its own
/// (by default not the one that masked: CenterFace on the full-size frame, at a lower
/// threshold): every face the original shows and the anonymized video still shows at the same
/// place is a leak.
public enum LeakAudit {
    /// Overlap (IoU) from which a detection in the anonymized frame is the original's face.
    public static let defaultMinOverlap = 0.3

    /// The faces of every frame of `source`, by stream position, one detection per frame (no tracking).
    public static func faces(in source: FrameSource, detector: FaceDetectorOptions, threads: Int) throws -> [(t: Double, faces: [FaceObservation])] {
        var configuration = RunConfiguration(source: source, analysis: .detect(faces: detector, codes: CodeReaderOptions(backend: .off)))
        // Frames on their own: no tracks, so no shot cuts to end them at.
        configuration.tracking = nil
        configuration.cuts = nil
        configuration.threads = threads
        let collector = FaceCollector()
        let summary = try Run(configuration).run(into: [collector])
        if !summary.damage.isEmpty {
            throw SightlineError.inputDamaged(path: source.info.source, reason: "\(summary.damage)")
        }
        return collector.frames
    }

    /// Leaks between the faces of the same frames of the original and the anonymized video.
    public static func compare(original: [(t: Double, faces: [FaceObservation])], anonymized: [(t: Double, faces: [FaceObservation])],
                               minOverlap: Double = defaultMinOverlap) -> LeakReport {
        var report = LeakReport()
        report.frames = min(original.count, anonymized.count)
        report.originalFaces = original.reduce(0) { $0 + $1.faces.count }
        report.anonymizedFaces = anonymized.reduce(0) { $0 + $1.faces.count }
        for index in 0..<report.frames {
            for face in anonymized[index].faces {
                let best = original[index].faces.max { face.box.iou($0.box) < face.box.iou($1.box) }
                if let best, face.box.iou(best.box) >= minOverlap {
                    report.leaks.append(Leak(frame: index, t: anonymized[index].t, box: face.box, score: face.score, original: best.box))
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
    /// The counts and every leak, for `leaks --json`.
    public var json: JSON {
        .object([
            ("frames", .int(Int64(frames))), ("original_faces", .int(Int64(originalFaces))),
            ("anonymized_faces", .int(Int64(anonymizedFaces))), ("leaked_faces", .int(Int64(leaks.count))),
            ("leaked_frames", .int(Int64(leakedFrames))),
            ("leaks", .array(leaks.map { leak in
                .object([("frame", .int(Int64(leak.frame))), ("t", .fixed(leak.t, digits: Precision.seconds)), ("box", leak.box.json),
                         ("score", .fixed(leak.score, digits: Precision.score)), ("original", leak.original.json)])
            })),
        ])
    }
}
