import CFFmpeg

/// Writes the video with every face covered, masks placed from the tracks (`MaskPlanner`).
/// Frames are held back `lookBack` frames, so a track found at frame k also covers the frames
/// before it; held frames are copies (the decoder's frame is shared with the analyzers).
public final class AnonymizingSink: FrameSink {
    private let options: AnonymizeOptions
    private let planner: MaskPlanner
    private let hider: FaceHider
    private let writer: MP4Writer
    private let audioSource: VideoFileSource?
    private var scaler: OpaquePointer?
    /// At most `lookBack` + 1 frames, oldest first.
    private var held: [(index: Int, picture: Picture)] = []
    /// Frames written and masks drawn (for the summary line of `anonymize`).
    public private(set) var framesWritten = 0
    public private(set) var masksDrawn = 0

    /// With a `.mask(path)` style the image is loaded here, before any output is written.
    public init(options: AnonymizeOptions, writer: MP4Writer, audioFrom source: VideoFileSource? = nil) throws {
        self.options = options
        planner = MaskPlanner(options: options)
        hider = try FaceHider(style: options.style, shape: options.shape)
        self.writer = writer
        audioSource = writer.hasAudio ? source : nil
    }

    deinit { sws_freeContext(scaler) }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        planner.add(record)
        guard let picture else { return }
        held.append((record.index, try Picture(copying: picture, scaler: &scaler)))
        while held.count > options.lookBack { try writeOldest() }
    }

    public func discontinuity(_ record: DiscontinuityRecord) throws { planner.boundary(before: record.index) }

    private func writeOldest() throws {
        let (index, picture) = held.removeFirst()
        let boxes = planner.masks(for: index)
        hider.hide(boxes, on: picture)
        masksDrawn += boxes.count
        if let audioSource { try writer.writeAudio(audioSource.takeAudioPackets()) }
        try writer.write(picture.frame!)
        framesWritten += 1
    }

    public func finish(_ summary: SummaryRecord) throws {
        while !held.isEmpty { try writeOldest() }
        try close()
    }

    /// Closes the video with the frames written; held frames are dropped, never written unmasked.
    public func abandon() { try? close() }

    private func close() throws {
        held = []
        var audioError: Error?
        if let audioSource {
            do { try writer.writeAudio(audioSource.takeAudioPackets()) } catch { audioError = error }
        }
        try writer.finish()
        if let audioError { throw audioError }
    }
}
