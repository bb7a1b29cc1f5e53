import SightlineFrames
import SightlineMedia

/// A sink that keeps everything a run hands out, in order: what a test of `Run` reads back
/// in-process, instead of parsing a records file.
public final class CollectingSink: FrameSink {
    public private(set) var frames: [FrameRecord] = []
    public private(set) var warmupFrames: [FrameRecord] = []
    public private(set) var tracks: [TrackRecord] = []
    public private(set) var cuts: [CutRecord] = []
    public private(set) var identities: [IdentityRecord] = []
    public private(set) var summary: SummaryRecord?

    public init() {}

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws { frames.append(record) }
    public func warmupFrame(_ record: FrameRecord) throws { warmupFrames.append(record) }
    public func tracksEnded(_ tracks: [TrackRecord]) throws { self.tracks += tracks }
    public func cut(_ record: CutRecord) throws { cuts.append(record) }
    public func identitiesFound(_ records: [IdentityRecord]) throws { identities += records }
    public func finish(_ summary: SummaryRecord) throws { self.summary = summary }
}
