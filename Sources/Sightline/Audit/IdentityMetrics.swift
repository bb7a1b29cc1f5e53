import SightlineFrames

/// Identity measures of Ristani et al., "Performance Measures and a Data Set for Multi-Target,
/// Multi-Camera Tracking" (2016): truth trajectories and predicted trajectories are matched one to
/// one over the whole sequence by a global minimum-cost bipartite matching, where pairing a truth
/// trajectory with a predicted one earns the number of frames in which both are present and close
/// enough (distance allowed). IDTP is the total earned; every other truth detection is an IDFN,
/// every other predicted detection an IDFP.
public struct IdentityMetrics: Sendable, Equatable {
    public struct Pair: Hashable, Sendable { public var object: Int, hypothesis: Int }

    public let idTruePositives: Int
    public let idFalsePositives: Int
    public let idFalseNegatives: Int
    /// The trajectory pairs chosen (object id -> hypothesis id), pairs earning nothing left out.
    public let assignment: [Int: Int]

    /// `objectFrequencies`: frames each truth id is in; `hypothesisFrequencies`: frames each predicted
    /// id is in; `matchable`: frames each (object, hypothesis) pair could be matched in.
    public init(objectFrequencies: [Int: Int], hypothesisFrequencies: [Int: Int], matchable: [Pair: Int]) {
        let objects = objectFrequencies.keys.sorted(), hypotheses = hypothesisFrequencies.keys.sorted()
        let most = matchable.values.max() ?? 0
        // Maximizing the frames earned is minimizing IDFP + IDFN (py-motmetrics' cost matrix).
        let cost: [[Double?]] = objects.map { o in
            hypotheses.map { h in Double(most - (matchable[Pair(object: o, hypothesis: h)] ?? 0)) }
        }
        var earned = 0
        var assignment: [Int: Int] = [:]
        for p in AssignmentSolver.solve(cost) {
            let o = objects[p.row], h = hypotheses[p.column]
            let frames = matchable[Pair(object: o, hypothesis: h)] ?? 0
            if frames > 0 {
                earned += frames
                assignment[o] = h
            }
        }
        idTruePositives = earned
        idFalseNegatives = objectFrequencies.values.reduce(0, +) - earned
        idFalsePositives = hypothesisFrequencies.values.reduce(0, +) - earned
        self.assignment = assignment
    }

    /// IDP = IDTP / (IDTP + IDFP)
    public var idPrecision: Double? { ratio(idTruePositives, idTruePositives + idFalsePositives) }
    /// IDR = IDTP / (IDTP + IDFN)
    public var idRecall: Double? { ratio(idTruePositives, idTruePositives + idFalseNegatives) }
    /// IDF1 = 2·IDTP / (2·IDTP + IDFP + IDFN)
    public var idF1: Double? { ratio(2 * idTruePositives, 2 * idTruePositives + idFalsePositives + idFalseNegatives) }
}
