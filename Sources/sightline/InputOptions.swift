import ArgumentParser
import Sightline

/// How a video file is opened and decoded: shared by the commands that read one.
struct InputOptions: ParsableArguments {
    @Option(name: .customLong("decoder-threads"), help: "Decoder threads (default: 0, chosen by libavcodec).")
    var decoderThreads: Int = 0

    @Flag(name: .customLong("allow-network"), help: "Let the input be a network URL or a playlist that opens other files (refused by default).")
    var allowNetwork = false

    @Flag(name: .shortAndLong, help: "Show FFmpeg's warnings about the input on standard error.")
    var verbose = false

    func validate() throws {
        if !(0...64).contains(decoderThreads) { throw ValidationError("--decoder-threads must be between 0 and 64, not \(decoderThreads).") }
    }

    /// Opens `path` with these settings.
    func open(_ path: String, stream: Int? = nil, start: Double? = nil, duration: Double? = nil, warmup: Double = 0,
              keepAudio: Bool = false) throws -> VideoFileSource {
        try VideoFileSource(path: path, options: SourceOptions(
            streamIndex: stream, start: start, duration: duration, warmup: warmup, allowNetwork: allowNetwork,
            decoderThreads: decoderThreads, keepAudio: keepAudio))
    }
}
