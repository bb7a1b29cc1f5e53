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

    @Option(help: "Start at this time in seconds, like ffmpeg's -ss.")
    var start: Double?

    @Option(help: "Stop after this many seconds, like ffmpeg's -t.")
    var duration: Double?

    @Option(help: """
        Face detector: haar-alt2 (OpenCV frontalface_alt2, the default), haar (frontalface_default), \
        lbp (lbpcascade_frontalface_improved), yunet (YuNet, 5 landmarks), ultraface (UltraFace \
        RFB-320), ultraface-640 (UltraFace RFB-640), or off. The DNN backends need their model: \
        `sightline models fetch NAME`, or --face-model.
        """)
    var faces: FaceBackend = .haarAlt2

    @Option(name: .customLong("face-model"), help: """
        Model file for a DNN backend, instead of the installed one (any compatible ONNX file; \
        not checked against the known checksum, but its sha256 is written to the stream record).
        """)
    var faceModel: String?

    @Option(name: .customLong("face-threshold"), help: "DNN backends: smallest confidence (0..1) reported (default: 0.9 for yunet, 0.7 for ultraface).")
    var faceThreshold: Double?

    @Flag(name: .customLong("face-gray"), help: "DNN backends: give the model the luma plane in all three channels instead of colour.")
    var faceGray = false

    @Option(name: .customLong("min-face"), help: "Smallest face to find, in pixels of the displayed frame.")
    var minFace: Int = 40

    @Option(name: .customLong("face-width"), help: """
        Width the frame is scaled down to for face detection (0: full size). The cascade cannot \
        see faces smaller than its window (20 px for haar-alt2, 24 for haar, 45 for lbp) in the \
        scaled image: with 640, that is 40 px at 720p and 60 px at 1080p for haar-alt2. yunet \
        uses it too (its smallest prior box is 10 px); ultraface scales the frame to its fixed \
        input (320x240 or 640x480) instead.
        """)
    var faceWidth: Int = 640

    @Option(name: .customLong("face-step"), help: "Scale step between the face detector's pyramid levels (larger: faster, coarser).")
    var faceStep: Double = 1.1

    @Option(name: .customLong("face-attributes"), help: """
        Search each face for eyes and a smile: eye and mouth positions, smile, closed eyes, roll \
        (on or off; about 8 ms per face on one core, more than the face detector itself with ultraface).
        """)
    var faceAttributes: Switch = .off

    @Option(help: "Code reader: zxing (zxing-cpp), zbar, or off.")
    var codes: CodeBackend = .zxing

    @Option(help: "Comma-separated symbologies to look for (default: all the reader knows). Known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).")
    var symbologies: String?

    @Option(help: "Analysis worker threads (default: all cores).")
    var threads: Int?

    @Option(name: .customLong("detect-every"), help: """
        Run the full-frame detectors on every Nth frame only; in between, known faces and codes \
        are searched for around their predicted place (new objects appear within N frames).
        """)
    var detectEvery: Int = 1

    @Option(name: .customLong("max-gap"), help: "Frames a track may go unseen before it ends.")
    var maxGap: Int = 15

    @Option(help: "Also write the video with the overlays drawn in, as a fragmented MP4 (H.264).")
    var render: String?

    @Option(help: "How --render draws: boxes (labelled boxes and code outlines), blur or pixelate (anonymized).")
    var style: OverlayStyle = .boxes

    @Option(help: "What blur/pixelate hide: faces, or faces,codes.")
    var anonymize: String = "faces"

    @Option(help: "x264 quality for --render (0–51, lower is better).")
    var crf: Int = 23

    @Option(help: "x264 preset for --render (ultrafast … veryslow).")
    var preset: String = "veryfast"

    @Option(name: .customLong("decoder-threads"), help: "Decoder threads (default: 0, chosen by libavcodec).")
    var decoderThreads: Int = 0

    @Flag(name: .customLong("allow-network"), help: "Let the input be a network URL or a playlist that opens other files (refused by default).")
    var allowNetwork = false

    @Flag(help: "Add the wall time to the summary record (output then differs between runs).")
    var timing = false

    @Flag(name: .shortAndLong, help: "No progress output on standard error.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Show FFmpeg's warnings about the input on standard error.")
    var verbose = false

    func validate() throws {
        if let stream, stream < 0 { throw ValidationError("--stream must be 0 or more, not \(stream).") }
        if let start, !(start >= 0 && start.isFinite) { throw ValidationError("--start must be a time of 0 seconds or more.") }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be more than 0 seconds.") }
        if !(1...100_000).contains(minFace) { throw ValidationError("--min-face must be between 1 and 100000 pixels, not \(minFace).") }
        if faceWidth != 0 && !(32...16_384).contains(faceWidth) { throw ValidationError("--face-width must be 0 (full size) or between 32 and 16384, not \(faceWidth).") }
        if !(faceStep > 1.0 && faceStep <= 2.0) { throw ValidationError("--face-step must be more than 1 and at most 2, not \(faceStep).") }
        if !(1...1000).contains(detectEvery) { throw ValidationError("--detect-every must be between 1 and 1000, not \(detectEvery).") }
        if !(0...100_000).contains(maxGap) { throw ValidationError("--max-gap must be between 0 and 100000 frames, not \(maxGap).") }
        if !(0...51).contains(crf) { throw ValidationError("--crf must be between 0 and 51, not \(crf).") }
        let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
        if !presets.contains(preset) { throw ValidationError("--preset must be one of \(presets.joined(separator: ", ")), not '\(preset)'.") }
        let hidden = Set(anonymize.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if !hidden.isSubset(of: ["faces", "codes"]) || !hidden.contains("faces") {
            throw ValidationError("--anonymize must be faces or faces,codes, not '\(anonymize)'.")
        }
        if !(0...64).contains(decoderThreads) { throw ValidationError("--decoder-threads must be between 0 and 64, not \(decoderThreads).") }
        if let faceThreshold, !(faceThreshold >= 0 && faceThreshold <= 1) { throw ValidationError("--face-threshold must be between 0 and 1, not \(faceThreshold).") }
        if faces.model == nil {
            if faceModel != nil { throw ValidationError("--face-model needs a DNN backend (--faces yunet, ultraface or ultraface-640).") }
            if faceThreshold != nil { throw ValidationError("--face-threshold needs a DNN backend (--faces yunet, ultraface or ultraface-640).") }
        }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256, not \(threads).") }
        let codeOptions = try codeReaderOptions()
        let unsupported = codeOptions.unsupportedSymbologies()
        if !unsupported.isEmpty {
            throw ValidationError("--codes \(codes.rawValue) cannot read \(unsupported.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func codeReaderOptions() throws -> CodeReaderOptions {
        var set = Set<Symbology>()
        for name in (symbologies ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            guard let s = Symbology(rawValue: name) else {
                throw ValidationError("unknown symbology '\(name)' in --symbologies; known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            set.insert(s)
        }
        return CodeReaderOptions(backend: codes, symbologies: set)
    }

    func run() throws {
        var faceOptions = FaceDetectorOptions(backend: faces, minFace: minFace, detectWidth: faceWidth)
        faceOptions.scaleFactor = faceStep
        faceOptions.attributes = faceAttributes == .on
        faceOptions.threshold = faceThreshold
        faceOptions.modelPath = faceModel
        faceOptions.color = !faceGray
        // Find (and hash) the DNN model before opening the input: a missing model is reported first.
        faceOptions = try faceOptions.resolvingModel()
        let codeOptions = try codeReaderOptions()
        VideoFileSource.showLibraryWarnings(verbose)
        let source = try VideoFileSource(path: input, options: SourceOptions(
            streamIndex: stream, start: start, duration: duration, allowNetwork: allowNetwork,
            decoderThreads: decoderThreads, keepAudio: render != nil))
        let pipeline = try AnalysisPipeline(source: source, faces: faceOptions, codes: codeOptions,
                                          threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
                                          detectEvery: detectEvery)
        let tracking = try TrackingStage(tracker: TrackerOptions(maxGap: maxGap), detectEvery: detectEvery,
                                         faces: faceOptions, codes: codeOptions)
        let writer = try JSONLinesWriter(path: output)
        let renderer = try render.map { path in
            OverlayRenderer(style: style, anonymizeCodes: anonymize.contains("codes"),
                            writer: try MP4Writer(path: path, source: source, options: EncoderOptions(crf: crf, preset: preset)),
                            audioFrom: source)
        }
        let progress = Progress(enabled: !quiet && isatty(STDERR_FILENO) != 0,
                                totalFrames: expectedFrames(source.info))

        // SIGINT/SIGTERM: stop reading, finish the frames in flight, write the summary.
        signal(SIGPIPE, SIG_IGN)
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { pipeline.stop() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        let clock = ContinuousClock.now
        try writer.write(StreamRecord(tool: "sightline \(sightlineVersion)", stream: source.info,
                                      faces: faceOptions, codes: codeOptions, tracking: tracking.configuration,
                                      start: start, duration: duration).json)
        var summary = SummaryRecord()
        let result = try pipeline.run { analyzed, frame in
            let (record, ended) = tracking.process(analyzed, frame: frame)
            try writer.write(record.json)
            try renderer?.render(record, on: frame)
            summary.add(record)
            for track in ended { try writer.write(track.json) }
            summary.tracks += ended.count
            progress.update(frames: record.index + 1, seconds: record.t)
        }
        progress.finish()
        try renderer?.finish()
        let remaining = tracking.finish()
        for track in remaining { try writer.write(track.json) }
        summary.tracks += remaining.count
        summary.analyzerErrors = result.analyzerErrors.count + tracking.errors
        summary.damage = result.damage
        summary.interrupted = result.interrupted
        if timing {
            summary.wallSeconds = (ContinuousClock.now - clock).seconds
        }
        try writer.write(summary.json)

        if result.interrupted { throw ExitCode(130) }
        if !result.damage.isEmpty {
            var reasons: [String] = []
            if result.damage.corruptFrames > 0 { reasons.append("\(result.damage.corruptFrames) corrupt packets or frames skipped") }
            if let readError = result.damage.readError { reasons.append(readError) }
            throw SightlineError.inputDamaged(path: input, reason: reasons.joined(separator: "; ") + " (\(summary.frames) frames analyzed)")
        }
    }
}

extension Analyze {
    /// Frames the run should see, for the progress line: the container's count, less what
    /// --start skips and --duration leaves out.
    func expectedFrames(_ info: VideoStreamInfo) -> Int? {
        let fps = info.frameRate.den > 0 ? Double(info.frameRate.num) / Double(info.frameRate.den) : 0
        var frames = info.frameCountHint
        if let start, let total = frames { frames = max(0, total - Int(start * fps)) }
        if let duration, fps > 0 { frames = min(frames ?? Int.max, Int((duration * fps).rounded(.up))) }
        return frames
    }
}

/// An on/off option value.
enum Switch: String, ExpressibleByArgument { case on, off }

extension FaceBackend: ExpressibleByArgument {}
extension OverlayStyle: ExpressibleByArgument {}
extension CodeBackend: ExpressibleByArgument {}
