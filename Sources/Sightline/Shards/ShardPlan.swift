import Foundation
import SightlineFrames
import SightlineRecords
import SightlineTracking

/// One part of one input: an ordinary `analyze` run over `start ≤ t < start + duration` (to the
/// end of the stream when `duration` is nil), with `warmup` seconds analyzed before it.
public struct Shard: Sendable, Equatable {
    public var input: String
    /// Position of the shard in its input's list, from 0, and how many the input has.
    public var number: Int
    public var count: Int
    public var start: Double
    public var duration: Double?
    public var warmup: Double
    /// Where the shard's records go (`analyze -o`), and the merged file of its input.
    public var output: String
    public var merged: String
    /// A refine plan's shard (`plan --from-scan`): the number of the scan span it belongs to.
    /// Spans leave gaps between them, which `merge` accepts; tracks do not cross them.
    public var span: Int?

    public init(input: String, number: Int, count: Int, start: Double, duration: Double?, warmup: Double,
                output: String, merged: String, span: Int? = nil) {
        self.span = span
        self.input = input
        self.number = number
        self.count = count
        self.start = start
        self.duration = duration
        self.warmup = warmup
        self.output = output
        self.merged = merged
    }

    /// The `sightline` arguments that run this shard (detector options are added by the caller).
    public var arguments: [String] {
        var args = ["analyze", input, "--start", JSON.format(start, digits: 6)]
        if let duration { args += ["--duration", JSON.format(duration, digits: 6)] }
        args += ["--warmup", JSON.format(warmup, digits: 6), "-q", "-o", output]
        return args
    }

    /// The plan's line for this shard.
    public var json: JSON {
        .object([("type", .string("shard")), ("input", .string(input)), ("shard", .int(Int64(number))),
                 ("shards", .int(Int64(count)))] + (span.map { [("span", JSON.int(Int64($0)))] } ?? []) + [
                 ("start", .fixed(start, digits: 6)),
                 ("duration", duration.map { .fixed($0, digits: 6) } ?? .null),
                 ("warmup", .fixed(warmup, digits: 6)), ("output", .string(output)), ("merged", .string(merged)),
                 ("args", .array(arguments.map { .string($0) }))])
    }

    /// A plan line read back; nil fields are reported with the line.
    public init(_ o: RecordFields) throws {
        guard o.type == "shard", let input = o.string("input"), let n = o.int("shard"), let count = o.int("shards"),
              let start = o.double("start"), let warmup = o.double("warmup"),
              let output = o.string("output"), let merged = o.string("merged") else {
            throw RecordShapeError("not a shard line of sightline plan (type shard with input, shard, shards, start, duration, warmup, output, merged)")
        }
        self.init(input: input, number: n, count: count, start: start, duration: o.double("duration"), warmup: warmup,
                  output: output, merged: merged, span: o.int("span"))
    }
}

/// Cuts inputs into time shards (`sightline plan`).
public struct ShardPlanner {
    /// Length of each shard in seconds, or nil to cut each input into `targetCount` shards.
    public var shardLength: Double?
    public var targetCount: Int?
    /// Seconds analyzed before each shard (not before the first).
    public var warmup: Double
    /// Move each cut to the first keyframe at or after it, so no shard decodes frames it drops.
    public var atKeyframes: Bool
    /// Folder the shard outputs and merged files are named in.
    public var outputDirectory: String

    public init(shardLength: Double?, targetCount: Int?, warmup: Double, atKeyframes: Bool, outputDirectory: String) {
        self.shardLength = shardLength
        self.targetCount = targetCount
        self.warmup = warmup
        self.atKeyframes = atKeyframes
        self.outputDirectory = outputDirectory
    }

