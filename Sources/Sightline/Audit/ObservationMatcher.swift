import SightlineFrames

/// The pairing of one frame's truth boxes with its predicted boxes.
public struct FrameMatch: Sendable, Equatable {
    public struct Pair: Sendable, Equatable {
        public var truth: Int
        public var predicted: Int
        public var iou: Double
    }
    /// Paired items, by truth index.
    public var pairs: [Pair]
    /// Truth items left unpaired (false negatives), ascending.
    public var missed: [Int]
    /// Predicted items left unpaired (false positives), ascending.
    public var extra: [Int]
}

/// Pairs the objects of one frame: the optimal assignment on cost 1 − IoU, among pairs whose IoU is
/// at least the threshold (so: as many pairs as possible, then the best overlap in total).
public struct ObservationMatcher: Sendable {
    /// Minimum intersection over union for a predicted box to count as the truth box.
    public var minIoU: Double

    public init(minIoU: Double = 0.5) { self.minIoU = minIoU }

    /// `penalty(t, p)` is added to the cost of an allowed pair; it only decides between assignments
    /// with the same number of pairs (codes use it to prefer a read with the right payload).
    public func match(truth: [Box], predicted: [Box], penalty: (Int, Int) -> Double = { _, _ in 0 }) -> FrameMatch {
        let ious = truth.map { t in predicted.map { t.iou($0) } }
        let costs = ious.enumerated().map { t, row in row.enumerated().map { p, iou in cost(iou).map { $0 + penalty(t, p) } } }
        let assignment = AssignmentSolver.solve(costs)
        let pairs = assignment.map { FrameMatch.Pair(truth: $0.row, predicted: $0.column, iou: ious[$0.row][$0.column]) }
        let pairedTruth = Set(pairs.map(\.truth)), pairedPredicted = Set(pairs.map(\.predicted))
        return FrameMatch(pairs: pairs,
                          missed: truth.indices.filter { !pairedTruth.contains($0) },
                          extra: predicted.indices.filter { !pairedPredicted.contains($0) })
    }

    /// The cost of pairing boxes with this overlap, 1 − IoU, or nil when they may not pair. The test
    /// is on the distance, 1 − IoU ≤ 1 − threshold, as py-motmetrics' `iou_matrix` makes it, so a
    /// pair at the threshold is decided the same way to the last bit.
    public func cost(_ iou: Double) -> Double? {
        let distance = 1 - iou
        return iou > 0 && distance <= 1 - minIoU ? distance : nil
    }

    public func match(truth: [FaceObservation], predicted: [FaceObservation]) -> FrameMatch {
        match(truth: truth.map(\.box), predicted: predicted.map(\.box))
    }

    /// Codes pair by overlap; among equally many pairs, reads with the truth's payload are preferred.
    public func match(truth: [CodeObservation], predicted: [CodeObservation]) -> FrameMatch {
        match(truth: truth.map(\.box), predicted: predicted.map(\.box)) { t, p in
            truth[t].hasSamePayload(as: predicted[p]) ? 0 : 1
        }
    }
}

extension CodeObservation {
    /// Same symbology and byte-identical payload.
    public func hasSamePayload(as other: CodeObservation) -> Bool {
        symbology == other.symbology && bytes == other.bytes
    }
}
