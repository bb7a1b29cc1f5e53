import SightlineFrames

/// Frame-by-frame detection counts of one kind of object at an IoU threshold, and the ratios made
/// from them. A ratio whose denominator is 0 is nil (undefined), never a made-up 0 or 1.
public struct DetectionMetrics: Sendable, Equatable {
    public var truePositives = 0
    public var falsePositives = 0
    public var falseNegatives = 0
    /// Frames counted.
    public var frames = 0
    /// Sum of the IoU of the true positives.
    public var iouSum = 0.0

    public init() {}

    /// Counts one frame's pairing.
    public mutating func add(_ match: FrameMatch) {
        frames += 1
        truePositives += match.pairs.count
        falsePositives += match.extra.count
        falseNegatives += match.missed.count
        iouSum += match.pairs.reduce(0) { $0 + $1.iou }
    }

    public var truthCount: Int { truePositives + falseNegatives }
    public var predictedCount: Int { truePositives + falsePositives }
    /// TP / (TP + FP); nil without predictions.
    public var precision: Double? { ratio(truePositives, predictedCount) }
    /// TP / (TP + FN); nil without truth objects.
    public var recall: Double? { ratio(truePositives, truthCount) }
    /// 2·TP / (2·TP + FP + FN), the harmonic mean of precision and recall; nil when both sides are empty.
    public var f1: Double? { ratio(2 * truePositives, 2 * truePositives + falsePositives + falseNegatives) }
    /// Mean IoU of the true positives.
    public var meanIoU: Double? { truePositives > 0 ? iouSum / Double(truePositives) : nil }
    /// False positives per 100 frames.
    public var falsePositivesPer100Frames: Double? { frames > 0 ? 100 * Double(falsePositives) / Double(frames) : nil }
}

/// a / b, or nil when b is 0.
func ratio(_ a: Int, _ b: Int) -> Double? { b > 0 ? Double(a) / Double(b) : nil }