    /// Common video file extensions: what a folder given as input contributes.
    static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm", "avi", "ts", "mts", "m2ts", "mpg",
                                               "mpeg", "flv", "wmv", "3gp", "mxf", "ogv"]

    /// The files of `inputs`: files as given, folders as their video files sorted by name.
    /// `keepMissing`: a path that does not exist is kept as a file (whoever opens it reports it).
    public static func expand(_ inputs: [String], keepMissing: Bool = false) throws -> [String] {
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                if keepMissing { files.append(input); continue }
                throw SightlineError.inputUnreadable(path: input, reason: "No such file or directory")
            }
            if isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: input).sorted()
                files += names.filter { !$0.hasPrefix(".") && videoExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
                    .map { (input as NSString).appendingPathComponent($0) }
            } else {
                files.append(input)
            }
        }
        return files
    }

    /// The shards of one input whose video spans `span` seconds on its timeline (nil: unknown),
    /// with `keyframes` the times a cut may move to (empty: cut anywhere).
    public func shards(input: String, span: Double?, keyframes: [Double], stem: String) -> [Shard] {
        var cuts: [Double] = [0]
        if let span, span > 0 {
            let length = shardLength ?? span / Double(max(1, targetCount ?? 1))
            var k = 1
            while Double(k) * length < span - 1e-6 {
                var cut = (Double(k) * length * 1e6).rounded() / 1e6
                if atKeyframes, !keyframes.isEmpty {
                    guard let next = keyframes.first(where: { $0 >= cut - 1e-9 }) else { break }
                    cut = next
                }
                if cut > cuts.last! + 1e-6, cut < span - 1e-6 { cuts.append(cut) }
                k += 1
            }
        }
        let merged = (outputDirectory as NSString).appendingPathComponent(stem + ".jsonl")
        return cuts.enumerated().map { n, start in
            let end = n + 1 < cuts.count ? cuts[n + 1] : nil
            return Shard(input: input, number: n, count: cuts.count, start: start,
                         duration: end.map { (($0 - start) * 1e6).rounded() / 1e6 },
                         warmup: min(warmup, start),
                         output: (outputDirectory as NSString).appendingPathComponent(String(format: "%@.shard-%04d.jsonl", stem, n)),
                         merged: merged)
        }
    }

    /// The shards of a refine plan for one input (`plan --from-scan`): one per span of a scan,
    /// each with the warm-up before it, cut at `shardLength` when one is set. Spans closer than
    /// the warm-up are run as one, so no shard's warm-up reaches into another span.
    public func shards(input: String, spans: [ScanSpan], stem: String) -> [Shard] {
        var runs: [(start: Double, end: Double?)] = []
        for span in spans {
            if let last = runs.last, let lastEnd = last.end, span.start - lastEnd < warmup + 1e-6 {
                runs[runs.count - 1].end = span.end
            } else {
                runs.append((span.start, span.end))
            }
        }
        var pieces: [(span: Int, start: Double, end: Double?)] = []
        for (n, run) in runs.enumerated() {
            var start = run.start
            if let shardLength {
                while (run.end.map { $0 - start > shardLength + 1e-6 } ?? false) {
                    let cut = ((start + shardLength) * 1e6).rounded() / 1e6
                    pieces.append((n, start, cut))
                    start = cut
                }
            }
            pieces.append((n, start, run.end))
        }
        let merged = (outputDirectory as NSString).appendingPathComponent(stem + ".jsonl")
        return pieces.enumerated().map { k, piece in
            Shard(input: input, number: k, count: pieces.count, start: piece.start,
                  duration: piece.end.map { (($0 - piece.start) * 1e6).rounded() / 1e6 },
                  warmup: min(warmup, piece.start),
                  output: (outputDirectory as NSString).appendingPathComponent(String(format: "%@.shard-%04d.jsonl", stem, k)),
                  merged: merged, span: piece.span)
        }
    }

    /// The refine plan of a scan index: the shards of every file with spans, in the index's order.
    public func shards(of index: ScanIndex) -> [Shard] {
        let stems = Self.stems(index.files.map(\.source))
        return zip(index.files, stems).flatMap { file, stem in shards(input: file.source, spans: file.spans, stem: stem) }
    }

    /// Creates the output folder (and its parents) if it is not there, so the shards run as
    /// planned can write into it; a path that is a file or cannot be created is an output error.
    public func createOutputDirectory() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw SightlineError.outputUnwritable(path: outputDirectory, reason: "not a folder (a file of that name exists)")
            }
            return
        }
        // mkdir(2) one level at a time, so the error names the cause as the system gives it.
        var prefix = outputDirectory.hasPrefix("/") ? "/" : ""
        for component in outputDirectory.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
                throw SightlineError.outputUnwritable(path: outputDirectory,
                                                      reason: "cannot create the folder \(prefix): \(String(cString: strerror(errno)))")
            }
            prefix += "/"
        }
    }

    /// Output names per input: the file name without its extension, made unique by a number.
    public static func stems(_ files: [String]) -> [String] {
        var used: [String: Int] = [:]
        return files.map { file in
            let base = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            let seen = used[base, default: 0]
            used[base] = seen + 1
            return seen == 0 ? base : "\(base)-\(seen + 1)"
        }
    }
}

extension Shard {
    /// The shards of a plan file written by `sightline plan` (a malformed or empty plan:
    /// `RecordFileError`).
    public static func readPlan(_ plan: String) throws -> [Shard] {
        guard let data = FileManager.default.contents(atPath: plan) else {
            throw RecordFileError(path: plan, line: 0, reason: "cannot read the plan: missing or unreadable", unreadable: true)
        }
        var shards: [Shard] = []
        for (offset, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            guard let fields = RecordFields(line: line) else {
                throw RecordFileError(path: plan, line: offset + 1, reason: "not a JSON object")
            }
            do { shards.append(try Shard(fields)) } catch {
                throw RecordFileError(path: plan, line: offset + 1, reason: "\(error)")
            }
        }
        guard !shards.isEmpty else { throw RecordFileError(path: plan, line: 0, reason: "no shards: the plan is empty") }
        return shards
    }

    /// The planned shard whose run wrote `path`: the same input and start.
    public static func written(at path: String, in shards: [Shard], plan: String) throws -> Shard {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SightlineError.inputUnreadable(path: path, reason: "shard output missing or unreadable")
        }
        guard let stream = StreamHeader.firstRecord(of: path), let source = stream.source else {
            throw SightlineError.shardRejected(path: path, reason: "no stream record on its first line (empty, truncated or not written by sightline analyze)")
        }
        let start = stream.start ?? 0
        let ofInput = shards.filter { $0.input == source }
        guard !ofInput.isEmpty else {
            throw SightlineError.shardRejected(path: path, reason: "a shard of \(source), which is not an input of \(plan)")
        }
        guard let shard = ofInput.first(where: { abs($0.start - start) < 1e-6 }) else {
            throw SightlineError.shardRejected(path: path, reason: String(format: "starts at %.6f s, where no shard of %@ in %@ starts (overlapping or misplaced shard)", start, source, plan))
        }
        return shard
    }
}
