import ArgumentParser
import Foundation
import Sightline

/// Output format of `audit` and `diff`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable { case table, json }

extension FrameMatching: ExpressibleByArgument {}

/// Which kinds of object to compare.
enum KindOption: String, ExpressibleByArgument, CaseIterable {
    case faces, codes, all
    var kinds: [AuditKind] {
        switch self {
        case .faces: return [.faces]
        case .codes: return [.codes]
        case .all: return AuditKind.allCases
        }
    }
}

/// The options `audit` and `diff` share: how observations and frames are paired, what is
/// compared, and how the result is printed.
struct ComparisonOptions: ParsableArguments {
    @Option(help: "Minimum intersection over union for two boxes to count as the same object.")
    var iou: Double = 0.5

    @Option(help: "Output format: table or json.")
    var format: ReportFormat = .table

    @Option(name: .customLong("match"), help: "Pair frames by index, or by time (nearest within half a frame interval).")
    var match: FrameMatching = .index

    @Option(help: "Kinds of object to compare: faces, codes or all.")
    var kind: KindOption = .all

    func validate() throws {
        guard iou > 0 && iou <= 1 else { throw ValidationError("--iou must be in (0, 1], not \(iou).") }
    }
}

struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hold a run's records against ground truth: detection, tracking and code payload metrics.",
        discussion: """
            PREDICTED and TRUTH are Sightline JSON Lines (the Samples/ truth files have that shape) or \
            MOTChallenge text (frame,id,x,y,w,h[,conf[,x,y,z]], 1-based frames; a .txt name or a first \
            line starting with a number), whose boxes are read as faces.

            Per kind: TP, FP, FN, precision, recall and F1 at --iou, from the optimal one-to-one \
            pairing in each frame; COCO-style average precision (101 recall points) when the \
            prediction has scores; CLEAR MOT (MOTA, MOTP as mean 1-IoU, ID switches, fragmentations, \
            mostly tracked/lost), IDF1/IDP/IDR and HOTA/DetA/AssA (means over IoU thresholds 0.05..0.95, \
            as TrackEval) when both files carry track ids. Codes: exact-payload \
            accuracy (symbology and bytes), wrong payloads, per symbology, first-read latency per truth code.

            Gates: for faces, recall and precision are detection recall and precision; for codes, \
            correct reads / truth codes and correct reads / all reads. Exit 0; 3 when a gate is not \
            met; 64 bad options (or --match time without a frame rate); 65 a malformed file \
            (FILE:LINE: cause); 66 a file missing or unreadable.
            """
    )

    @Argument(help: "Records to check (sightline analyze output, or MOTChallenge text).")
    var predicted: String

    @Argument(help: "Ground truth (Sightline JSON Lines or MOTChallenge text).")
    var truth: String

    @OptionGroup var comparison: ComparisonOptions

    @Flag(name: .customLong("per-frame"), help: "Also list the missed, extra and wrong-payload items of every frame.")
    var perFrame = false


    @Option(name: .customLong("min-recall"), help: "Exit 3 when the recall of an audited kind is below this.")
    var minRecall: Double?

    @Option(name: .customLong("min-precision"), help: "Exit 3 when the precision of an audited kind is below this.")
    var minPrecision: Double?

    @Option(name: .customLong("max-id-switches"), help: "Exit 3 when an audited kind has more ID switches (or none can be counted).")
    var maxIDSwitches: Int?

    @Option(name: .customLong("min-face-recall"), help: "Exit 3 when face detection recall is below this.")
    var minFaceRecall: Double?

    @Option(name: .customLong("min-code-recall"), help: "Exit 3 when the share of truth codes read correctly is below this.")
    var minCodeRecall: Double?

    func validate() throws {
        for (name, value) in [("--min-recall", minRecall), ("--min-precision", minPrecision),
                              ("--min-face-recall", minFaceRecall), ("--min-code-recall", minCodeRecall)] {
            if let value, !(0...1).contains(value) { throw ValidationError("\(name) must be in [0, 1], not \(value).") }
        }
        if let maxIDSwitches, maxIDSwitches < 0 { throw ValidationError("--max-id-switches must be 0 or more.") }
        if minFaceRecall != nil, !comparison.kind.kinds.contains(.faces) { throw ValidationError("--min-face-recall needs faces in --kind.") }
        if minCodeRecall != nil, !comparison.kind.kinds.contains(.codes) { throw ValidationError("--min-code-recall needs codes in --kind.") }
    }

    func run() throws {
        let p = try RecordFile(auditInput: predicted, truth: false)
        let t = try RecordFile(auditInput: truth, truth: true)
        let options = AuditOptions(iou: comparison.iou, matching: comparison.match, kinds: comparison.kind.kinds, perFrame: perFrame)
        let report = try Auditor(options: options).audit(predicted: p, truth: t)
        switch comparison.format {
        case .json: print(report.json.serialized())
        case .table: print(report.table, terminator: "")
        }
        let gates = AuditGates(minRecall: minRecall, minPrecision: minPrecision, maxIDSwitches: maxIDSwitches,
                               minFaceRecall: minFaceRecall, minCodeRecall: minCodeRecall)
        let failures = gates.failures(report)
        guard failures.isEmpty else {
            FileHandle.standardError.write(Data(failures.map { "sightline: \($0)\n" }.joined().utf8))
            throw ExitCode(3)
        }
    }
}
