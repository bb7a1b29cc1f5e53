import SightlineFrames

/// Average precision over detection confidence, as COCO computes it (pycocotools `COCOeval`) for one
/// category at one IoU threshold:
///
/// - In each frame, detections are taken by descending score and each is matched to the unmatched
///   truth box it overlaps most, if that IoU reaches the threshold (on equal IoU the later truth box
///   wins, as in COCOeval); otherwise it is a false positive.
/// - All detections of all frames are ranked by score (stable: frame order, then score order within
///   the frame), giving a precision/recall curve; precision is made non-increasing from the right.
/// - AP is the mean, over the 101 recall levels 0, 0.01, …, 1, of the precision at the first point of
///   the curve whose recall reaches the level (0 when the curve never reaches it).
///
/// COCO also caps detections at 100 per image and ignores crowd regions; neither applies here.
public struct AveragePrecision: Sendable {
    private var ranked: [(score: Double, truePositive: Bool)] = []
    /// Truth boxes counted.
    public private(set) var truthCount = 0
    public let minIoU: Double

    public init(minIoU: Double) { self.minIoU = minIoU }

    /// Adds one frame.
    public mutating func add(truth: [Box], predicted: [(box: Box, score: Double)]) {
        truthCount += truth.count
        // Stable descending sort by score (COCO: argsort(-score, kind="mergesort")).
        let order = predicted.indices.sorted { predicted[$0].score != predicted[$1].score ? predicted[$0].score > predicted[$1].score : $0 < $1 }
        var taken = [Bool](repeating: false, count: truth.count)
        for d in order {
            var best = -1
            var bestIoU = min(minIoU, 1 - 1e-10)
            for (g, box) in truth.enumerated() where !taken[g] {
                let iou = predicted[d].box.iou(box)
                if iou < bestIoU { continue }
                bestIoU = iou
                best = g
            }
            if best >= 0 { taken[best] = true }
            ranked.append((predicted[d].score, best >= 0))
        }
    }

    /// The 101 recall levels, computed as numpy's `linspace(0, 1, 101)` does (i · 0.01, last exactly 1).
    static let recallLevels: [Double] = (0...100).map { $0 == 100 ? 1 : Double($0) * (1.0 / 100.0) }

    /// AP in [0, 1]; nil when there is no truth box (COCO reports -1 then).
    public var value: Double? {
        guard truthCount > 0 else { return nil }
        let order = ranked.indices.sorted { ranked[$0].score != ranked[$1].score ? ranked[$0].score > ranked[$1].score : $0 < $1 }
        var recall: [Double] = [], precision: [Double] = []
        var tp = 0, fp = 0
        for i in order {
            if ranked[i].truePositive { tp += 1 } else { fp += 1 }
            recall.append(Double(tp) / Double(truthCount))
            precision.append(Double(tp) / (Double(tp + fp) + Double.ulpOfOne))
        }
        if precision.count > 1 {
            for i in stride(from: precision.count - 1, to: 0, by: -1) where precision[i] > precision[i - 1] {
                precision[i - 1] = precision[i]
            }
        }
        var sum = 0.0
        var k = 0
        for level in Self.recallLevels {
            // First point whose recall reaches the level (numpy searchsorted, side "left").
            while k < recall.count && recall[k] < level { k += 1 }
            if k < recall.count { sum += precision[k] }
        }
        return sum / Double(Self.recallLevels.count)
    }
}
