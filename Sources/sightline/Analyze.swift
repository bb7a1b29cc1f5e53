import ArgumentParser
import Foundation
import Sightline

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Analyze a video file: one JSON Lines record per frame with the faces and codes found.",
        discussion: """
            Output: a `stream` record, one `frame` record per decoded frame in presentation order \
            (also when nothing was found), and a `summary` record. Schemas/ describes each record. \
            The same input and options give byte-identical output for any --threads value.
            """
    )

    @Argument(help: "The video file to read (anything FFmpeg opens), or - for standard input.")
    var input: String

    @Option(help: "Index of the video stream to read (default: the best video stream).")
    var stream: Int?

    @Option(help: "Start at this time in seconds on the file's timeline (the origin of ffmpeg's -ss): the frames with start ≤ t are written.")
    var start: Double?

    @Option(help: "Stop after this many seconds, like ffmpeg's -t: the frames with t < start + duration are written (the next few are analyzed too, not written, so that what looking back finds on the span's last frames is as in the whole run).")
    var duration: Double?

    @Option(help: ArgumentHelp("Also analyze and track this many seconds before --start without writing them as frames (a shard's warm-up: tracks entering the span keep their state). Written as `warmup` records for `sightline merge`.", valueName: "SECONDS"))
    var warmup: Double?

    @OptionGroup var detection: DetectionOptions

    @OptionGroup(title: "Output") var outputs: OutputOptions

    @Option(help: "Also write the video with the overlays drawn in, as a fragmented MP4 (H.264).")
    var render: String?

    @OptionGroup(title: "Rendering") var rendering: RenderOptions

    @OptionGroup(title: "Input") var decoding: InputOptions

    func validate() throws {
        if let stream, stream < 0 { throw ValidationError("--stream must be 0 or more, not \(stream).") }
        if let start, !(start >= 0 && start.isFinite) { throw ValidationError("--start must be a time of 0 seconds or more.") }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be more than 0 seconds.") }
        if let warmup, !(warmup >= 0 && warmup.isFinite) { throw ValidationError("--warmup must be a time of 0 seconds or more.") }
        if warmup != nil && start == nil { throw ValidationError("--warmup needs --start (it is the time analyzed before the start).") }
    }

    func run() throws {
        // The detectors (and a DNN model) and a mask image are set up before the input opens:
        // what is missing is reported before any output exists.
        let analysis = try detection.analysis()
        let drawing = try render.map { (path: $0, painter: try rendering.painter()) }
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        // A span ends with a cool-down: the frames after it are analyzed (not written) until
        // looking back has completed the span's last frames, as in the whole run.
        let source = try decoding.open(input, stream: stream, start: start, duration: duration, warmup: warmup ?? 0,
                                       cooldownFrames: duration == nil ? 0 : TrackingStage.maxHeld, keepAudio: render != nil)
        var configuration = detection.configuration(source: source, analysis: analysis)
        if let start, warmup != nil { configuration.warmupEnds = start }
        configuration.outputEnds = duration.map { (start ?? 0) + $0 }
        configuration.timing = outputs.timing
        let run = try Run(configuration)
        let video = try drawing.map { path, painter in
            OverlayRenderer(painter: painter, writer: try MP4Writer(path: path, source: source, options: rendering.encoder), audioFrom: source)
        }
        let sinks = try outputs.sinks(
            progress: ProgressLine(quiet: outputs.quiet, totalFrames: ProgressLine.expectedFrames(source.info, start: start, duration: duration)),
            video: video, stream: StreamRecord(run: run, start: start, duration: duration, warmup: warmup),
            atomically: start != nil || duration != nil)
        let summary = try run.runStoppable(into: sinks)
        if summary.interrupted { throw ExitCode(130) }
        if let failure = run.analysisFailure(summary, path: input) { throw failure }
        if !summary.damage.isEmpty {
            throw SightlineError.inputDamaged(path: input, reason: "\(summary.damage) (\(summary.frames) frames analyzed)")
        }
    }
}
