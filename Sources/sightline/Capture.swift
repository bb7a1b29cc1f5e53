import ArgumentParser
import Foundation
import Synchronization
import Sightline

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Analyze live cameras (V4L2) and network streams: the same records as analyze, written as frames arrive.",
        discussion: """
            Capture never waits for analysis: a frame that arrives while every analysis thread is \
            busy is only searched around the faces and codes known from the frames before it \
            (status `refined`); one too late even for that keeps its place on the timeline with a \
            frame record whose status is `dropped` (counted in the summary as dropped_frames). \
            --no-drop analyzes every frame in full instead and lets latency grow. Frames the camera driver itself had to drop are counted as \
            lost_frames. Timestamps are the driver's, from the first frame (time base 1/1000000).

            Stop with --duration, --frames, or Ctrl-C (SIGINT) / SIGTERM: the records and the \
            recording are finished cleanly, the summary says interrupted, and the exit code is 0. \
            SIGUSR1 pauses and resumes --record while analysis goes on.

            Errors: no such device 66; not a capture device 67; size, frame rate or format not \
            offered 69; camera busy 75; permission denied 77; the camera stopped sending frames \
            mid-run 2 (the output is complete up to there); with --publish, the broker unreachable \
            or the TLS handshake failed 69, the credentials refused 77 (before any frame).

            A network camera or stream: give its rtsp://, rtsps://, srt:// or udp:// URL instead \
            of --device (other schemes are refused; analyze never opens network URLs). When the \
            stream drops it is opened again with back-off (0.25 s doubling to 4 s; given up after \
            60 s without frames: exit 2); a discontinuity record marks each reconnection and the \
            frames missed are counted as lost_frames. No stream within 5 s at the start: exit 66. \
            The stream is read from the moment it is opened, but the first record is the newest \
            frame when the capture is ready (the networks made ready, every camera opened): the \
            frames before are counted as frames_before_start, not analyzed.

            Several cameras in one process: --camera NAME=SOURCE for each (SOURCE a /dev/videoN or \
            a network URL). They share one set of analysis threads, which take their frames in \
            turn; each has its own records (-o DIR: DIR/NAME.jsonl; --record DIR: DIR/NAME.mp4; \
            --thumbnails DIR: DIR/NAME/), its own dropped-frame counts, and its own topics with \
            --publish. A camera that fails ends alone (its error on standard error); the others go \
            on, and the exit code is the first failure's.

            Live, records are written as soon as their frame is analyzed (--look-back holds them \
            for exact first frames); the summary gives latency_ms: each frame's arrival to its \
            record written and published (p50, p95, max).
            """
    )

    @Argument(help: "A network stream's rtsp://, rtsps://, srt:// or udp:// URL (instead of --device).")
    var url: String?

    @Option(help: "The camera device (default: /dev/video0).")
    var device: String?

    @Option(name: .customLong("camera"), help: ArgumentHelp("""
        A camera of several, by name: SOURCE is a /dev/videoN device or a network URL; repeat for \
        each camera (-o and --record then name directories).
        """, valueName: "NAME=SOURCE"))
    var cameras: [NamedCamera] = []

    @Option(help: "Picture size to ask for, WIDTHxHEIGHT (default: the camera's current size).")
    var size: FrameSize?

    @Option(help: "Frame rate to ask for (default: the camera's current rate).")
    var fps: Double?

    @Option(help: "Also record the video with the overlays drawn in, as a fragmented MP4 (H.264).")
    var record: String?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(help: "Stop after this many frames.")
    var frames: Int?

    @Flag(help: "Turn the picture left to right, as front cameras show it (records and recording agree).")
    var mirror = false

    @Flag(name: .customLong("no-drop"), help: """
        Analyze every frame: up to \(Capture.backlog) frames wait for analysis (latency grows); \
        beyond that the camera driver drops frames (counted as lost_frames).
        """)
    var noDrop = false

    @Flag(name: .customLong("look-back"), help: """
        Hold frames until the next full search, so each track begins on the first frame its object         shows, as analyze does (records come up to half a second later). Default: each record is         written as soon as its frame is analyzed; a track begins on the frame its object was found on.
        """)
    var lookBack = false

    @OptionGroup var detection: DetectionOptions

    @OptionGroup(title: "Output") var outputs: OutputOptions

    @OptionGroup(title: "Recording (--record)") var rendering: RenderOptions

    @OptionGroup(title: "Publishing to an MQTT broker (--publish)") var publishing: PublishOptions

    /// Frames --no-drop lets wait for analysis (8 s at 30 fps; about 330 MB at 720p).
    static let backlog = 240

    func validate() throws {
        if !cameras.isEmpty {
            if url != nil || device != nil { throw ValidationError("give the cameras with --camera NAME=SOURCE, or one URL or --device, not both.") }
            if Set(cameras.map(\.name)).count != cameras.count { throw ValidationError("each --camera needs a name of its own.") }
            if outputs.output == "-" { throw ValidationError("with --camera, -o names a directory for NAME.jsonl (standard output cannot hold several cameras).") }
        }
        if let url {
            guard NetworkOptions.isNetworkURL(url) else {
                throw ValidationError("'\(url)' is not an rtsp://, rtsps://, srt:// or udp:// URL (a V4L2 camera is given with --device).")
            }
            if size != nil || fps != nil || mirror { throw ValidationError("--size, --fps and --mirror are for V4L2 cameras, not network streams.") }
        }
        if duration != nil && frames != nil { throw ValidationError("give --duration or --frames, not both.") }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be more than 0 seconds.") }
        if let frames, frames < 1 { throw ValidationError("--frames must be 1 or more, not \(frames).") }
        if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps must be more than 0 and at most 1000, not \(fps).") }
    }

    func run() throws {
        // The detectors, a mask image and every broker connection are set up before any camera
        // opens: refused credentials stop here.
        let analysis = try detection.analysis()
        let painter = try record.map { _ in try rendering.painter() }
        VideoFileSource.showLibraryWarnings(false)   // the encoder's chatter
        let named = cameras.isEmpty
            ? [NamedCamera(name: "camera", source: url ?? device ?? "/dev/video0")]
            : cameras
        let several = !cameras.isEmpty
        if several {
            for directory in [outputs.output, record, outputs.thumbnails].compactMap({ $0 }) {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
        }
        let publishers = try named.map { camera in
            try publishing.broker().map { broker in
                try MQTTPublisher(options: broker, camera: camera.name, will: broker.topic(camera.name, "status")) { message in
                    FileHandle.standardError.write(Data("\nsightline: \(camera.name): \(message)\n".utf8))
                }
            }
        }
        defer { publishers.forEach { $0?.close() } }
        // One set of analysis threads for every camera (a run of its own for a single one).
        var shared: AnalysisWorkers?
        if several, case let .detect(faces, codes) = analysis {
            shared = try AnalysisWorkers(faces: faces.forLiveSource, codes: codes, count: detection.performance.workers,
                                         sharing: detection.performance.workers)
        }
        defer { shared?.shutdown() }

        // Every camera is opened at once: a network stream's packets sent before it is opened are
        // never received, so cameras opened in turn each lost the seconds the ones before took to
        // probe. Opened, a stream is read on (and counted in `frames_before_start`) until its run starts.
        let opened = OpenedInputs(count: named.count)
        DispatchQueue.concurrentPerform(iterations: named.count) { i in
            opened.set(i, Result { try open(named[i].source) })
        }
        var runs: [CameraRun] = []
        let failures = Mutex<[Error]>([])
        for (i, (camera, publisher)) in zip(named, publishers).enumerated() {
            do {
                let live = try opened.result(i).get()
                runs.append(try setUp(camera, live: live, publisher: publisher, analysis: analysis, painter: painter,
                                      shared: shared, several: several))
            } catch where several {
                // A camera that cannot be opened leaves the others to go on.
                FileHandle.standardError.write(Data("sightline: \(camera.name): \(error)\n".utf8))
                failures.withLock { $0.append(error) }
            }
        }

        // SIGUSR1 pauses and resumes the recordings; SIGINT and SIGTERM stop every camera.
        let pause = onSignal(SIGUSR1) {
            let nowPaused = Self.paused.toggle()
            if record != nil, !outputs.quiet {
                FileHandle.standardError.write(Data("\nsightline: recording \(nowPaused ? "paused" : "resumed")\n".utf8))
            }
        }
        let stoppable = runs.map(\.run)
        let signals = stopOnSignals { stoppable.forEach { $0.stop() } }
        defer { pause.cancel(); signals.forEach { $0.cancel() } }
        let group = DispatchGroup()
        for camera in runs {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let summary = try camera.run.run(into: camera.sinks)
                    if let failure = camera.run.analysisFailure(summary, path: camera.path) { throw failure }
                    if let readError = summary.damage.readError {
                        throw SightlineError.inputDamaged(path: camera.path, reason: readError + " (\(summary.frames) frames captured)")
                    }
                } catch {
                    failures.withLock { $0.append(error) }
                    // Alone, the error is the command's; among several, each camera's is said as it happens.
                    if several { FileHandle.standardError.write(Data("sightline: \(camera.name): \(error)\n".utf8)) }
                }
            }
            thread.name = "sightline.camera.\(camera.name)"
            thread.start()
        }
        group.wait()
        if let first = failures.withLock({ $0.first }) {
            // Among several cameras, each error was said as it happened: the first one's code.
            if several { throw ExitCode((first as? SightlineError)?.exitCode ?? 1) }
            throw first
        }
    }

    /// An opened camera's run made (its networks ready: a camera starts streaming then) and its
    /// outputs created.
    private func setUp(_ camera: NamedCamera, live: LiveInput, publisher: MQTTPublisher?, analysis: Analysis, painter: OverlayPainter?,
                       shared: AnalysisWorkers?, several: Bool) throws -> CameraRun {
        var configuration = detection.configuration(source: live.source, analysis: analysis)
        configuration.backpressure = noDrop ? .queue(backlog: Self.backlog) : .dropLateFrames
        configuration.lookBack = lookBack
        configuration.schedule.everyTileFirst = lookBack
        configuration.timing = outputs.timing
        configuration.sharedWorkers = shared
        let run = try Run(configuration)
        let progress = ProgressLine(quiet: outputs.quiet || several, totalFrames: frames)
        progress.note = live.note
        var recorder: OverlayRenderer?
        if let path = record.map({ several ? $0 + "/\(camera.name).mp4" : $0 }), let painter {
            recorder = OverlayRenderer(painter: painter, writer: try MP4Writer(path: path, stream: live.source.info, options: rendering.encoder))
            recorder?.isPaused = { Self.paused.isRequested }
        }
        var stream = StreamRecord(run: run, duration: duration)
        stream.camera = live.camera
        stream.camera?.dropLateFrames = !noDrop
        var output = outputs
        if several {
            stream.cameraName = camera.name
            output.output += "/\(camera.name).jsonl"
            output.thumbnails = outputs.thumbnails.map { $0 + "/\(camera.name)" }
        }
        let published = publisher.map { MQTTSink(publisher: $0, camera: camera.name, stream: stream, frames: publishing.frames) }
        return CameraRun(name: camera.name, path: live.path, run: run,
                         sinks: try output.sinks(progress: progress, video: recorder, stream: stream, publisher: published))
    }

    /// Set by SIGUSR1: the recordings are paused.
    private static let paused = SignalFlag()

    private func open(_ source: String) throws -> LiveInput {
        NetworkOptions.isNetworkURL(source) ? try openNetwork(source) : try openCamera(source)
    }
}

