import ArgumentParser
import Foundation
import Sightline

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one frame with its overlays as a PNG still.",
        discussion: """
            The frame is the first whose time is at or after --at. Its observations come from \
            --records (which must be the output of `sightline analyze` on INPUT, exit code 65 \
            otherwise), or else from the detectors run on that frame alone (no tracking, so no \
            track ids). The still is upright as displayed (rotation applied).
            """
    )

    @Argument(help: "The video file to read (anything FFmpeg opens).")
    var input: String

    @Option(help: ArgumentHelp("Time of the frame, in seconds on the file's timeline (the origin of ffmpeg's -ss).", valueName: "SECONDS"))
    var at: Double

    @Option(help: "Take the observations from these records of `sightline analyze` instead of detecting.")
    var records: String?

    @Option(name: .shortAndLong, help: "Where to write the PNG.")
    var output: String

    @Option(help: "Index of the video stream to read, without --records (default: the best video stream).")
    var stream: Int?

    @Flag(help: "Also print the frame's record (what was drawn) as one JSON line on standard output.")
    var json = false

    @OptionGroup(title: "Overlays") var overlay: OverlayOptions

    @OptionGroup var detectors: DetectorOptions

    @OptionGroup(title: "Input") var decoding: InputOptions

    func validate() throws {
        if !(at >= 0 && at.isFinite) { throw ValidationError("--at must be a time of 0 seconds or more.") }
        if let stream, stream < 0 { throw ValidationError("--stream must be 0 or more, not \(stream).") }
        if records != nil && stream != nil { throw ValidationError("--stream cannot be combined with --records (the records name their stream).") }
    }

    func run() throws {
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        let painter = try overlay.painter()
        let replay = try records.map { path in try RecordReplay(records: path, input: input) }
        replay?.seeking = true
        // Without records the detectors run on the frame alone (no tracking): set them up (and
        // find a DNN model) before reading.
        let analysis = try replay.map { Analysis.replay($0) } ?? detectors.analysis()
        let source = try decoding.open(input, stream: replay?.streamIndex ?? stream, start: at)
        try replay?.check(source.info)
        var configuration = RunConfiguration(source: source, analysis: analysis)
        // One frame alone: every detector, the full code search, no track ids.
        configuration.schedule = Schedule(detectEvery: 1, codeFullEvery: 1)
        configuration.tracking = nil
        configuration.frameLimit = 1
        let still = StillSink(painter: painter, path: output)
        try Run(configuration).run(into: [still])
        guard let record = still.record else {
            let end = source.info.duration.map { String(format: " (the video ends at %.3f s)", $0) } ?? ""
            throw SightlineError.timeOutOfRange(path: input, reason: String(format: "no frame at or after --at %.3f s", at) + end)
        }
        if json { print(record.json.serialized()) }
    }
}
