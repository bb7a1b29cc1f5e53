import ArgumentParser
import Foundation
import Sightline

struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cut videos into time shards: one JSON line per shard, for running the shards anywhere and merging them.",
        discussion: """
            Each line names the input, the shard's start, duration and warm-up, the output file the \
            shard's run writes and the merged file of its input, and the `sightline` arguments that \
            run it (`args`; add the same detector options to every shard). The last shard of an \
            input has no duration: it runs to the end of the stream. With --from-scan, only the \
            spans of a `sightline scan` index are planned, each with its warm-up (spans closer \
            than the warm-up run as one); the merged file of an input then holds the frames of \
            its spans, each as the whole run writes it. Run every shard, then \
            `sightline merge PLAN`. The output folder is created when it is not there. Exit 66 when \
            an input is missing, 65 when it is not a video, 73 when the output folder cannot be created.
            """
    )

    @Argument(help: "Video files, or folders (their video files, by name).")
    var inputs: [String] = []

    @Option(name: .customLong("from-scan"), help: ArgumentHelp("Plan the spans of this index written by sightline scan (where something was seen), instead of whole inputs.", valueName: "INDEX.jsonl"))
    var fromScan: String?

    @Option(name: .customLong("shard-length"), help: ArgumentHelp("Length of each shard in seconds (with --from-scan: spans longer than this are cut).", valueName: "SECONDS"))
    var shardLength: Double?

    @Option(help: "Cut each input into this many shards of equal length instead.")
    var shards: Int?

    @Option(help: ArgumentHelp("Seconds analyzed before each shard (not before the first) so that tracks entering it keep their state; at least (max-gap + 1) frames for exact track joins.", valueName: "SECONDS"))
    var warmup: Double = 2

    @Flag(help: "Move each cut to the first keyframe at or after it (reads each input's packets once; decoding then starts right at each shard).")
    var keyframes = false

    @Option(name: .customLong("output-dir"), help: "Folder the shard outputs and merged files are named in (every node must see it); created if missing.")
    var outputDirectory: String = "."

    @Option(name: .shortAndLong, help: "Where to write the plan (- for standard output).")
    var output: String = "-"

    @Option(help: "Index of the video stream to read (default: the best video stream).")
    var stream: Int?

    func validate() throws {
        if let fromScan {
            if !inputs.isEmpty { throw ValidationError("Give inputs or --from-scan \(fromScan), not both.") }
            if shards != nil || keyframes { throw ValidationError("--shards and --keyframes do not apply to --from-scan (its spans are the shards).") }
        } else {
            if inputs.isEmpty { throw ValidationError("Give the inputs to plan, or --from-scan INDEX.") }
            if (shardLength == nil) == (shards == nil) { throw ValidationError("Give one of --shard-length and --shards.") }
        }
        if let shardLength, !(shardLength > 0 && shardLength.isFinite) { throw ValidationError("--shard-length must be more than 0 seconds.") }
        if let shards, !(1...100_000).contains(shards) { throw ValidationError("--shards must be between 1 and 100000, not \(shards).") }
        if !(warmup >= 0 && warmup.isFinite) { throw ValidationError("--warmup must be a time of 0 seconds or more.") }
    }

    func run() throws {
        VideoFileSource.showLibraryWarnings(false)
        if let fromScan {
            let planner = ShardPlanner(shardLength: shardLength, targetCount: nil, warmup: warmup, atKeyframes: false,
                                       outputDirectory: outputDirectory)
            let planned = planner.shards(of: try ScanIndex(path: fromScan))
            if planned.isEmpty { FileHandle.standardError.write(Data("sightline: \(fromScan): no spans (nothing was seen): nothing to plan\n".utf8)) }
            try planner.createOutputDirectory()
            let writer = try JSONLinesWriter(path: output)
            for shard in planned { try writer.write(shard.json) }
            return
        }
        let files = try ShardPlanner.expand(inputs)
        guard !files.isEmpty else { throw ValidationError("No video files in \(inputs.joined(separator: ", ")).") }
        let planner = ShardPlanner(shardLength: shardLength, targetCount: shards, warmup: warmup, atKeyframes: keyframes,
                                   outputDirectory: outputDirectory)
        try planner.createOutputDirectory()
        let writer = try JSONLinesWriter(path: output)
        for shard in try planner.shards(of: files, stream: stream) { try writer.write(shard.json) }
    }
}

extension ShardPlanner {
    /// The shards of every file (video `stream` of each; nil: the best), in order: each file is
    /// opened to find its span on its timeline (and its keyframes with `atKeyframes`).
    func shards(of files: [String], stream: Int?) throws -> [Shard] {
        var all: [Shard] = []
        for (file, stem) in zip(files, Self.stems(files)) {
            let source = try VideoFileSource(path: file, options: SourceOptions(streamIndex: stream))
            let info = source.info
            // The video's end on its timeline: where its first frame is, plus its length; for a
            // container whose clock jumped (segments joined end to end), where the continuous
            // timeline its packets make ends.
            var span = info.duration.map { $0 + info.streamOffset }
            var keyframes: [Double] = []
            if atKeyframes || source.clockMayJump {
                let scan = source.scanTimeline()
                if let end = scan.end { span = end }
                if atKeyframes { keyframes = scan.keyframes }
            }
            all += shards(input: file, span: span, keyframes: keyframes, stem: stem)
        }
        return all
    }
}
