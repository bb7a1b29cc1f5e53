import Foundation
import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// Draws each frame's observations into a copy of its picture and hands it to an MP4 writer,
/// with the input's audio packets interleaved. As a run's sink it draws the records as written,
/// as `render` from the written records will.
public final class OverlayRenderer: FrameSink {
    private let painter: OverlayPainter
    private let writer: MP4Writer
    /// Where audio packets to copy come from (nil: no audio).
    private let audioSource: VideoFileSource?
    private let scaler = FrameScaler()
    /// The last frame the analyzers saw: a dropped frame is drawn with its overlays, so they do
    /// not flicker in a recording.
    private var lastAnalyzed: FrameRecord?
    /// The picture last written, whose memory the next copy takes over (the encoder has its own).
    private var written: Picture?
    /// Whether frames are left out of the video now (SIGUSR1 pauses a capture's recording).
    public var isPaused: () -> Bool = { false }

    public init(painter: OverlayPainter, writer: MP4Writer, audioFrom source: VideoFileSource? = nil) {
        self.painter = painter
        self.writer = writer
        audioSource = writer.hasAudio ? source : nil
    }

    public func render(_ record: FrameRecord, on frame: VideoFrame) throws {
        let picture = try Picture(copying: frame, scaler: scaler, reusing: written)
        painter.draw(record, on: picture)
        if let audioSource { try writer.writeAudio(audioSource.takeAudioPackets()) }
        try writer.write(picture.frame!)
        written = picture
    }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        guard let picture else { return }
        let drawn = record.written
        let dropped = record.faceStatus == .dropped || record.codeStatus == .dropped
        if !dropped { lastAnalyzed = drawn }
        guard !isPaused() else { return }
        try render(dropped ? lastAnalyzed ?? drawn : drawn, on: picture)
    }

    public func finish(_ summary: SummaryRecord) throws { try finish() }

    /// The video keeps what was written: the encoder is drained and the file closed.
    public func abandon() { try? finish() }

    /// Closes the video; it is closed (and stays playable) also when the last audio fails.
    public func finish() throws {
        var audioError: Error?
        if let audioSource {
            do { try writer.writeAudio(audioSource.takeAudioPackets()) } catch { audioError = error }
        }
        try writer.finish()
        if let audioError { throw audioError }
    }
}
