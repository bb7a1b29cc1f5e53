import ArgumentParser
import Foundation
import Sightline

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what changed between two runs over the same video.",
        discussion: """
            A and B are Sightline JSON Lines (or MOTChallenge text). In each frame, A's and B's faces \
            and codes are paired by overlap: a pair at --iou or above is the same observation, below \
            it the observation moved; the rest are lost (only in A) or new (only in B). Codes also \
            report changed payloads; with track ids on both sides, a pair whose ids no longer \
            correspond as before is a track change (renumbering is not). Exit 0 when there is no \
            difference, 3 when there are differences; 64, 65 and 66 as for audit.
            """
    )

    @Argument(help: "The first run's records.")
    var a: String

    @Argument(help: "The second run's records.")
    var b: String

    @OptionGroup var comparison: ComparisonOptions

    func run() throws {
        let first = try RecordFile(auditInput: a, truth: false)
        let second = try RecordFile(auditInput: b, truth: false)
        let differ = RunDiffer(iou: comparison.iou, matching: comparison.match, kinds: comparison.kind.kinds)
        let diff = try differ.diff(first, second)
        switch comparison.format {
        case .json: print(diff.json.serialized())
        case .table: print(diff.table, terminator: "")
        }
        if !diff.isIdentical { throw ExitCode(3) }
    }
}
