import SightlineFrames

/// How well code payloads were read: a truth code counts as read correctly when a read pairs with it
/// (see `ObservationMatcher`) with the same symbology and byte-identical payload.
public struct CodePayloadMetrics: Sendable, Equatable {
    public struct Counts: Sendable, Equatable {
        /// Truth codes, one per frame they are in.
        public var expected = 0
        /// Read with the right symbology and payload bytes.
        public var correct = 0
        /// Paired with a read of another payload or symbology.
        public var wrongPayload = 0
        /// Not paired with any read.
        public var missed = 0
        /// Reads paired with no truth code (counted under the read's symbology).
        public var extra = 0

        public init(expected: Int = 0, correct: Int = 0, wrongPayload: Int = 0, missed: Int = 0, extra: Int = 0) {
            self.expected = expected
            self.correct = correct
            self.wrongPayload = wrongPayload
            self.missed = missed
            self.extra = extra
        }

        /// Exact-payload accuracy: correct / expected; nil without truth codes.
        public var accuracy: Double? { ratio(correct, expected) }
    }

    /// A truth code's first correct read.
    public struct FirstRead: Sendable, Equatable {
        /// The truth track id, or nil when the truth has none (codes are then told apart by payload).
        public var track: Int?
        public var symbology: Symbology
        public var text: String
        /// Frame index and time the code first appears in the truth.
        public var firstFrame: Int
        public var firstTime: Double
        /// Frame index and time it is first read correctly; nil when never.
        public var readFrame: Int?
        public var readTime: Double?

        public var latencyFrames: Int? { readFrame.map { $0 - firstFrame } }
        public var latencySeconds: Double? { readTime.map { $0 - firstTime } }
    }

    public var total = Counts()
    /// By the truth code's symbology (extra reads: by the read's).
    public var bySymbology: [Symbology: Counts] = [:]
    /// Reads in the prediction.
    public var reads = 0
    /// Per truth code, in order of first appearance.
    public var firstReads: [FirstRead] = []
    private var firstReadSlot: [CodeIdentity: Int] = [:]

    private enum CodeIdentity: Hashable {
        case track(Int)
        case payload(Symbology, [UInt8])
    }

    public init() {}

    /// Correct reads / all reads; nil without reads.
    public var readPrecision: Double? { ratio(total.correct, reads) }

    /// Counts one frame, given its pairing of truth codes with reads.
    public mutating func add(frame index: Int, t: Double, truth: [CodeObservation], predicted: [CodeObservation], match: FrameMatch) {
        reads += predicted.count
        var correctTruth = Set<Int>()
        for pair in match.pairs {
            let code = truth[pair.truth]
            if code.hasSamePayload(as: predicted[pair.predicted]) {
                correctTruth.insert(pair.truth)
                count(code.symbology) { $0.correct += 1 }
            } else {
                count(code.symbology) { $0.wrongPayload += 1 }
            }
        }
        for t in match.missed { count(truth[t].symbology) { $0.missed += 1 } }
        for p in match.extra { count(predicted[p].symbology) { $0.extra += 1 } }
        for (i, code) in truth.enumerated() {
            count(code.symbology) { $0.expected += 1 }
            let identity = code.track.map(CodeIdentity.track) ?? .payload(code.symbology, code.bytes)
            let slot: Int
            if let existing = firstReadSlot[identity] {
                slot = existing
            } else {
                slot = firstReads.count
                firstReadSlot[identity] = slot
                firstReads.append(FirstRead(track: code.track, symbology: code.symbology, text: code.text,
                                            firstFrame: index, firstTime: t))
            }
            if correctTruth.contains(i), firstReads[slot].readFrame == nil {
                firstReads[slot].readFrame = index
                firstReads[slot].readTime = t
            }
        }
    }

    private mutating func count(_ symbology: Symbology, _ change: (inout Counts) -> Void) {
        change(&total)
        change(&bySymbology[symbology, default: Counts()])
    }
}