/// One camera's run and its outputs, run on a thread of its own.
private struct CameraRun: @unchecked Sendable {
    // @unchecked Sendable: made on the command's thread, then used only by the camera's thread.
    var name: String
    var path: String
    var run: Run
    var sinks: [FrameSink]
}

/// The cameras' inputs, each opened on a thread of its own.
private final class OpenedInputs: @unchecked Sendable {
    // @unchecked Sendable: every slot is written under the lock, and read once every opening is done.
    private var results: [Result<LiveInput, Error>?]
    private let lock = NSLock()

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<LiveInput, Error>) { lock.withLock { results[index] = result } }

    func result(_ index: Int) -> Result<LiveInput, Error> { lock.withLock { results[index]! } }
}

/// `--camera NAME=SOURCE`.
struct NamedCamera: ExpressibleByArgument {
    var name: String
    var source: String

    init(name: String, source: String) {
        (self.name, self.source) = (name, source)
    }

    init?(argument: String) {
        guard let equals = argument.firstIndex(of: "=") else { return nil }
        name = String(argument[..<equals])
        source = String(argument[argument.index(after: equals)...])
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
        guard !name.isEmpty, name.count <= 64, name.allSatisfy(allowed.contains), !name.hasPrefix("."), !source.isEmpty,
              source.hasPrefix("/dev/") || NetworkOptions.isNetworkURL(source) else { return nil }
    }
}

