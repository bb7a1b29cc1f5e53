import Foundation
import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// What a scan found in one file: its sampled frames and spans, or why it could not be read.
public struct ScannedFile: Sendable {
    public enum Status: String, Sendable {
        /// Read to its end.
        case ok
        /// Read, with damage met on the way (corrupt packets, truncated): the samples are what decoded.
        case damaged
        /// Not scanned: missing, unreadable, not a video, no video stream.
        case failed
    }

    public var source: String
    /// The video stream's facts (nil when the file could not be opened).
    public var info: VideoStreamInfo?
    /// The sampled frames' records, in presentation order: full detection, no track ids.
    public var samples: [FrameRecord] = []
    public var spans: [ScanSpan] = []
    /// Video packets read (the stream's frames), and how many were key frames.
    public var frames = 0
    public var keyFrames = 0
    public var damage = DecodeDamage()
    public var failure: SightlineError?

    public init(source: String) { self.source = source }

    public var status: Status { failure != nil ? .failed : damage.isEmpty ? .ok : .damaged }
    /// Every frame a key frame (MJPEG, `-g 1`): sampled only every `KeyFrameSampling.minimumSpacing`.
    public var allIntra: Bool { frames > 1 && keyFrames == frames }
    /// Where the video ends on the file's timeline, when the container says.
    public var streamEnd: Double? { info.flatMap { info in info.duration.map { $0 + info.streamOffset } } }
    public var spanSeconds: Double { spans.reduce(0) { $0 + $1.seconds(streamEnd: streamEnd) } }
    /// Samples an analyzer failed on.
    public var analyzerErrors: Int { samples.filter { $0.faceStatus == .error || $0.codeStatus == .error }.count }

    /// The file's lines in the index: its stream facts and the detectors' settings for its
    /// frames, the sampled frames, the spans, its totals.
    func records(faces: ResolvedFaceDetector, codes: CodeReaderOptions) -> [JSON] {
        var lines: [JSON] = []
        if let s = info {
            lines.append(.object([
                ("type", .string("scan_file")), ("source", .string(source)), ("container", .string(s.container)),
                ("stream_index", .int(Int64(s.streamIndex))), ("codec", .string(s.codec)),
                ("width", .int(Int64(s.displayWidth))), ("height", .int(Int64(s.displayHeight))),
                ("time_base", .array([.int(Int64(s.timeBase.num)), .int(Int64(s.timeBase.den))])),
                ("frame_rate", .array([.int(Int64(s.frameRate.num)), .int(Int64(s.frameRate.den))])),
                ("duration", s.duration.map { .fixed($0, digits: Precision.seconds) } ?? .null),
                ("start_time", s.containerStartTime.map { .fixed($0, digits: Precision.seconds) } ?? .null),
                ("stream_start_time", s.streamStartTime.map { .fixed($0, digits: Precision.seconds) } ?? .null),
                ("analyzers", .object([("faces", faces.recordJSON(frameSize: (s.displayWidth, s.displayHeight))),
                                       ("codes", codes.recordJSON(fullEvery: nil))])),
            ]))
        }
        for sample in samples {
            // A frame record's fields under its own type, with the file it is of.
            guard case .object(var members) = sample.json else { continue }
            members[0] = ("type", .string("sampled_frame"))
            members.insert(("source", .string(source)), at: 1)
            lines.append(.object(members))
        }
        lines += spans.map { $0.json(source: source) }
        lines.append(.object([
            ("type", .string("scan_totals")), ("source", .string(source)), ("status", .string(status.rawValue)),
            ("error", failure.map { .string("\($0)") } ?? (damage.isEmpty ? .null : .string(damage.description))),
            ("frames", .int(Int64(frames))), ("key_frames", .int(Int64(keyFrames))), ("all_intra", .bool(allIntra)),
            ("samples", .int(Int64(samples.count))),
            ("samples_with_faces", .int(Int64(samples.filter { !$0.faces.isEmpty }.count))),
            ("samples_with_codes", .int(Int64(samples.filter { !$0.codes.isEmpty }.count))),
            ("analyzer_errors", .int(Int64(analyzerErrors))),
            ("spans", .int(Int64(spans.count))),
            ("span_seconds", .fixed(spanSeconds, digits: Precision.seconds)),
            ("video_seconds", streamEnd.map { .fixed($0, digits: Precision.seconds) } ?? .null),
        ]))
        return lines
    }
}

/// What a whole scan found: the index's last line, and the command's exit code.
public struct ScanSummary: Sendable, Equatable {
    public var files = 0
    public var damaged = 0
    public var failed = 0
    /// Files with at least one span.
    public var flagged = 0
    public var videoSeconds = 0.0
    public var spanSeconds = 0.0
    /// The exit code of the first file that could not be scanned (docs/exit-codes.md).
    public var firstFailureExitCode: Int32?

    public init() {}

    mutating func add(_ file: ScannedFile) {
        files += 1
        switch file.status {
        case .ok: break
        case .damaged: damaged += 1
        case .failed:
            failed += 1
            if firstFailureExitCode == nil { firstFailureExitCode = file.failure?.exitCode }
        }
        if !file.spans.isEmpty { flagged += 1 }
        videoSeconds += file.streamEnd ?? 0
        spanSeconds += file.spanSeconds
    }

    /// 0 when every file was read to its end; else the first failed file's code (65, 66, 67);
    /// else 2 when a file was damaged. The index holds every file either way.
    public var exitCode: Int32 { firstFailureExitCode ?? (damaged > 0 ? 2 : 0) }

    var json: JSON {
        .object([("type", .string("scan_summary")), ("files", .int(Int64(files))),
                 ("scanned", .int(Int64(files - failed))), ("damaged", .int(Int64(damaged))),
                 ("failed", .int(Int64(failed))), ("flagged", .int(Int64(flagged))),
                 ("video_seconds", .fixed(videoSeconds, digits: Precision.seconds)),
                 ("span_seconds", .fixed(spanSeconds, digits: Precision.seconds))])
    }
}
