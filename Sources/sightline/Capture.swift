import ArgumentParser
import Foundation
import Sightline

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Analyze a live camera (V4L2): the same records as analyze, written as frames arrive.",
        discussion: """
            Capture never waits for analysis: a frame that arrives while every analysis thread is \
            busy keeps its place on the timeline with a frame record whose status is `dropped` \
            (counted in the summary as dropped_frames); --no-drop analyzes every frame instead and \
            lets latency grow. Frames the camera driver itself had to drop are counted as \
            lost_frames. Timestamps are the driver's, from the first frame (time base 1/1000000).

            Stop with --duration, --frames, or Ctrl-C (SIGINT) / SIGTERM: the records and the \
            recording are finished cleanly, the summary says interrupted, and the exit code is 0. \
            SIGUSR1 pauses and resumes --record while analysis goes on.

            Errors: no such device 66; not a capture device 67; size, frame rate or format not \
            offered 69; camera busy 75; permission denied 77; the camera stopped sending frames \
            mid-run 2 (the output is complete up to there).

            A network camera or stream: give its rtsp://, rtsps://, srt:// or udp:// URL instead \
            of --device (other schemes are refused; analyze never opens network URLs). When the \
            stream drops it is opened again with back-off (0.25 s doubling to 4 s; given up after \
            60 s without frames: exit 2); a discontinuity record marks each reconnection and the \
            frames missed are counted as lost_frames. No stream within 5 s at the start: exit 66.
            """
    )

    @Argument(help: "A network stream's rtsp://, rtsps://, srt:// or udp:// URL (instead of --device).")
    var url: String?

    @Option(help: "The camera device.")
    var device: String = "/dev/video0"

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

    @OptionGroup var detection: DetectionOptions

    @OptionGroup(title: "Output") var outputs: OutputOptions

    @OptionGroup(title: "Recording (--record)") var rendering: RenderOptions

    /// Frames --no-drop lets wait for analysis (8 s at 30 fps; about 330 MB at 720p).
    static let backlog = 240

    func validate() throws {
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
        // The detectors and a mask image are set up before the camera or stream opens.
        let analysis = try detection.analysis()
        let drawing = try record.map { (path: $0, painter: try rendering.painter()) }
        VideoFileSource.showLibraryWarnings(false)   // the encoder's chatter
        let live = try url.map(openNetwork) ?? openCamera()
        var configuration = detection.configuration(source: live.source, analysis: analysis)
        configuration.backpressure = noDrop ? .queue(backlog: Self.backlog) : .dropLateFrames
        configuration.timing = outputs.timing
        let run = try Run(configuration)

        let progress = ProgressLine(quiet: outputs.quiet, totalFrames: frames)
        progress.note = live.note
        // SIGUSR1 pauses and resumes the recording.
        let paused = SignalFlag()
        let recorder = try drawing.map { path, painter in
            OverlayRenderer(painter: painter, writer: try MP4Writer(path: path, stream: live.source.info, options: rendering.encoder))
        }
        recorder?.isPaused = { paused.isRequested }
        var stream = StreamRecord(run: run, duration: duration)
        stream.camera = live.camera
        stream.camera?.dropLateFrames = !noDrop
        let sinks = try outputs.sinks(progress: progress, video: recorder, stream: stream)

        let pause = onSignal(SIGUSR1) {
            let nowPaused = paused.toggle()
            if record != nil, !outputs.quiet {
                FileHandle.standardError.write(Data("\nsightline: recording \(nowPaused ? "paused" : "resumed")\n".utf8))
            }
        }
        defer { pause.cancel() }
        let summary = try run.runStoppable(into: sinks)
        if let readError = summary.damage.readError {
            throw SightlineError.inputDamaged(path: live.path, reason: readError + " (\(summary.frames) frames captured)")
        }
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
    private func openCamera() throws -> LiveInput {
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
