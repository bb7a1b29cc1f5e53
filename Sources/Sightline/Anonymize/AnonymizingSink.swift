import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// Writes the video with every face covered, masks placed from the tracks (`MaskPlanner`).
/// Frames are held back `lookBack` frames, so a track found at frame k also covers the frames
/// before it. Held frames are copies (the decoder's frame is shared with the analyzers), or, when
/// a second decoding of the same input is given (`frames`), not kept at all: each frame is
/// decoded again when it is written (decoding is exact, so it is the same picture), which keeps
/// 15 frames (47 MB at 1080p) out of memory for a decoder's few reference frames.
public final class AnonymizingSink: FrameSink {
    private let options: AnonymizeOptions
    private let planner: MaskPlanner
    private let hider: FaceHider
    private let writer: MP4Writer
    private let audioSource: VideoFileSource?
    private let scaler = FrameScaler()
    /// The input decoded a second time, in step behind the analysis (nil: frames are copied).
    private let frames: FrameSource?
    /// At most `lookBack` + 1 frames, oldest first (no picture when it is decoded again).
    private var held: [(index: Int, pts: Int64, picture: Picture?)] = []
    /// The picture last written, whose memory the next copy takes over (the encoder has its own).
    private var written: Picture?
    /// Frames written and masks drawn (for the summary line of `anonymize`).
    public private(set) var framesWritten = 0
    public private(set) var masksDrawn = 0

    /// With a `.mask(path)` style the image is loaded here, before any output is written.
    public init(options: AnonymizeOptions, writer: MP4Writer, audioFrom source: VideoFileSource? = nil,
                frames: FrameSource? = nil) throws {
        self.options = options
        self.frames = frames
        planner = MaskPlanner(options: options)
        hider = try FaceHider(style: options.style, shape: options.shape)
        self.writer = writer
        audioSource = writer.hasAudio ? source : nil
    }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        planner.add(record)
        guard let picture else { return }
        held.append((record.index, picture.pts, frames == nil ? try Picture(copying: picture, scaler: scaler, reusing: written) : nil))
        while held.count > options.lookBack { try writeOldest() }
    }

    public func discontinuity(_ record: DiscontinuityRecord) throws { planner.boundary(before: record.index) }

    private func writeOldest() throws {
        let (index, pts, kept) = held.removeFirst()
        let picture = try kept ?? decodedAgain(index: index, pts: pts)
        let boxes = planner.masks(for: index)
        hider.hide(boxes, on: picture)
        masksDrawn += boxes.count
        if let audioSource { try writer.writeAudio(audioSource.takeAudioPackets()) }
        try writer.write(picture.frame!)
        written = picture
        framesWritten += 1
    }

    /// Frame `index` of the second decoding (the frames before it, which had no picture to
    /// write, are passed over).
    private func decodedAgain(index: Int, pts: Int64) throws -> Picture {
        while let frame = try frames?.nextFrame(), frame.index <= index {
            guard frame.index == index else { continue }
            guard frame.pts == pts else { break }
            return try Picture(copying: frame, scaler: scaler, reusing: written)
        }
        throw SightlineError.internal("frame \(index) of the input was not the same when decoded again")
    }

    public func finish(_ summary: SummaryRecord) throws {
        while !held.isEmpty { try writeOldest() }
        try close()
    }

    /// Closes the video with the frames written; held frames are dropped, never written unmasked.
    public func abandon() { try? close() }

    private func close() throws {
        held = []
        written = nil
        var audioError: Error?
        if let audioSource {
            do { try writer.writeAudio(audioSource.takeAudioPackets()) } catch { audioError = error }
        }
        try writer.finish()
        if let audioError { throw audioError }
    }
}