/// What a capture reads: a V4L2 camera or a network stream, with what the progress line and the
/// stream record say about it.
private struct LiveInput {
    var source: FrameSource
    /// The device or URL, for error lines.
    var path: String
    var camera: CameraFacts?
    var note: (FrameRecord, _ dropped: Int) -> String
}

extension Capture {
    private func openCamera(_ device: String) throws -> LiveInput {
        let camera = try CameraSource(options: CameraOptions(device: device, size: size, fps: fps, mirror: mirror,
                                                             maxFrames: frames, maxSeconds: duration))
        return LiveInput(source: camera, path: device, camera: camera.camera) { record, dropped in
            let latency = camera.latency(pts: record.pts).map { String(format: "latency %.2fs  ", $0) } ?? ""
            return latency + "dropped \(dropped)  lost \(camera.lostFrames)"
        }
    }

    /// A network stream: the same run as a camera's, from libavformat, reopened when it drops.
    private func openNetwork(_ url: String) throws -> LiveInput {
        let source = try NetworkSource(options: NetworkOptions(url: url, maxFrames: frames, maxSeconds: duration))
        let quiet = outputs.quiet
        source.log = { message in
            if !quiet { FileHandle.standardError.write(Data("\nsightline: \(url): \(message)\n".utf8)) }
        }
        return LiveInput(source: source, path: url, camera: nil) { _, dropped in
            "dropped \(dropped)  lost \(source.lostFrames)  reconnections \(source.reconnections)"
        }
    }
}

extension FrameSize: ExpressibleByArgument {
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (16...16_384).contains(w), (16...16_384).contains(h) else { return nil }
        self.init(width: w, height: h)
    }
}
