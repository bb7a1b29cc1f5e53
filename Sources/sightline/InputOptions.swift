import ArgumentParser
import Sightline

/// How a video file is opened and decoded: shared by the commands that read one.
struct InputOptions: ParsableArguments {
    @Option(name: .customLong("decoder-threads"), help: "Decoder threads (0: chosen by libavcodec, the default; anonymize's default is 1).")
    var decoderThreads: Int?

    @Flag(name: .customLong("allow-network"), help: "Let the input be a network URL or a playlist that opens other files (refused by default).")
    var allowNetwork = false

    @Flag(name: .shortAndLong, help: "Show FFmpeg's warnings about the input on standard error.")
    var verbose = false

    func validate() throws {
        if let decoderThreads, !(0...64).contains(decoderThreads) { throw ValidationError("--decoder-threads must be between 0 and 64, not \(decoderThreads).") }
    }

    /// --decoder-threads, or the command's default when it is not given.
    func decoderThreads(default fallback: Int) -> Int { decoderThreads ?? fallback }

    /// Opens `path` with these settings (`defaultDecoderThreads` when --decoder-threads is not given).
    func open(_ path: String, stream: Int? = nil, start: Double? = nil, duration: Double? = nil, warmup: Double = 0,
              cooldownFrames: Int = 0, keepAudio: Bool = false, defaultDecoderThreads: Int = 0) throws -> VideoFileSource {
        var options = SourceOptions(streamIndex: stream, start: start, duration: duration, warmup: warmup, allowNetwork: allowNetwork,
                                    decoderThreads: decoderThreads(default: defaultDecoderThreads), keepAudio: keepAudio)
        options.cooldownFrames = cooldownFrames
        return try VideoFileSource(path: path, options: options)
    }

    /// Opens the video saved records were made from, over the span their run read, and checks
    /// that the records are of its stream (`render`, `report --video`). A schema 1 `start` was
    /// counted from the video stream's start: it is moved onto the file's timeline first. Returns
    /// the start decoding began at, for the progress line.
    func open(_ path: String, replaying replay: RecordReplay, keepAudio: Bool = false) throws -> (source: VideoFileSource, start: Double?) {
        var start = replay.start
        if start != nil, replay.schema < firstSchemaOnFileTimeline {
            start = replay.timelineStart(try open(path, stream: replay.streamIndex).info)
        }
        let source = try open(path, stream: replay.streamIndex, start: start, duration: replay.duration, keepAudio: keepAudio)
        try replay.check(source.info)
        return (source, start)
    }
}
