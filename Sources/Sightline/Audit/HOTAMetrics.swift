import SightlineFrames

/// Higher Order Tracking Accuracy (Luiten et al., "HOTA: A Higher Order Metric for Evaluating
/// Multi-object Tracking", IJCV 2021), computed as TrackEval's `HOTA.eval_sequence` does, so the
/// numbers agree with TrackEval's:
///
/// 1. For every (truth id, predicted id) pair, a global alignment score: the sum over frames of
///    sim / (row sum + column sum − sim) of that frame's similarity (IoU) matrix, divided by
///    (frames of the truth id + frames of the predicted id − that sum).
/// 2. In each frame, the one-to-one assignment maximizing the sum of alignment score × similarity
///    (Hungarian method, every pair allowed).
/// 3. For each α in 0.05, 0.10, …, 0.95, the assigned pairs with similarity ≥ α are true positives;
///    DetA = TP / (TP + FN + FP); AssA = Σ over TP of the Jaccard index of its two ids' matched
///    frames (TPA / (TPA + FNA + FPA)) / TP; HOTA = √(DetA · AssA).
/// 4. Each measure is the mean over the 19 values of α.
///
/// HOTA does not use an IoU threshold of its own: α runs over all of them.
public struct HOTAMetrics: Sendable, Equatable {
    /// One frame: the ids present on either side and their similarity (IoU), `similarity[i][j]`
    /// between `objects[i]` and `hypotheses[j]`. Ids are unique within the frame.
    public struct Frame: Sendable {
        public var objects: [Int]
        public var hypotheses: [Int]
        public var similarity: [[Double]]

        public init(objects: [Int], hypotheses: [Int], similarity: [[Double]]) {
            self.objects = objects
            self.hypotheses = hypotheses
            self.similarity = similarity
        }
    }

    /// The localization thresholds, as numpy's `arange(0.05, 0.99, 0.05)` makes them.
    public static let alphas: [Double] = (0..<19).map { 0.05 + Double($0) * 0.05 }

    /// Means over α; nil when neither side has a single detection.
    public let hota: Double?
    public let detA: Double?
    public let assA: Double?
    public let detRe: Double?
    public let detPr: Double?
    public let assRe: Double?
    public let assPr: Double?
    /// Mean similarity of the true positives.
    public let locA: Double?

    private struct Pair: Hashable { var object: Int, hypothesis: Int }

    public init(frames: [Frame]) {
        // TrackEval's tolerance in its comparisons.
        let eps = Double.ulpOfOne
        let truthCount = frames.reduce(0) { $0 + $1.objects.count }
        let predictedCount = frames.reduce(0) { $0 + $1.hypotheses.count }
        let alphaCount = Self.alphas.count
        guard truthCount > 0 || predictedCount > 0 else {
            (hota, detA, assA, detRe, detPr, assRe, assPr, locA) = (nil, nil, nil, nil, nil, nil, nil, nil)
            return
        }
        guard truthCount > 0, predictedCount > 0 else {
            // TrackEval: nothing can match, every measure 0 (LocA 1).
            (hota, detA, assA, detRe, detPr, assRe, assPr, locA) = (0, 0, 0, 0, 0, 0, 0, 1)
            return
        }

        // 1. Global alignment between ids.
        var potential: [Pair: Double] = [:]
        var objectFrames: [Int: Int] = [:], hypothesisFrames: [Int: Int] = [:]
        for frame in frames {
            let s = frame.similarity
            let rowSums = s.map { $0.reduce(0, +) }
            var columnSums = [Double](repeating: 0, count: frame.hypotheses.count)
            for row in s { for (j, v) in row.enumerated() { columnSums[j] += v } }
            for (i, o) in frame.objects.enumerated() {
                for (j, h) in frame.hypotheses.enumerated() {
                    let denominator = columnSums[j] + rowSums[i] - s[i][j]
                    if denominator > eps, s[i][j] != 0 { potential[Pair(object: o, hypothesis: h), default: 0] += s[i][j] / denominator }
                }
            }
            for o in frame.objects { objectFrames[o, default: 0] += 1 }
            for h in frame.hypotheses { hypothesisFrames[h, default: 0] += 1 }
        }
        var alignment: [Pair: Double] = [:]
        for (pair, sum) in potential {
            alignment[pair] = sum / (Double(objectFrames[pair.object]! + hypothesisFrames[pair.hypothesis]!) - sum)
        }

        // 2, 3. Matching per frame, counted at every α.
        var tp = [Int](repeating: 0, count: alphaCount)
        var fn = [Int](repeating: 0, count: alphaCount)
        var fp = [Int](repeating: 0, count: alphaCount)
        var similaritySum = [Double](repeating: 0, count: alphaCount)
        var matches = [[Pair: Int]](repeating: [:], count: alphaCount)
        for frame in frames {
            let objects = frame.objects, hypotheses = frame.hypotheses
            guard !objects.isEmpty, !hypotheses.isEmpty else {
                for a in 0..<alphaCount {
                    fp[a] += hypotheses.count
                    fn[a] += objects.count
                }
                continue
            }
            // Maximum total score: the minimum of its negative, every pair allowed.
            let cost: [[Double?]] = objects.indices.map { i in
                hypotheses.indices.map { j in
                    -(alignment[Pair(object: objects[i], hypothesis: hypotheses[j])] ?? 0) * frame.similarity[i][j]
                }
            }
            let assigned = AssignmentSolver.solve(cost)
            for a in 0..<alphaCount {
                var count = 0
                for p in assigned where frame.similarity[p.row][p.column] >= Self.alphas[a] - eps {
                    count += 1
                    similaritySum[a] += frame.similarity[p.row][p.column]
                    matches[a][Pair(object: objects[p.row], hypothesis: hypotheses[p.column]), default: 0] += 1
                }
                tp[a] += count
                fn[a] += objects.count - count
                fp[a] += hypotheses.count - count
            }
        }

        // 4. Association per α, then the means.
        var sums = (hota: 0.0, detA: 0.0, assA: 0.0, detRe: 0.0, detPr: 0.0, assRe: 0.0, assPr: 0.0, locA: 0.0)
        for a in 0..<alphaCount {
            var assA = 0.0, assRe = 0.0, assPr = 0.0
            for (pair, count) in matches[a] {
                let c = Double(count)
                let o = Double(objectFrames[pair.object]!), h = Double(hypothesisFrames[pair.hypothesis]!)
                assA += c * (c / max(1, o + h - c))
                assRe += c * (c / max(1, o))
                assPr += c * (c / max(1, h))
            }
            let positives = Double(max(1, tp[a]))
            assA /= positives
            assRe /= positives
            assPr /= positives
            let t = Double(tp[a])
            let detA = t / Double(max(1, tp[a] + fn[a] + fp[a]))
            sums.detA += detA
            sums.detRe += t / Double(max(1, tp[a] + fn[a]))
            sums.detPr += t / Double(max(1, tp[a] + fp[a]))
            sums.assA += assA
            sums.assRe += assRe
            sums.assPr += assPr
            sums.hota += (detA * assA).squareRoot()
            sums.locA += max(1e-10, similaritySum[a]) / max(1e-10, t)
        }
        let n = Double(alphaCount)
        hota = sums.hota / n
        detA = sums.detA / n
        assA = sums.assA / n
        detRe = sums.detRe / n
        detPr = sums.detPr / n
        assRe = sums.assRe / n
        assPr = sums.assPr / n
        locA = sums.locA / n
    }
}
