import SightlineFrames

/// What happened to truth objects and predictions in one frame under CLEAR MOT matching.
public struct MOTFrameEvents: Sendable, Equatable {
    public enum Kind: String, Sendable { case match, idSwitch = "switch", miss, falsePositive = "fp" }
    public struct Event: Sendable, Equatable {
        public var kind: Kind
        public var object: Int?
        public var hypothesis: Int?
        public var distance: Double?
    }
    public var events: [Event]
}

/// Accumulates CLEAR MOT events frame by frame (Bernardin & Stiefelhagen, "Evaluating Multiple
/// Object Tracking Performance: The CLEAR MOT Metrics", 2008), following py-motmetrics'
/// `MOTAccumulator` where the paper leaves a choice:
///
/// 1. The correspondence (object o, hypothesis h) o was last paired in, in any earlier frame, is
///    kept when both are present and their distance is allowed (not nil); objects in frame order.
/// 2. The remaining objects and hypotheses are paired by a minimum-cost assignment on the distances
///    (as many pairs as possible, then least total distance).
/// 3. A pair counts as an ID switch when o was last paired (in any earlier frame) with another h.
/// 4. Objects left unpaired are misses; hypotheses left unpaired are false positives.
///
/// It also counts, for IDF1, how often each (object, hypothesis) pair could be matched (see
/// `IdentityMetrics`). Distances are whatever the caller uses; Sightline passes 1 − IoU.
public struct MOTAccumulator: Sendable {
    private var lastHypothesis: [Int: Int] = [:]        // object -> last hypothesis ever paired
    private var objectTimeline: [Int: [Bool]] = [:]     // object -> paired or not, per frame present
    private var objectFirstSeen: [Int] = []
    private var hypothesisCounts: [Int: Int] = [:]
    private var pairCounts: [Pair: Int] = [:]
    private var counts = CLEARMOTMetrics()

    struct Pair: Hashable { var object: Int, hypothesis: Int }

    public init() {}

    /// Adds one frame. `distances[i][j]` is the distance between object `objects[i]` and hypothesis
    /// `hypotheses[j]`, nil when they may not be paired (beyond the threshold). Ids must be unique
    /// within the frame.
    @discardableResult
    public mutating func update(objects: [Int], hypotheses: [Int], distances: [[Double?]]) -> MOTFrameEvents {
        func distance(_ i: Int, _ j: Int) -> Double? {
            guard i < distances.count, j < distances[i].count, let d = distances[i][j], d.isFinite else { return nil }
            return d
        }
        counts.frames += 1
        counts.objects += objects.count
        counts.predictions += hypotheses.count
        for (i, o) in objects.enumerated() {
            if objectTimeline[o] == nil { objectFirstSeen.append(o) }
            for (j, h) in hypotheses.enumerated() where distance(i, j) != nil {
                pairCounts[Pair(object: o, hypothesis: h), default: 0] += 1
            }
        }
        for h in hypotheses { hypothesisCounts[h, default: 0] += 1 }

        var events: [MOTFrameEvents.Event] = []
        var objectPaired = [Bool](repeating: false, count: objects.count)
        var hypothesisPaired = [Bool](repeating: false, count: hypotheses.count)
        func pair(_ i: Int, _ j: Int, _ d: Double) {
            let o = objects[i], h = hypotheses[j]
            let isSwitch = lastHypothesis[o].map { $0 != h } ?? false
            events.append(.init(kind: isSwitch ? .idSwitch : .match, object: o, hypothesis: h, distance: d))
            objectPaired[i] = true
            hypothesisPaired[j] = true
            lastHypothesis[o] = h
            counts.matched += 1
            counts.distanceSum += d
            if isSwitch { counts.switches += 1 }
        }

        // 1. Keep each object's last correspondence when it is still allowed (py-motmetrics keeps
        // it across frames where the object or its hypothesis was missing, not only from the last frame).
        for (i, o) in objects.enumerated() {
            guard let h = lastHypothesis[o], let j = hypotheses.firstIndex(of: h), !hypothesisPaired[j],
                  let d = distance(i, j) else { continue }
            pair(i, j, d)
        }
        // 2. Optimal assignment of the rest.
        let freeObjects = objects.indices.filter { !objectPaired[$0] }
        let freeHypotheses = hypotheses.indices.filter { !hypothesisPaired[$0] }
        let cost = freeObjects.map { i in freeHypotheses.map { j in distance(i, j) } }
        for p in AssignmentSolver.solve(cost) {
            let i = freeObjects[p.row], j = freeHypotheses[p.column]
            if let d = distance(i, j) { pair(i, j, d) }
        }
        // 3. Misses and false positives.
        for (i, o) in objects.enumerated() {
            objectTimeline[o, default: []].append(objectPaired[i])
            if !objectPaired[i] {
                events.append(.init(kind: .miss, object: o, hypothesis: nil, distance: nil))
                counts.misses += 1
            }
        }
        for (j, h) in hypotheses.enumerated() where !hypothesisPaired[j] {
            events.append(.init(kind: .falsePositive, object: nil, hypothesis: h, distance: nil))
            counts.falsePositives += 1
        }
        return MOTFrameEvents(events: events)
    }

