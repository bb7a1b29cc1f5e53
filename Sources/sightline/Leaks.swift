import ArgumentParser
import Foundation
import Sightline

struct Leaks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find faces an anonymized video still shows: detections that overlap a face of the same frame of the original.",
        discussion: """
            Runs a face detector over both videos, frame by frame (no tracking). The default is \
            not the configuration `anonymize` masks with: CenterFace on the full-size frame at \
            confidence 0.3. Every detection in an anonymized frame that overlaps (IoU ≥ \
            --min-overlap) a detection in the same frame of the original is a leak. Prints the \
            count and each leak; exit code 0 with no leak, 3 with leaks.
            """
    )

    @Argument(help: "The original video.")
    var original: String

    @Argument(help: "The anonymized video (the same frames, in the same order).")
    var anonymized: String

    @Option(help: "Also write the counts and every leak as JSON to this file (- for standard output).")
    var json: String?

    @OptionGroup var detector: DNNDetectorOptions

    @Option(name: .customLong("face-width"), help: "Width the frames are scaled to for detection (0: full size).")
    var faceWidth: Int = 0

    @Option(name: .customLong("face-threshold"), help: "Smallest detector confidence (0..1) that counts as a face.")
    var faceThreshold: Double = 0.3

    @Option(name: .customLong("min-face"), help: "Smallest face to find, in pixels of the displayed frame.")
    var minFace: Int = 16

    @Option(name: .customLong("min-overlap"), help: "Overlap (intersection over union, 0..1) from which a detection in the anonymized frame is the original's face.")
    var minOverlap: Double = LeakAudit.defaultMinOverlap

    @Option(help: "Analysis worker threads (default: all cores).")
    var threads: Int?

    @OptionGroup var decoding: InputOptions

    func validate() throws {
        if faceWidth != 0 && !(32...16_384).contains(faceWidth) { throw ValidationError("--face-width must be 0 (full size) or between 32 and 16384, not \(faceWidth).") }
        if !(faceThreshold >= 0 && faceThreshold <= 1) { throw ValidationError("--face-threshold must be between 0 and 1, not \(faceThreshold).") }
        if !(1...100_000).contains(minFace) { throw ValidationError("--min-face must be between 1 and 100000 pixels, not \(minFace).") }
        if !(minOverlap > 0 && minOverlap <= 1) { throw ValidationError("--min-overlap must be more than 0 and at most 1, not \(minOverlap).") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256, not \(threads).") }
    }

    func run() throws {
        let workers = threads ?? ProcessInfo.processInfo.activeProcessorCount
        let detector = try self.detector.resolved(minFace: minFace, detectWidth: faceWidth, threshold: faceThreshold, workers: workers, precision: .f32)
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        // Both inputs open before any detection: a missing file fails at once.
        let originalSource = try decoding.open(original)
        let anonymizedSource = try decoding.open(anonymized)
        let before = try LeakAudit.faces(in: originalSource, detector: detector, threads: workers)
        let after = try LeakAudit.faces(in: anonymizedSource, detector: detector, threads: workers)
        if before.count != after.count {
            throw SightlineError.framesMismatch(path: anonymized, reason: "\(after.count) frames, the original \(original) has \(before.count)")
        }
        let report = LeakAudit.compare(original: before, anonymized: after, minOverlap: minOverlap)
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
        var lines = report.leaks.map { leak in
            String(format: "frame %d t=%.3f s: face at x=%.0f y=%.0f w=%.0f h=%.0f (score %.2f)", leak.frame, leak.t,
                   leak.box.x, leak.box.y, leak.box.w, leak.box.h, leak.score)
        }
        lines.append("\(report.leaks.count) leaked faces in \(report.leakedFrames) of \(report.frames) frames "
                     + "(the original shows \(report.originalFaces) faces, the anonymized video \(report.anonymizedFaces))")
        out.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        if !report.leaks.isEmpty { throw ExitCode(3) }
    }
}
