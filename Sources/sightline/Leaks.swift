import ArgumentParser
import Foundation
import Sightline

struct Leaks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find faces an anonymized video still shows: with two face detectors and with face identities.",
        discussion: """
            Three checks, each reported on its own (--checks picks them): detector — a face \
            detector over both videos, frame by frame (no tracking), by default not the \
            configuration `anonymize` masks with but CenterFace in f32 on the full-size frame at \
            confidence 0.3; second-detector — a network with other weights (--second-faces, YuNet \
            by default) on the full-size frame; a detection in an anonymized frame that overlaps \
            (IoU ≥ --min-overlap) a detection of the same network in the same frame of the \
            original is a leak. identity — every face the detector check finds in the original, \
            from 24 px and with landmarks, is embedded by SFace, and so is the same region of the \
            anonymized frame (aligned by the original's landmarks): a cosine similarity of at \
            least --identity-threshold is a leak, even where no detector fires. Prints each leak \
            and a line per check; exit code 0 with no leak, 3 with leaks.
            """
    )

    @Argument(help: "The original video.")
    var original: String

    @Argument(help: "The anonymized video (the same frames, in the same order).")
    var anonymized: String

    @Option(help: "Also write the counts per check and every leak as JSON to this file (- for standard output).")
    var json: String?

    @Option(help: "The checks to run, comma-separated: detector, second-detector, identity.")
    var checks: String = LeakCheck.allCases.map(\.rawValue).joined(separator: ",")

    /// The detector check's network: its faces of the original are also the identity check's.
    @OptionGroup(title: "Faces") var detector: DNNDetectorOptions<AuditFaces>

    @Option(name: .customLong("face-threshold"), help: "Smallest detector confidence (0..1) that counts as a face in the detector check.")
    var faceThreshold: Double = 0.3

    @Option(name: .customLong("min-overlap"), help: "Overlap (intersection over union, 0..1) from which a detection in the anonymized frame is the original's face.")
    var minOverlap: Double = LeakAudit.defaultMinOverlap

    @Option(name: .customLong("second-faces"), help: "The second detector check's network, another one than --faces: yunet or centerface (on the full-size frame), ultraface-640 or ultraface (their fixed input size).")
    var secondFaces: FaceBackend = .yunet

    @Option(name: .customLong("second-threshold"), help: "Smallest confidence (0..1) that counts as a face in the second detector check (default: the network's own, 0.9 for yunet).")
    var secondThreshold: Double?

    @Option(name: .customLong("identity-threshold"), help: "Cosine similarity (0..1] of the SFace embeddings from which the anonymized region still shows the original's person (OpenCV's same-person threshold, 0.363, also flags masked heads: see docs/anonymization.md).")
    var identityThreshold: Double = LeakAudit.defaultIdentityThreshold

    @Option(name: .customLong("identity-model"), help: "The SFace model file, instead of the installed one.")
    var identityModel: String?

    @OptionGroup(title: "Performance") var performance: PerformanceOptions

    @OptionGroup(title: "Input") var decoding: InputOptions

    /// The checks asked for (validated).
    private var selected: Set<LeakCheck> {
        Set(checks.split(separator: ",").compactMap { LeakCheck(rawValue: $0.trimmingCharacters(in: .whitespaces)) })
    }

    func validate() throws {
        let names = checks.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if names.isEmpty || names.contains(where: { LeakCheck(rawValue: $0) == nil }) {
            throw ValidationError("--checks must list one or more of \(LeakCheck.allCases.map(\.rawValue).joined(separator: ", ")), not \(checks).")
        }
        if !(faceThreshold >= 0 && faceThreshold <= 1) { throw ValidationError("--face-threshold must be between 0 and 1, not \(faceThreshold).") }
        if !(minOverlap > 0 && minOverlap <= 1) { throw ValidationError("--min-overlap must be more than 0 and at most 1, not \(minOverlap).") }
        if selected.contains(.secondDetector) {
            if secondFaces.model == nil { throw ValidationError("--second-faces must be a DNN detector (yunet, ultraface-640, ultraface, centerface), not \(secondFaces.rawValue).") }
            // The point of the check: weights that do not share the first network's blind spots.
            if secondFaces == detector.faces { throw ValidationError("--second-faces must be another network than --faces (\(detector.faces.rawValue)).") }
        }
        if let secondThreshold, !(secondThreshold >= 0 && secondThreshold <= 1) { throw ValidationError("--second-threshold must be between 0 and 1, not \(secondThreshold).") }
        if selected.contains(.identity) && ![.centerface, .yunet].contains(detector.faces) {
            throw ValidationError("--checks identity needs the landmarks of --faces centerface or yunet, not \(detector.faces.rawValue).")
        }
        if !(identityThreshold > 0 && identityThreshold <= 1) { throw ValidationError("--identity-threshold must be more than 0 and at most 1, not \(identityThreshold).") }
    }

    func run() throws {
        let workers = performance.workers
        var options = LeakAuditOptions(
            faces: try detector.options(threshold: faceThreshold, precision: .f32).resolve(),
            secondFaces: selected.contains(.secondDetector) ? try secondDetector() : nil)
        options.checks = selected
        options.minOverlap = minOverlap
        options.identityThreshold = identityThreshold
        options.identityModel = identityModel
        options.threads = workers
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        let report = try LeakAudit.run(original: original, anonymized: anonymized, options: options) { try decoding.open($0) }
        if let json {
            let text = report.json.serialized() + "\n"
            if json == "-" {
                FileHandle.standardOutput.write(Data(text.utf8))
            } else {
                let file = try AtomicFile(path: json)
                try file.write(Data(text.utf8))
                try file.commit()
            }
        }
        let out = json == "-" ? FileHandle.standardError : FileHandle.standardOutput
        out.write(Data((Self.lines(report).joined(separator: "\n") + "\n").utf8))
        if !report.leaks.isEmpty { throw ExitCode(3) }
    }

    /// The second detector on the full-size frame, in f32, resolved. A model that is not
    /// installed (YuNet and UltraFace are fetched, not installed by Scripts/install-deps.sh) fails
    /// with how to get it or leave the check out.
    private func secondDetector() throws -> ResolvedFaceDetector {
        var options = FaceDetectorOptions(backend: secondFaces, minFace: detector.size.minFace(for: secondFaces), detectWidth: 0)
        options.runtime = detector.dnnRuntime
        options.precision = .f32
        options.threshold = secondThreshold
        let store = ModelStore()
        if let model = secondFaces.model, store.installedPath(model) == nil {
            let rest = LeakCheck.allCases.filter { $0 != .secondDetector && selected.contains($0) }.map(\.rawValue).joined(separator: ",")
            throw SightlineError.detectorUnavailable(
                name: secondFaces.rawValue,
                reason: "the second detector's model \(model.file) is not installed (looked in \(store.searchDirectories.joined(separator: ", "))); "
                    + "fetch it with `sightline models fetch \(model.name)`, or leave this check out with --checks \(rest.isEmpty ? "detector,identity" : rest)")
        }
        return try options.resolve(store: store)
    }

    /// Each leak, a line per check, and the total.
    static func lines(_ report: LeakReport) -> [String] {
        let names = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.check, $0.detector?.rawValue ?? "identity") })
        var lines = report.leaks.map { leak in
            "frame \(leak.frame) t=\(String(format: "%.3f", leak.t)) s: \(names[leak.check]!): "
                + String(format: "face at x=%.0f y=%.0f w=%.0f h=%.0f", leak.box.x, leak.box.y, leak.box.w, leak.box.h)
                + " (\(leak.check == .identity ? "similarity" : "score") \(String(format: "%.3f", leak.score)))"
        }
        for check in report.checks {
            let found = "\(check.leaks.count) leaked faces in \(check.leakedFrames) of \(report.frames) frames"
            if let detector = check.detector {
                lines.append("\(check.check.rawValue) (\(detector.rawValue), score ≥ \(String(format: "%.2f", check.threshold))): \(found) "
                             + "(the original shows \(check.originalFaces) faces, the anonymized video \(check.anonymizedFaces ?? 0))")
            } else {
                lines.append("\(check.check.rawValue) (SFace, similarity ≥ \(String(format: "%.3f", check.threshold))): \(found) "
                             + "(\(check.originalFaces) faces of the original from \(Int(LeakAudit.identityMinFace)) px compared)")
            }
        }
        lines.append("\(report.leaks.count) leaked faces in \(report.leakedFrames) of \(report.frames) frames")
        return lines
    }
}

/// The audit looks at the full-size frame, for faces from 16 px.
enum AuditFaces: FaceSizeDefaults {
    static let minFace = 16
    static let minFaceHelp = "Smallest face both detector checks look for, in pixels of the displayed frame."
    static let faceWidth = 0
    static let faceWidthHelp = "Width the frames are scaled to for the detector check (0: full size)."
}
