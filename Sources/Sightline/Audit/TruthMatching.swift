import SightlineFrames

/// Detection counts of one kind of object against ground truth (the short form; `Auditor` gives the
/// full metrics). Undefined ratios are 1 here, as callers of this form expect.
public struct DetectionCounts: Sendable, Equatable {
    public var truePositives = 0
    public var falsePositives = 0
    public var falseNegatives = 0
    public var frames = 0

    public var recall: Double { ratio(truePositives, truePositives + falseNegatives) ?? 1 }
    public var precision: Double { ratio(truePositives, truePositives + falsePositives) ?? 1 }
    /// False positives per 100 frames.
    public var falsePositivesPer100Frames: Double { frames > 0 ? 100 * Double(falsePositives) / Double(frames) : 0 }
}

/// Code reading counts against ground truth (the short form of `CodePayloadMetrics`).
public struct CodeCounts: Sendable, Equatable {
    /// Truth codes, one per frame they are visible in.
    public var expected = 0
    /// Truth codes read with exactly the right symbology and payload bytes.
    public var correct = 0
    /// Reads at a truth code's place with another payload or symbology.
    public var wrongPayload = 0
    /// Reads where the truth has no code.
    public var extra = 0

    public var recall: Double { ratio(correct, expected) ?? 1 }
}

/// Matches predicted frame records to ground-truth frame records by frame index, with the same
/// optimal per-frame matching as `Auditor` (IoU at least `faceIoU` for faces, 0.5 for codes).
public struct TruthMatcher {
    /// Minimum intersection over union for a face to count as found.
    public var faceIoU: Double

    public init(faceIoU: Double = 0.5) { self.faceIoU = faceIoU }

    public func faces(predicted: [FrameRecord], truth: [FrameRecord]) -> DetectionCounts {
        let matcher = ObservationMatcher(minIoU: faceIoU)
        var metrics = DetectionMetrics()
        let byIndex = Dictionary(predicted.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for t in truth { metrics.add(matcher.match(truth: t.faces, predicted: byIndex[t.index]?.faces ?? [])) }
        return DetectionCounts(truePositives: metrics.truePositives, falsePositives: metrics.falsePositives,
                               falseNegatives: metrics.falseNegatives, frames: metrics.frames)
    }

    public func codes(predicted: [FrameRecord], truth: [FrameRecord]) -> CodeCounts {
        let matcher = ObservationMatcher(minIoU: 0.5)
        var payloads = CodePayloadMetrics()
        let byIndex = Dictionary(predicted.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for t in truth {
            let p = byIndex[t.index]?.codes ?? []
            payloads.add(frame: t.index, t: t.t, truth: t.codes, predicted: p, match: matcher.match(truth: t.codes, predicted: p))
        }
        let total = payloads.total
        return CodeCounts(expected: total.expected, correct: total.correct, wrongPayload: total.wrongPayload, extra: total.extra)
    }
}
