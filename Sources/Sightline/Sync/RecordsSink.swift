import SightlineFrames
import SightlineMedia
import SightlineRecords

/// The JSON Lines output of a run: the stream record first, a frame record per frame (warm-up
/// frames as `warmup` records), track records as tracks end, the summary last.
public final class RecordsSink: FrameSink {
    private let writer: JSONLinesWriter

    /// Writes the stream record at once. `atomically`: the file gets its name only when the run
    /// completes (see `AtomicFile`): a part of a video, which a merge must never take half done.
    public init(path: String, stream: StreamRecord, atomically: Bool = false) throws {
        writer = try JSONLinesWriter(path: path, atomically: atomically)
        try writer.write(stream.json)
    }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws { try writer.write(record.json) }
    public func warmupFrame(_ record: FrameRecord) throws { try writer.write(record.warmupJSON) }
    public func tracksEnded(_ tracks: [TrackRecord]) throws { for track in tracks { try writer.write(track.json) } }
    public func cut(_ record: CutRecord) throws { try writer.write(record.json) }
    public func discontinuity(_ record: DiscontinuityRecord) throws { try writer.write(record.json) }
    public func identitySamples(_ samples: [IdentitySample]) throws { for sample in samples { try writer.write(sample.json) } }
    public func identitiesFound(_ records: [IdentityRecord]) throws { for record in records { try writer.write(record.json) } }

    /// Writes the summary; a run that was not interrupted gives the file its name.
    public func finish(_ summary: SummaryRecord) throws {
        try writer.write(summary.json)
        if !summary.interrupted { try writer.commit() }
    }
}
