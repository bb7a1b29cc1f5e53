import Foundation
import SightlineFrames
import SightlineMedia
import SightlineRecords

/// The records of an earlier run, handed out frame by frame while the same video is decoded
/// again (`render`, `snapshot --records`). Records that belong to another video are refused:
/// the stream record must name the same stream (stream index, codec, coded size, time base,
/// rotation), and
/// every frame record must have the pts of the decoded frame it is paired with, in order, with no
/// frame or record left over.
public final class RecordReplay: RecordedFrames {
    public let recordsPath: String
    public let inputPath: String
    /// The recorded run's `--stream`, `--start` and `--duration`: decode the same stream and span.
    public let streamIndex: Int?
    public let start: Double?
    public let duration: Double?
    /// The records' schema version (1 when the stream record has none): schema 1 counted `index`
    /// and `t` from the first frame read, later versions from the stream's and the file's start.
    public let schema: Int

    /// The records being replayed, read once from start to end.
    public let reader: RecordStreamReader
    private var pending: FrameRecord?
    private var ended: [TrackRecord] = []
    private var paired = 0

    public convenience init(records: String, input: String) throws {
        try self.init(reader: RecordStreamReader(path: records), input: input)
    }

    /// Replays what `reader` has not handed out yet (it has read only the stream record).
    public init(reader: RecordStreamReader, input: String) {
        recordsPath = reader.path
        inputPath = input
        self.reader = reader
        let stream = reader.stream
        streamIndex = stream.streamIndex
        start = stream.start
        duration = stream.maxDuration
        schema = stream.schema
    }

    /// Where to start decoding on today's timeline: a schema 1 `start` counted from the video
    /// stream's start, not the container's (`info`: the same video, opened from its start).
    public func timelineStart(_ info: VideoStreamInfo) -> Double? {
        guard let start, schema < firstSchemaOnFileTimeline else { return start }
        return start + (info.streamStartTime ?? info.timelineOrigin) - info.timelineOrigin
    }

    /// The number a frame's record carries: its stream position, or in schema 1 its place among
    /// the frames decoded.
    private func number(_ frame: VideoFrame) -> Int { schema < firstSchemaOnFileTimeline ? frame.index : frame.position }

    private func mismatch(_ reason: String) -> SightlineError {
        .recordsMismatch(records: recordsPath, input: inputPath, reason: reason)
    }

    /// Refuses records whose stream record does not describe the stream being read.
    public func check(_ info: VideoStreamInfo) throws {
        let s = reader.stream
        guard let index = streamIndex, let codec = s.codec, let width = s.codedWidth, let height = s.codedHeight,
              let base = s.timeBase else {
            throw mismatch("the stream record lacks stream_index, codec, coded_width, coded_height or time_base (not written by sightline analyze?)")
        }
        var differences: [String] = []
        // Geometry is in displayed-frame pixels: another rotation puts every box elsewhere.
        let rotation = s.rotation
        if rotation != info.rotation { differences.append("rotation \(rotation) in the records, \(info.rotation) in the video") }
        if index != info.streamIndex { differences.append("stream \(index) in the records, \(info.streamIndex) in the video") }
        if codec != info.codec { differences.append("codec \(codec) in the records, \(info.codec) in the video") }
        if width != info.codedWidth || height != info.codedHeight {
            differences.append("coded size \(width)x\(height) in the records, \(info.codedWidth)x\(info.codedHeight) in the video")
        }
        if base.num != info.timeBase.num || base.den != info.timeBase.den {
            differences.append("time base \(base.num)/\(base.den) in the records, \(info.timeBase.num)/\(info.timeBase.den) in the video")
        }
        if !differences.isEmpty { throw mismatch(differences.joined(separator: "; ")) }
    }

    /// The next frame record, read ahead past track records.
    private func peek() throws -> FrameRecord? {
        while pending == nil, let item = try reader.next() {
            switch item {
            case .frame(let record): pending = record
            case .track(let track): ended.append(track)
            }
        }
        return pending
    }

    private func describe(_ frame: VideoFrame) -> String {
        String(format: "frame %d of the video (pts %lld, t=%.3f s)", number(frame), frame.pts, frame.seconds)
    }

    /// The record of the next decoded frame: it must be the next frame record of the file, with
    /// the frame's index and pts.
    public func record(for frame: VideoFrame) throws -> FrameRecord {
        if seeking { return try record(matching: frame) }
        guard let record = try peek() else {
            throw mismatch("\(describe(frame)) has no record (the records end after \(paired) frames)")
        }
        if record.pts > frame.pts || (record.pts == frame.pts && record.index > number(frame)) {
            throw mismatch("\(describe(frame)) has no record (the next record, line \(reader.line), is frame \(record.index) with pts \(record.pts))")
        }
        if record.pts < frame.pts || record.index != number(frame) {
            throw mismatch("the record of frame \(record.index) (line \(reader.line), pts \(record.pts)) has no frame in the video (\(describe(frame)) comes next)")
        }
        pending = nil
        paired += 1
        return record
    }

    /// Frames are taken from the middle of the records (`snapshot`): `record(for:)` finds each
    /// by its pts (see `record(matching:)`).
    public var seeking = false

    /// The record with the frame's pts, skipping earlier records (`snapshot`: one frame, not a run
    /// from the start). Index numbers are not compared: they count from where decoding began.
    public func record(matching frame: VideoFrame) throws -> FrameRecord {
        while let record = try peek() {
            if record.pts == frame.pts {
                pending = nil
                return record
            }
            if record.pts > frame.pts { break }
            pending = nil
        }
        throw mismatch("\(describe(frame)) has no record")
    }

    /// Track records read since the last call (they close tracks as the run goes).
    public func takeEndedTracks() -> [TrackRecord] {
        defer { ended.removeAll() }
        return ended
    }

    /// After the last decoded frame: no frame record may be left over.
    public func finish(framesDecoded: Int) throws {
        if let record = try peek() {
            throw mismatch("the record of frame \(record.index) (line \(reader.line), pts \(record.pts)) has no frame in the video (it ends after \(framesDecoded) frames)")
        }
    }
}
