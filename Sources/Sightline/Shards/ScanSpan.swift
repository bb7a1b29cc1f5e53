import Foundation
import SightlineFrames
import SightlineRecords
import SightlineTracking

/// A stretch of a file where a scan saw something: from the last sample before the first
/// sighting to the first sample after the last one, because the object may be there anywhere
/// between those samples. What it cannot hold: an object seen by no sample at all.
public struct ScanSpan: Sendable, Equatable {
    /// Seconds on the file's timeline (as a frame record's `t`); `end` nil: to the end of the stream.
    public var start: Double
    public var end: Double?
    /// The first and last sample that saw something.
    public var firstSeen: Double
    public var lastSeen: Double
    /// Samples in the span that saw something, and the faces and codes they saw.
    public var samples: Int
    public var faces: Int
    public var codes: Int

    public init(start: Double, end: Double?, firstSeen: Double, lastSeen: Double, samples: Int, faces: Int, codes: Int) {
        self.start = start
        self.end = end
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.samples = samples
        self.faces = faces
        self.codes = codes
    }

    /// The spans of a file's samples (in presentation order): each sample that saw something
    /// widened to its neighbouring samples, spans that meet joined. Before the first sample the
    /// span starts at 0, the timeline's origin.
    public static func spans(of samples: [FrameRecord]) -> [ScanSpan] {
        var spans: [ScanSpan] = []
        for (i, sample) in samples.enumerated() where !sample.faces.isEmpty || !sample.codes.isEmpty {
            let start = i > 0 ? samples[i - 1].t : 0
            let end = i + 1 < samples.count ? samples[i + 1].t : nil
            if var last = spans.last, let lastEnd = last.end, start <= lastEnd + 1e-9 {
                last.end = end
                last.lastSeen = sample.t
                last.samples += 1
                last.faces += sample.faces.count
                last.codes += sample.codes.count
                spans[spans.count - 1] = last
            } else {
                spans.append(ScanSpan(start: start, end: end, firstSeen: sample.t, lastSeen: sample.t, samples: 1,
                                      faces: sample.faces.count, codes: sample.codes.count))
            }
        }
        return spans
    }

    /// The span's length, with `streamEnd` (seconds on the timeline) for a span that runs to the end.
    public func seconds(streamEnd: Double?) -> Double {
        max(0, (end ?? streamEnd ?? lastSeen) - start)
    }

    /// The span's line in the index.
    package func json(source: String) -> JSON {
        .object([("type", .string("span")), ("source", .string(source)),
                 ("start", .fixed(start, digits: Precision.seconds)),
                 ("end", end.map { .fixed($0, digits: Precision.seconds) } ?? .null),
                 ("first_seen", .fixed(firstSeen, digits: Precision.seconds)),
                 ("last_seen", .fixed(lastSeen, digits: Precision.seconds)),
                 ("samples", .int(Int64(samples))), ("faces", .int(Int64(faces))), ("codes", .int(Int64(codes)))])
    }

    /// A span line read back.
    package init(_ o: RecordFields) throws {
        guard let start = o.double("start"), let firstSeen = o.double("first_seen"), let lastSeen = o.double("last_seen"),
              let samples = o.int("samples"), let faces = o.int("faces"), let codes = o.int("codes"),
              o.double("end") != nil || o.isNull("end") else {
            throw RecordShapeError("not a span line of sightline scan (start, end, first_seen, last_seen, samples, faces, codes)")
        }
        self.init(start: start, end: o.double("end"), firstSeen: firstSeen, lastSeen: lastSeen, samples: samples,
                  faces: faces, codes: codes)
    }
}

/// The spans of an index written by `sightline scan`, per file in the index's order (files
/// without a span left out).
public struct ScanIndex {
    public var files: [(source: String, spans: [ScanSpan])]

    /// Reads `path`; a file that is not a scan index, or a malformed line: `RecordFileError`.
    public init(path: String) throws {
        let data: Data
        do { data = try RecordFile.contents(of: path) } catch {
            throw RecordFileError(path: path, line: 0, reason: "cannot read the scan index: missing or unreadable", unreadable: true)
        }
        guard !data.isEmpty else { throw RecordFileError(path: path, line: 0, reason: "empty: not a scan index") }
        var files: [(source: String, spans: [ScanSpan])] = []
        for (offset, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            guard let fields = RecordFields(line: line) else {
                throw RecordFileError(path: path, line: offset + 1, reason: "not a JSON object")
            }
            let type = fields.type
            if offset == 0 && type != "scan" {
                throw RecordFileError(path: path, line: 1, reason: "not a scan index: the first record is not a scan record (written by sightline scan?)")
            }
            guard type == "span" else { continue }
            guard let source = fields.string("source") else {
                throw RecordFileError(path: path, line: offset + 1, reason: "a span line without a source")
            }
            let span: ScanSpan
            do { span = try ScanSpan(fields) } catch { throw RecordFileError(path: path, line: offset + 1, reason: "\(error)") }
            if files.last?.source == source { files[files.count - 1].spans.append(span) } else { files.append((source, [span])) }
        }
        self.files = files
    }
}
