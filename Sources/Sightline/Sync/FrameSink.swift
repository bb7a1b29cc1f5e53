import SightlineFrames
import SightlineMedia

/// One output of a run: it takes the frames in presentation order with their track ids, the
/// tracks as they end, and the summary at the end. The JSON Lines writer, the rendered video,
/// thumbnails, a still, the report collector and the progress line are sinks.
///
/// A sink that throws is closed with what it has (`abandon`) and left out from then on; the
/// other sinks go on, and its error is counted in the summary's `output_errors`.
public protocol FrameSink: AnyObject {
    /// A frame, with its picture (nil when the frames come from saved records alone).
    func frame(_ record: FrameRecord, picture: VideoFrame?) throws
    /// A frame of a shard's warm-up: analyzed and tracked, not part of the output.
    func warmupFrame(_ record: FrameRecord) throws
    /// Tracks that ended with the last frame, in id order.
    func tracksEnded(_ tracks: [TrackRecord]) throws
    /// A shot boundary: the next frame starts a new shot (the tracks it ended came first).
    func cut(_ record: CutRecord) throws
    /// The stream stops being continuous before the next frame (clock jump, size change,
    /// reconnection); the tracks it ended came first.
    func discontinuity(_ record: DiscontinuityRecord) throws
    /// The faces a shard run embedded on the frame just given (`--identities on` with a warm-up).
    func identitySamples(_ samples: [IdentitySample]) throws
    /// The people found (`--identities on`), after the last tracks ended.
    func identitiesFound(_ records: [IdentityRecord]) throws
    /// The run is over; before any sink is finished, each adds what it alone counted (a
    /// publisher's records the broker never got).
    func complete(_ summary: inout SummaryRecord)
    /// The run is over: `summary` counts every frame and track, and the outputs that failed.
    func finish(_ summary: SummaryRecord) throws
    /// This sink failed: keep what it has (a video stays playable), take nothing more.
    func abandon()
    /// Whether the run goes on for this sink alone (false for the progress line: a run whose
    /// outputs all failed stops).
    var isOutput: Bool { get }
}

extension FrameSink {
    public func warmupFrame(_ record: FrameRecord) throws {}
    public func tracksEnded(_ tracks: [TrackRecord]) throws {}
    public func cut(_ record: CutRecord) throws {}
    public func discontinuity(_ record: DiscontinuityRecord) throws {}
    public func identitySamples(_ samples: [IdentitySample]) throws {}
    public func identitiesFound(_ records: [IdentityRecord]) throws {}
    public func complete(_ summary: inout SummaryRecord) {}
    public func finish(_ summary: SummaryRecord) throws {}
    public func abandon() {}
    public var isOutput: Bool { true }
}
