import ArgumentParser
import Foundation
import Sightline

struct Anonymize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the video with every face covered: masks follow the face tracks through time.",
        discussion: """
            Detects and tracks faces (CenterFace by default) and covers each track's face with a \
            margin on every frame it is seen, through its detection gaps (interpolated), for \
            --hold frames after it was last seen, and for --look-back frames before it was first \
            seen. Audio is copied. Check the result with `sightline leaks INPUT OUTPUT`.
            """
    )

    @Argument(help: "The video file to anonymize (anything FFmpeg opens).")
    var input: String

    @Option(name: .shortAndLong, help: "Where to write the anonymized video (fragmented MP4, H.264).")
    var output: String

    @Option(help: "Also write the JSON Lines records of the faces the masks were made from.")
    var records: String?

    @Option(help: ArgumentHelp("What covers a face: blur (smoothed block averages, nothing of the face left), pixelate (large blocks), solid (black), or mask:IMAGE (the image scaled into the mask's box, blended by its alpha).",
                               valueName: "blur|pixelate|solid|mask:IMAGE"))
    var style: AnonymizeStyle = .blur

    @Option(name: .customLong("mask-shape"), help: "The mask's outline: ellipse or box (mask:IMAGE keeps the image's own outline).")
    var maskShape: MaskShape = .ellipse

    @Option(name: .customLong("mask-scale"), help: "The mask's size as a multiple of the face box's width and height (1: the box; an ellipse covers the box's corners from 1.42).")
    var maskScale: Double = AnonymizeOptions().maskScale

    @Option(help: "Frames a face stays covered at its predicted place after its track was last seen.")
    var hold: Int = AnonymizeOptions().hold

    @Option(name: .customLong("look-back"), help: "Frames before a track's first sighting covered at its first box (the video is delayed by this many frames in memory).")
    var lookBack: Int = AnonymizeOptions().lookBack

    @Option(name: .customLong("mask-threshold"), help: """
        Smallest detector confidence (0..1) that counts as a face, for masks and records (lower: \
        fewer misses, more harmless masks). Default: 0.15 for CenterFace's INT8 network (its scores of \
        faces under 24 px, darkened or partly covered, start there), 0.3 otherwise.
        """)
    var maskThreshold: Double?

    @OptionGroup(title: "Faces") var detector: DNNDetectorOptions<CoverFaces>

    @OptionGroup(title: "Tracking") var tracks: TrackOptions<CoverFaces>

    @OptionGroup var progress: ProgressOptions

    @OptionGroup(title: "Encoding") var encoding: EncoderArguments

    @OptionGroup(title: "Performance") var performance: PerformanceOptions

    @OptionGroup(title: "Input") var decoding: InputOptions

    func validate() throws {
        if !(maskScale >= 1 && maskScale <= 4) { throw ValidationError("--mask-scale must be between 1 and 4, not \(maskScale).") }
        if !(0...300).contains(hold) { throw ValidationError("--hold must be between 0 and 300 frames, not \(hold).") }
        if !(0...300).contains(lookBack) { throw ValidationError("--look-back must be between 0 and 300 frames, not \(lookBack).") }
        if let maskThreshold, !(maskThreshold >= 0 && maskThreshold <= 1) { throw ValidationError("--mask-threshold must be between 0 and 1, not \(maskThreshold).") }
    }

    func run() throws {
        let workers = performance.workers
        let options = AnonymizeOptions(style: style, shape: maskShape, maskScale: maskScale, hold: hold, lookBack: lookBack)
        // The detector, its model and a mask image are checked before the input opens.
        var faces = detector.options(threshold: maskThreshold, precision: .int8)
        faces.networkPriority = .memory
        if maskThreshold == nil { faces.threshold = AnonymizeOptions.defaultMaskThreshold(int8: faces.precisionInEffect == .int8) }
        let analysis = Analysis.detect(faces: try faces.resolve(), codes: CodeReaderOptions(backend: .off))
        if let path = style.maskPath { _ = try MaskImage(path: path) }
        VideoFileSource.showLibraryWarnings(decoding.verbose)
        // One decoder thread: each frame thread of libavcodec's holds frames of its own (14 MB at
        // 1080p for its default of three), and decoding is a small part of the run's time.
        let source = try decoding.open(input, keepAudio: true, defaultDecoderThreads: 1)
        var configuration = RunConfiguration(source: source, analysis: analysis)
        configuration.tracking = TrackerOptions(maxGap: tracks.maxGap)
        configuration.threads = workers
        configuration.schedule = Schedule(detectEvery: tracks.detectEvery)
        let run = try Run(configuration)

        var sinks: [FrameSink] = [ProgressLine(quiet: progress.quiet, totalFrames: ProgressLine.expectedFrames(source.info, start: nil, duration: nil))]
        // x264 on one thread: the detector keeps the cores busy, x264's frame threads would each
        // hold frames of their own (about 23 MB apiece at 1080p, 1.5 threads per core by default),
        // and a fixed count writes the same bytes on every machine. A 5-frame lookahead instead of
        // veryfast's 10 keeps 5 frames fewer (32 MB at 1080p); at --crf 22 its files are as large
        // as at 23 with 10, within 0.3 dB PSNR (docs/anonymization.md).
        let writer = try MP4Writer(path: output, source: source, options: encoding.options(defaultCRF: 22, threads: 1, lookahead: 5),
                                     metadata: source.containerMetadata)
        // A file is read twice: the frames held back for the look-back are decoded again when
        // written instead of being kept (a pipe or a network input is read once, and kept).
        var isFile = stat()
        let again = lookBack > 0 && stat(input, &isFile) == 0 && (isFile.st_mode & S_IFMT) == S_IFREG
            ? try? decoding.open(input, defaultDecoderThreads: 1) : nil
        sinks.append(try AnonymizingSink(options: options, writer: writer, audioFrom: source, frames: again))
        if let records { sinks.append(try RecordsSink(path: records, stream: StreamRecord(run: run))) }

        let signals = stopOnSignals { run.stop() }
        defer { signals.forEach { $0.cancel() } }
        let summary = try run.run(into: sinks)
        if summary.interrupted { throw ExitCode(130) }
        if let failure = run.analysisFailure(summary, path: input, consequence: " (faces on those frames may be left uncovered)") {
            throw failure
        }
        if !summary.damage.isEmpty {
            throw SightlineError.inputDamaged(path: input, reason: "\(summary.damage) (\(summary.frames) frames anonymized)")
        }
    }
}

