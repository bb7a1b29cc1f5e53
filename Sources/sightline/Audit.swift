import ArgumentParser
import Foundation
import Sightline

struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare a run's records with ground truth: face detection and code reading counts.",
        discussion: """
            Both files are Sightline JSON Lines (the Samples/ truth files have that shape); frames are \
            matched by index. Faces count as found at --iou or more; a code counts as read when a \
            read with the same symbology and payload bytes lies on it. Exit 0, or 3 when a --min-* \
            gate is not met; 65 when a file is malformed.
            """
    )

    @Argument(help: "Records to check (sightline analyze output).")
    var predicted: String

    @Argument(help: "Ground-truth records.")
    var truth: String

    @Option(help: "Minimum intersection over union for a face to count as found.")
    var iou: Double = 0.5

    @Option(help: "Output format: table or json.")
    var format: OutputFormat = .table

    @Option(name: .customLong("min-face-recall"), help: "Fail (exit 3) when face recall is below this.")
    var minFaceRecall: Double?

    @Option(name: .customLong("min-code-recall"), help: "Fail (exit 3) when code recall is below this.")
    var minCodeRecall: Double?

    enum OutputFormat: String, ExpressibleByArgument { case table, json }

    func validate() throws {
        guard iou > 0 && iou <= 1 else { throw ValidationError("--iou must be in (0, 1], not \(iou).") }
    }

    func run() throws {
        let p: RecordFile, t: RecordFile
        do {
            p = try RecordFile(path: predicted)
            t = try RecordFile(path: truth)
        } catch let error as RecordFileError {
            FileHandle.standardError.write(Data("sightline: \(error)\n".utf8))
            throw ExitCode(65)
        }
        let matcher = TruthMatcher(faceIoU: iou)
        let faces = matcher.faces(predicted: p.frames, truth: t.frames)
        let codes = matcher.codes(predicted: p.frames, truth: t.frames)
        switch format {
        case .json:
            let json = JSON.object([
                ("faces", .object([("true_positives", .int(Int64(faces.truePositives))),
                                   ("false_positives", .int(Int64(faces.falsePositives))),
                                   ("false_negatives", .int(Int64(faces.falseNegatives))),
                                   ("recall", .fixed(faces.recall, digits: 4)),
                                   ("precision", .fixed(faces.precision, digits: 4)),
                                   ("false_positives_per_100_frames", .fixed(faces.falsePositivesPer100Frames, digits: 3))])),
                ("codes", .object([("expected", .int(Int64(codes.expected))), ("correct", .int(Int64(codes.correct))),
                                   ("wrong_payload", .int(Int64(codes.wrongPayload))), ("extra", .int(Int64(codes.extra))),
                                   ("recall", .fixed(codes.recall, digits: 4))])),
                ("frames", .int(Int64(faces.frames))),
            ])
            print(json.serialized())
        case .table:
            print("frames \(faces.frames)")
            print(String(format: "faces  recall %.4f  precision %.4f  TP %d  FP %d  FN %d  FP/100 frames %.3f",
                         faces.recall, faces.precision, faces.truePositives, faces.falsePositives,
                         faces.falseNegatives, faces.falsePositivesPer100Frames))
            print(String(format: "codes  recall %.4f  correct %d/%d  wrong payload %d  extra %d",
                         codes.recall, codes.correct, codes.expected, codes.wrongPayload, codes.extra))
        }
        if let minFaceRecall, faces.recall < minFaceRecall { throw ExitCode(3) }
        if let minCodeRecall, codes.recall < minCodeRecall { throw ExitCode(3) }
    }
}