    /// CLEAR MOT metrics and track-quality counts over the frames added so far.
    public var metrics: CLEARMOTMetrics {
        var result = counts
        result.uniqueObjects = objectTimeline.count
        for o in objectFirstSeen {
            let timeline = objectTimeline[o] ?? []
            let tracked = timeline.filter { $0 }.count
            let share = Double(tracked) / Double(max(timeline.count, 1))
            if share >= 0.8 { result.mostlyTracked += 1 } else if share >= 0.2 { result.partiallyTracked += 1 } else { result.mostlyLost += 1 }
            // Fragmentations: a tracked object becoming untracked, between its first and last tracked frame.
            if let first = timeline.firstIndex(of: true), let last = timeline.lastIndex(of: true) {
                for k in first..<last where timeline[k] && !timeline[k + 1] { result.fragmentations += 1 }
            }
        }
        return result
    }

    /// IDF1, IDP, IDR over the frames added so far.
    public var identity: IdentityMetrics {
        IdentityMetrics(objectFrequencies: objectTimeline.mapValues(\.count), hypothesisFrequencies: hypothesisCounts,
                        matchable: Dictionary(uniqueKeysWithValues: pairCounts.map { (IdentityMetrics.Pair(object: $0.key.object, hypothesis: $0.key.hypothesis), $0.value) }))
    }
}

/// CLEAR MOT metrics (Bernardin & Stiefelhagen 2008) with py-motmetrics' names in the comments.
public struct CLEARMOTMetrics: Sendable, Equatable {
    /// num_frames
    public var frames = 0
    /// num_objects: truth objects summed over frames.
    public var objects = 0
    /// num_predictions: hypotheses summed over frames.
    public var predictions = 0
    /// num_detections: pairs made (matches and switches).
    public var matched = 0
    /// num_switches
    public var switches = 0
    /// num_false_positives
    public var falsePositives = 0
    /// num_misses
    public var misses = 0
    /// num_fragmentations
    public var fragmentations = 0
    /// num_unique_objects
    public var uniqueObjects = 0
    /// Objects paired in at least 80 % of the frames they are in.
    public var mostlyTracked = 0
    /// Objects paired in 20 % to 80 % of their frames.
    public var partiallyTracked = 0
    /// Objects paired in less than 20 % of their frames.
    public var mostlyLost = 0
    /// Sum of the distances of all pairs.
    public var distanceSum = 0.0

    public init() {}

    /// MOTA = 1 − (misses + false positives + ID switches) / truth objects; nil without truth objects.
    /// Can be negative.
    public var mota: Double? {
        objects > 0 ? 1 - Double(misses + falsePositives + switches) / Double(objects) : nil
    }

    /// MOTP as py-motmetrics and the paper define it: the mean distance of the pairs made (lower is
    /// better). With distance 1 − IoU this is 1 − the mean IoU (MOTChallenge reports (1 − MOTP)·100).
    public var motp: Double? { matched > 0 ? distanceSum / Double(matched) : nil }

    /// Pairs made / truth objects.
    public var recall: Double? { ratio(matched, objects) }
    /// Pairs made / hypotheses.
    public var precision: Double? { ratio(matched, predictions) }
}
