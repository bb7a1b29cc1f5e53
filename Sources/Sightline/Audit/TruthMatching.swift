/// Detection counts of one kind of object against ground truth.
public struct DetectionCounts: Sendable, Equatable {
    public var truePositives = 0
    public var falsePositives = 0
    public var falseNegatives = 0
    public var frames = 0

    public var recall: Double { ratio(truePositives, truePositives + falseNegatives) }
    public var precision: Double { ratio(truePositives, truePositives + falsePositives) }
    /// False positives per 100 frames.
    public var falsePositivesPer100Frames: Double { frames > 0 ? 100 * Double(falsePositives) / Double(frames) : 0 }
}

/// Code reading counts against ground truth.
public struct CodeCounts: Sendable, Equatable {
    /// Truth codes, one per frame they are visible in.
    public var expected = 0
    /// Truth codes read with exactly the right symbology and payload bytes.
    public var correct = 0
    /// Reads at a truth code's place with another payload or symbology.
    public var wrongPayload = 0
    /// Reads where the truth has no code.
    public var extra = 0

    public var recall: Double { ratio(correct, expected) }
}

private func ratio(_ a: Int, _ b: Int) -> Double { b > 0 ? Double(a) / Double(b) : 1 }

/// Matches predicted frame records to ground-truth frame records by frame index.
public struct TruthMatcher {
    /// Minimum intersection over union for a face to count as found.
    public var faceIoU: Double

    public init(faceIoU: Double = 0.5) { self.faceIoU = faceIoU }

    public func faces(predicted: [FrameRecord], truth: [FrameRecord]) -> DetectionCounts {
        var counts = DetectionCounts()
        let byIndex = Dictionary(predicted.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for t in truth {
            counts.frames += 1
            let p = byIndex[t.index]?.faces ?? []
            let matched = greedyMatch(truth: t.faces.map(\.box), predicted: p.map(\.box), minIoU: faceIoU)
            counts.truePositives += matched
            counts.falseNegatives += t.faces.count - matched
            counts.falsePositives += p.count - matched
        }
        return counts
    }

    public func codes(predicted: [FrameRecord], truth: [FrameRecord]) -> CodeCounts {
        var counts = CodeCounts()
        let byIndex = Dictionary(predicted.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for t in truth {
            var unused = byIndex[t.index]?.codes ?? []
            counts.expected += t.codes.count
            for code in t.codes {
                // A read belongs to a truth code when its centre lies on the code.
                guard let i = unused.firstIndex(where: { code.box.contains($0.box.center) && $0.bytes == code.bytes && $0.symbology == code.symbology })
                        ?? unused.firstIndex(where: { code.box.contains($0.box.center) }) else { continue }
                let read = unused.remove(at: i)
                if read.bytes == code.bytes && read.symbology == code.symbology { counts.correct += 1 } else { counts.wrongPayload += 1 }
            }
            counts.extra += unused.count
        }
        return counts
    }

    /// Pairs boxes greedily by descending IoU (ties by position in the lists); returns the pair count.
    private func greedyMatch(truth: [Box], predicted: [Box], minIoU: Double) -> Int {
        var pairs: [(iou: Double, t: Int, p: Int)] = []
        for (ti, tb) in truth.enumerated() {
            for (pi, pb) in predicted.enumerated() {
                let iou = tb.iou(pb)
                if iou >= minIoU { pairs.append((iou, ti, pi)) }
            }
        }
        pairs.sort { $0.iou != $1.iou ? $0.iou > $1.iou : ($0.t, $0.p) < ($1.t, $1.p) }
        var usedT = Set<Int>(), usedP = Set<Int>()
        for pair in pairs where !usedT.contains(pair.t) && !usedP.contains(pair.p) {
            usedT.insert(pair.t)
            usedP.insert(pair.p)
        }
        return usedT.count
    }
}