/// Faces covered from 16 px (the whole frame on a 640 px frame as far as 40 px faces allow, the
/// smaller faces on full-size tiles in turn, as analyze finds them), the whole frame searched on
/// every second frame.
enum CoverFaces: FaceSizeDefaults, TrackDefaults {
    static let minFace = AnonymizeOptions.defaultMinFace
    static let minFaceHelp = """
        Smallest face to cover, in pixels of the displayed frame. Where the whole-frame pass (sized \
        for 40 px faces, see --face-width) cannot see faces this small, they are searched on \
        full-size tiles of the frame in turn, each face found is followed on every frame and \
        covered back to its first frame, and the video's last frame is searched on every tile \
        (docs/anonymization.md). 40 turns the tiles off: faster, large faces only.
        """
    static let faceWidth = FindFaces.faceWidth
    static let faceWidthHelp = """
        Width the frame is scaled down to for the whole-frame pass, as far as --min-face 40 allows \
        (0: the full-size frame on every detection, no tiles: 1.3 to 1.6 times the CPU).
        """
    static let detectEvery = 2
    static let detectEveryHelp = """
        Detect faces over the whole frame on every Nth frame; on the frames between, the same \
        network re-detects each known face on a crop around it (a crowd gets the whole frame again: \
        that is cheaper), and a face that appears between two whole-frame detections is covered \
        back to its first frame. 1: the whole frame on every frame.
        """
}

extension AnonymizeStyle: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { ["blur", "pixelate", "solid", "mask:IMAGE"] }
}

extension MaskShape: ExpressibleByArgument {}
