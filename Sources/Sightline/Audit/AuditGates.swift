import SightlineFrames
import SightlineRecords

/// Thresholds that make an audit fail, so it can run as a check in a pipeline.
///
/// Per kind, "recall" and "precision" mean what a user of that kind cares about:
/// - faces: detection recall TP / (TP + FN) and precision TP / (TP + FP) at the IoU threshold;
/// - codes: exact-payload recall (correct reads / truth codes) and read precision (correct reads /
///   all reads): a code read with the wrong payload was not recalled.
///
/// `minRecall`, `minPrecision` and `maxIDSwitches` apply to every kind audited (a kind skipped
/// because the prediction did not analyze it is left out); `minFaceRecall` and `minCodeRecall` to
/// one kind, which must then have been audited. A recall or precision that is undefined (no truth
/// objects, or no predictions) meets the gate: there was nothing to miss. ID switches that cannot be
/// counted (no track ids) do not meet `maxIDSwitches`.
public struct AuditGates: Sendable, Equatable {
    public var minRecall: Double?
    public var minPrecision: Double?
    public var maxIDSwitches: Int?
    public var minFaceRecall: Double?
    public var minCodeRecall: Double?

    public init(minRecall: Double? = nil, minPrecision: Double? = nil, maxIDSwitches: Int? = nil,
                minFaceRecall: Double? = nil, minCodeRecall: Double? = nil) {
        self.minRecall = minRecall
        self.minPrecision = minPrecision
        self.maxIDSwitches = maxIDSwitches
        self.minFaceRecall = minFaceRecall
        self.minCodeRecall = minCodeRecall
    }

    /// The gate recall of a kind (see the type's comment).
    public static func recall(_ audit: KindAudit) -> Double? {
        audit.kind == .codes ? audit.payloads?.total.accuracy : audit.detection.recall
    }

    /// The gate precision of a kind (see the type's comment).
    public static func precision(_ audit: KindAudit) -> Double? {
        audit.kind == .codes ? audit.payloads?.readPrecision : audit.detection.precision
    }

    /// One line per gate not met; empty when all are met.
    public func failures(_ report: AuditReport) -> [String] {
        var failures: [String] = []
        let audited = AuditKind.allCases.compactMap { report[$0] }.filter { $0.skipped == nil }
        func check(_ name: String, _ audit: KindAudit, _ value: Double?, atLeast minimum: Double) {
            if let value, value < minimum {
                failures.append("\(name) not met: \(audit.kind.rawValue) \(format(value)) < \(format(minimum))")
            }
        }
        for audit in audited {
            if let minRecall { check("--min-recall", audit, Self.recall(audit), atLeast: minRecall) }
            if let minPrecision { check("--min-precision", audit, Self.precision(audit), atLeast: minPrecision) }
            if let maxIDSwitches {
                switch audit.tracking {
                case .available(let mot, _, _) where mot.switches > maxIDSwitches:
                    failures.append("--max-id-switches not met: \(audit.kind.rawValue) \(mot.switches) > \(maxIDSwitches)")
                case .unavailable(let reason):
                    failures.append("--max-id-switches not met: \(audit.kind.rawValue) ID switches not available: \(reason)")
                default: break
                }
            }
        }
        for (name, kind, minimum) in [("--min-face-recall", AuditKind.faces, minFaceRecall), ("--min-code-recall", .codes, minCodeRecall)] {
            guard let minimum else { continue }
            guard let audit = report[kind] else {
                failures.append("\(name) not met: \(kind.rawValue) were not audited")
                continue
            }
            if let skipped = audit.skipped {
                failures.append("\(name) not met: \(kind.rawValue) \(skipped)")
                continue
            }
            check(name, audit, Self.recall(audit), atLeast: minimum)
        }
        return failures
    }

    private func format(_ value: Double) -> String { JSON.format(value, digits: 4) }
}
