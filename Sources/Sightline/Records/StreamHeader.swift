import Foundation
import SightlineFrames

/// A `stream` record read back: what replay, merge, the exports and the report need to know
/// about the stream and the run that wrote the records, typed. (`StreamRecord` writes it.)
public struct StreamHeader {
    /// The record as written (blanks around it trimmed), for copying it.
    public let line: String
    package let fields: RecordFields

    package init(_ fields: RecordFields, line: String) {
        self.fields = fields
        self.line = line
    }

    /// The first line of `path` when it is a stream record; nil when it is not, or the file
    /// cannot be read.
    public static func firstRecord(of path: String) -> StreamHeader? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1 << 16)) ?? Data()
        guard let bytes = head.split(separator: UInt8(ascii: "\n")).first, let fields = RecordFields(line: bytes),
              fields.type == "stream" else { return nil }
        return StreamHeader(fields, line: String(decoding: bytes, as: UTF8.self))
    }

    /// The input as the run was given it.
    public var source: String? { fields.string("source") }
    public var streamIndex: Int? { fields.int("stream_index") }
    public var codec: String? { fields.string("codec") }
    /// Displayed frame size (boxes are in these pixels) and the size the codec decodes.
    public var width: Int? { fields.int("width") }
    public var height: Int? { fields.int("height") }
    public var codedWidth: Int? { fields.int("coded_width") }
    public var codedHeight: Int? { fields.int("coded_height") }
    public var rotation: Int { fields.int("rotation") ?? 0 }
    public var timeBase: (num: Int, den: Int)? { Self.rational(fields.ints("time_base")) }
    public var frameRate: (num: Int, den: Int)? { Self.rational(fields.ints("frame_rate")) }
    /// Frames per second (nil when the record gives no positive rate).
    public var framesPerSecond: Double? {
        guard let rate = frameRate, rate.num > 0, rate.den > 0 else { return nil }
        return Double(rate.num) / Double(rate.den)
    }
    /// The span of the file the run was asked for (`--start`, `--duration`) and the stream's length.
    public var start: Double? { fields.double("start") }
    public var maxDuration: Double? { fields.double("max_duration") }
    public var duration: Double? { fields.double("duration") }
    /// The record format's version (1 when the record has none).
    public var schema: Int { fields.int("schema") ?? 1 }
    /// The tracker's `max_gap` (nil when the run did not track).
    public var trackingMaxGap: Int? { fields.fields("analyzers")?.fields("tracking")?.int("max_gap") }
    /// The face detector's settings as the run recorded them (`analyzers.faces`: backend, runtime,
    /// precision, model, sha256, …); nil without faces.
    public var faceAnalyzer: RecordFields? { fields.fields("analyzers")?.fields("faces") }

    /// About how many frame records the file holds: the span asked for, or the stream's
    /// duration, times the frame rate; 0 when the record does not say.
    public var expectedFrames: Int {
        guard let rate = frameRate, rate.den > 0, let seconds = maxDuration ?? duration else { return 0 }
        let frames = seconds * Double(rate.num) / Double(rate.den)
        return frames.isFinite && frames > 0 ? Int(min(frames.rounded(.up), 1e12)) : 0
    }

    private static func rational(_ pair: [Int]?) -> (num: Int, den: Int)? {
        guard let pair, pair.count == 2 else { return nil }
        return (pair[0], pair[1])
    }
}
