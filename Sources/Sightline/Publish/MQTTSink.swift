import Foundation
import SightlineFrames
import SightlineMedia
import SightlineAnalysis

/// Which frame records a camera publishes on `PREFIX/NAME/frame`.
public enum PublishedFrames: String, CaseIterable, Sendable {
    /// Every frame record.
    case all
    /// Frames with a face or a code.
    case observed
    /// None (events and status only).
    case none
}

/// One camera's records, published through its `MQTTPublisher` (a connection per camera):
/// - `PREFIX/NAME/stream`: the stream record, retained;
/// - `PREFIX/NAME/frame`: frame records (`PublishedFrames`);
/// - `PREFIX/NAME/event`: `event` records (a track begun, a code confirmed), and the track, cut,
///   discontinuity and summary records as the file has them;
/// - `PREFIX/NAME/status`: `online`, then `offline` (retained; the last will says it on a crash).
///
/// Payloads are the records' JSON Lines text, byte for byte, without the newline.
public final class MQTTSink: FrameSink {
    private let publisher: MQTTPublisher
    private let frames: PublishedFrames
    private let frameTopic: String, eventTopic: String
    /// Tracks whose first frame was published as an event, and code tracks confirmed.
    private var begun = Set<Int>(), confirmed = Set<Int>()
    /// This camera's messages the queue had no room for.
    private var notPublished = 0

    public init(publisher: MQTTPublisher, camera: String, stream: StreamRecord, frames: PublishedFrames) {
        self.publisher = publisher
        self.frames = frames
        frameTopic = publisher.options.topic(camera, "frame")
        eventTopic = publisher.options.topic(camera, "event")
        publisher.send(publisher.options.topic(camera, "stream"), Self.payload(stream.json), retain: true)
        publisher.announce()
    }

    private static func payload(_ record: JSON) -> Data { Data(record.serialized().utf8) }

    private func send(_ topic: String, _ record: JSON) {
        if !publisher.send(topic, Self.payload(record)) { notPublished += 1 }
    }

    private func event(_ record: JSON) { send(eventTopic, record) }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        for face in record.faces {
            if let track = face.track, begun.insert(track).inserted { event(Self.event("track_begun", record, track: track, face.json)) }
        }
        for code in record.codes {
            guard let track = code.track else { continue }
            if begun.insert(track).inserted { event(Self.event("track_begun", record, track: track, code.json)) }
            if code.state == .confirmed, confirmed.insert(track).inserted {
                event(Self.event("code_confirmed", record, track: track, code.json))
            }
        }
        let observed = !record.faces.isEmpty || !record.codes.isEmpty
        if frames == .all || (frames == .observed && observed) { send(frameTopic, record.json) }
    }

    public func tracksEnded(_ tracks: [TrackRecord]) throws { tracks.forEach { event($0.json) } }
    public func cut(_ record: CutRecord) throws { event(record.json) }
    public func discontinuity(_ record: DiscontinuityRecord) throws { event(record.json) }
    /// Waits for the broker to take what waits (up to `BrokerOptions.drainSeconds`): what it did
    /// not, and what the queue had no room for, is `unpublished`.
    public func complete(_ summary: inout SummaryRecord) {
        summary.unpublished = notPublished + publisher.drain()
    }

    public func finish(_ summary: SummaryRecord) throws { event(summary.json) }

    /// An `event` record: what happened, on which frame, to which track, with the object as the
    /// frame record has it.
    static func event(_ name: String, _ frame: FrameRecord, track: Int, _ object: JSON) -> JSON {
        .object([("type", .string("event")), ("event", .string(name)), ("index", .int(Int64(frame.index))),
                 ("pts", .int(frame.pts)), ("t", .fixed(frame.t, digits: Precision.seconds)), ("track", .int(Int64(track))),
                 ("object", object)])
    }
}
