import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// A run's first frame drawn with its overlays as a PNG (`snapshot`).
public final class StillSink: FrameSink {
    private let painter: OverlayPainter
    private let path: String
    /// The record drawn, as written (nil until a frame came).
    public private(set) var record: FrameRecord?

    public init(painter: OverlayPainter, path: String) {
        self.painter = painter
        self.path = path
    }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        guard self.record == nil, let picture else { return }
        let drawn = record.written
        try PNGWriter.write(try painter.still(drawn, on: picture), to: path)
        self.record = record
    }
}
