import ArgumentParser
import Foundation
import Sightline

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Triage an archive: look for faces and codes on key frames only, and write where something was seen.",
        discussion: """
            Decodes only key frames (every key frame at least --min-spacing apart, or with --every \
            the first key frame at or after each interval's start) and runs the full face detection \
            and code search on them. The index (JSON Lines) has a `scan` record, then per file its \
            `scan_file` record, a `sampled_frame` record per sample (no track ids), a `span` record \
            per stretch where something was seen (widened to the neighbouring samples, since the \
            object may be there between them) and its `scan_totals`; a `scan_summary` last. It can \
            miss an object visible only between two samples. `sightline plan --from-scan INDEX` \
            plans exact runs of the spans. A file that cannot be read gets one line on standard \
            error and a `scan_totals` record saying so, and the scan goes on. Exit 0 when every file \
            was read; the first failed file's code (66 missing, 65 not a video, 67 no video stream) \
            when one failed; else 2 when one was damaged. The index is the same bytes for any --threads.
            """
    )

    @Argument(help: "Video files, or folders (their video files, by name).")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Where to write the index (- for standard output).")
    var output: String = "-"

    @Option(help: ArgumentHelp("Sample the first key frame at or after every multiple of this many seconds, instead of every key frame.", valueName: "SECONDS"))
    var every: Double?

    @Option(name: .customLong("min-spacing"), help: ArgumentHelp("Without --every: seconds between two key frames sampled at least (an all-intra file, where every frame is a key frame, is sampled this often).", valueName: "SECONDS"))
    var minSpacing: Double = KeyFrameSampling.defaultMinimumSpacing

    @Option(help: "Index of the video stream to read (default: the best video stream of each file).")
    var stream: Int?

    @Flag(name: .shortAndLong, help: "No progress line and no closing line on standard error (failed files are still reported).")
    var quiet = false

    @OptionGroup var detectors: DetectorOptions

    @OptionGroup(title: "Performance") var performance: PerformanceOptions

    @OptionGroup(title: "Input") var decoding: InputOptions

    func validate() throws {
        if let every, !(every > 0 && every.isFinite) { throw ValidationError("--every must be more than 0 seconds.") }
        if !(minSpacing >= 0 && minSpacing.isFinite) { throw ValidationError("--min-spacing must be a time of 0 seconds or more.") }
        if let stream, stream < 0 { throw ValidationError("--stream must be 0 or more, not \(stream).") }
    }

    func run() throws {
        let lanes = performance.workers
        var options = ScanOptions(sampling: KeyFrameSampling(every: every, minimumSpacing: minSpacing),
                                  faces: detectors.faceDetectorOptions(), codes: try detectors.codeReaderOptions())
        options.threads = lanes
        options.streamIndex = stream
        options.allowNetwork = decoding.allowNetwork
        options.decoderThreads = decoding.decoderThreads(default: 0)
        // The detectors are set up before anything is read: what is missing is reported first.
        let scanner = try ArchiveScanner(options)
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        let files = try ShardPlanner.expand(inputs, keepMissing: true)
        guard !files.isEmpty else { throw ValidationError("No video files in \(inputs.joined(separator: ", ")).") }
        let index = try JSONLinesWriter(path: output)
        // Files done, and the last one's samples and spans.
        let progress = ProgressLine(quiet: quiet, totalFrames: nil)
        let summary = try scanner.scan(files, into: index) { file, done in
            progress.finish()
            if let note = note(file) { FileHandle.standardError.write(Data("sightline: \(note)\n".utf8)) }
            progress.show("scan: \(done)/\(files.count) files  \((file.source as NSString).lastPathComponent): "
                          + "\(file.samples.count) samples, \(file.spans.count) spans")
        }
        progress.finish()
        if !quiet {
            let line = String(format: "scan: %d files, %d with something seen (%.1f of %.1f s of video in spans), %d damaged, %d failed\n",
                              summary.files, summary.flagged, summary.spanSeconds, summary.videoSeconds, summary.damaged, summary.failed)
            FileHandle.standardError.write(Data(line.utf8))
        }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }

    /// The line a file gets on standard error: why it failed, its damage, or that it is all-intra.
    private func note(_ file: ScannedFile) -> String? {
        switch file.status {
        case .failed: return "\(file.failure.map { "\($0)" } ?? file.source) (not scanned; the scan goes on)"
        case .damaged: return "\(file.source): input damaged: \(file.damage) (scanned what decoded: \(file.samples.count) samples)"
        case .ok:
            guard file.allIntra, every == nil else { return nil }
            return String(format: "%@: every frame is a key frame (all-intra): sampled at most one every %g s (--min-spacing)", file.source, minSpacing)
        }
    }
}
