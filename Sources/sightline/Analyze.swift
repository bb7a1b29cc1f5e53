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

    @Option(name: .shortAndLong, help: "Where to write the JSON Lines (- for standard output).")
    var output: String = "-"

    @Option(help: "Index of the video stream to read (default: the best video stream).")
    var stream: Int?

    @Option(help: "Start at this time in seconds on the file's timeline (the origin of ffmpeg's -ss): the frames with start ≤ t are written.")
    var start: Double?

    @Option(help: "Stop after this many seconds, like ffmpeg's -t: the frames with t < start + duration are written.")
    var duration: Double?

    @Option(help: ArgumentHelp("Also analyze and track this many seconds before --start without writing them as frames (a shard's warm-up: tracks entering the span keep their state). Written as `warmup` records for `sightline merge`.", valueName: "SECONDS"))
    var warmup: Double?

    @OptionGroup var detection: DetectionOptions

    @Option(help: "Also write the video with the overlays drawn in, as a fragmented MP4 (H.264).")
    var render: String?

    @OptionGroup var rendering: RenderOptions

    @Option(help: ArgumentHelp("Write the best picture of every track as DIR/face-ID.png or DIR/code-ID.png.", valueName: "DIR"))
    var thumbnails: String?

    @Flag(help: "Add the wall time to the summary record (output then differs between runs).")
    var timing = false

    @Flag(name: .shortAndLong, help: "No progress output on standard error.")
    var quiet = false

    @OptionGroup var decoding: InputOptions

    func validate() throws {
        if let stream, stream < 0 { throw ValidationError("--stream must be 0 or more, not \(stream).") }
        if let start, !(start >= 0 && start.isFinite) { throw ValidationError("--start must be a time of 0 seconds or more.") }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be more than 0 seconds.") }
        if let warmup, !(warmup >= 0 && warmup.isFinite) { throw ValidationError("--warmup must be a time of 0 seconds or more.") }
        if warmup != nil && start == nil { throw ValidationError("--warmup needs --start (it is the time analyzed before the start).") }
    }

    func run() throws {
        // Find (and hash) the DNN model before opening the input: a missing model is reported first.
        let faceOptions = try detection.faceDetectorOptions()
        let codeOptions = try detection.codeReaderOptions()
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        // A mask image is loaded before any output exists: a bad one is reported first.
        let rendered = try render.map { path in (path: path, painter: try rendering.painter()) }
        let source = try decoding.open(input, stream: stream, start: start, duration: duration, warmup: warmup ?? 0,
                                       keepAudio: render != nil)
        let pipeline = try AnalysisPipeline(source: source, faces: faceOptions, codes: codeOptions,
                                          threads: detection.workerThreads, detectEvery: detection.detectEvery)
        let tracking = try TrackingStage(tracker: detection.trackerOptions, detectEvery: detection.detectEvery,
                                         lanes: detection.workerThreads,
                                         faces: faceOptions, codes: codeOptions)
        // A part of a video (a shard) is written under a temporary name and renamed when complete,
        // so a killed or failed run never leaves a file that looks finished.
        let partial = output != "-" && (start != nil || duration != nil) ? output + ".partial" : nil
        let writer = try JSONLinesWriter(path: partial ?? output)
        let renderer = try rendered.map { path, painter in
            OverlayRenderer(painter: painter,
                            writer: try MP4Writer(path: path, source: source, options: rendering.encoder),
                            audioFrom: source)
        }
        let out = RunOutput(tracking: tracking, writer: writer, renderer: renderer,
                            thumbnails: try thumbnails.map { try ThumbnailCollector(directory: $0) },
                            progress: Progress(quiet: quiet,
                                               totalFrames: Progress.expectedFrames(source.info, start: start, duration: duration)))
        if let start, warmup != nil { out.warmupEnds = start }

        // SIGINT/SIGTERM: stop reading, finish the frames in flight, write the summary.
        let signals = stopOnSignals { pipeline.stop() }
        defer { signals.forEach { $0.cancel() } }

        try writer.write(StreamRecord(tool: "sightline \(sightlineVersion)", stream: source.info,
                                      faces: faceOptions, codes: codeOptions, tracking: tracking.configuration,
                                      start: start, duration: duration, warmup: warmup).json)
        let result = try pipeline.run { try out.take($0, frame: $1) }
        try out.finish(result, timing: timing)

        if result.interrupted { throw ExitCode(130) }
        if let partial, rename(partial, output) != 0 {
            throw SightlineError.writeFailed(path: output, reason: "cannot rename \(partial) to it: \(String(cString: strerror(errno)))")
        }
        if !result.damage.isEmpty {
            throw SightlineError.inputDamaged(path: input, reason: "\(result.damage) (\(out.summary.frames) frames analyzed)")
        }
    }
}
