import ArgumentParser
import Sightline

/// Where a detecting run's results go, and how it reports: shared by `analyze` and `capture`.
struct OutputOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "Where to write the JSON Lines (- for standard output).")
    var output: String = "-"

    @Option(help: ArgumentHelp("Write the best picture of every track as DIR/face-ID.png or DIR/code-ID.png.", valueName: "DIR"))
    var thumbnails: String?

    @Flag(help: "Add the wall time to the summary record (output then differs between runs).")
    var timing = false

    @OptionGroup var progress: ProgressOptions

    var quiet: Bool { progress.quiet }

    /// The run's sinks: the progress line, the video with overlays (if any), thumbnails, and the
    /// records last (their summary counts the other outputs' failures). `atomically`: the records
    /// get their name only when complete (a part of a video, see `AtomicFile`).
    /// `publisher`: the records published to a broker too (`capture --publish`).
    func sinks(progress: ProgressLine, video: OverlayRenderer?, stream: StreamRecord, atomically: Bool = false,
               publisher: FrameSink? = nil) throws -> [FrameSink] {
        var sinks: [FrameSink] = [progress]
        if let video { sinks.append(video) }
        if let thumbnails { sinks.append(try ThumbnailCollector(directory: thumbnails)) }
        if let publisher { sinks.append(publisher) }
        sinks.append(try RecordsSink(path: output, stream: stream, atomically: atomically))
        return sinks
    }
}

/// `--quiet`: shared by the commands that show a progress line while they read a video.
struct ProgressOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "No progress output on standard error.")
    var quiet = false
}
