import CFFmpeg
import Foundation

/// Draws each frame's observations into a copy of its picture and hands it to an MP4 writer,
/// with the input's audio packets interleaved.
public final class OverlayRenderer {
    private let painter: OverlayPainter
    private let writer: MP4Writer
    /// Where audio packets to copy come from (nil: no audio).
    private let audioSource: VideoFileSource?
    private var scaler: OpaquePointer?

    public init(painter: OverlayPainter, writer: MP4Writer, audioFrom source: VideoFileSource? = nil) {
        self.painter = painter
        self.writer = writer
        audioSource = writer.hasAudio ? source : nil
    }

    deinit { sws_freeContext(scaler) }

    public func render(_ record: FrameRecord, on frame: VideoFrame) throws {
        let picture = try Picture(copying: frame, scaler: &scaler)
        painter.draw(record, on: picture)
        if let audioSource { try writer.writeAudio(audioSource.takeAudioPackets()) }
        try writer.write(picture.frame!)
    }

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
