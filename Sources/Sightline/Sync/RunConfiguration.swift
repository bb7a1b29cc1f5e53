/// Which analyses run on which frames. One place decides, so the pipeline, the tracking stage
/// and the stream record agree.
public struct Schedule: Sendable, Equatable {
    /// Full-frame detection (faces and codes) on every Nth frame of the stream; on the frames
    /// between, the tracking stage searches around known objects.
    public var detectEvery = 1
    /// The whole-frame code search on every Nth frame; between, known codes are read in their regions.
    public var codeFullEvery = 15

    public init(detectEvery: Int = 1, codeFullEvery: Int = 15) {
        self.detectEvery = max(1, detectEvery)
        self.codeFullEvery = max(1, codeFullEvery)
    }

    /// Whether the code reader searches the whole of `frame`: by the frame's position in the stream (the
    /// record's `index`), so a shard searches the same frames as the whole run, whatever its cut.
    public func fullCodeSearch(_ frame: VideoFrame) -> Bool { codeFullEvery <= 1 || frame.position % codeFullEvery == 0 }
}

/// Frames whose records were saved by an earlier run (`render`, `snapshot --records`): a run
/// reads them instead of analyzing.
public protocol RecordedFrames: AnyObject {
    /// The record of `frame`, which must be the next one the records hold.
    func record(for frame: VideoFrame) throws -> FrameRecord
    /// Tracks whose last frame has been handed out.
    func takeEndedTracks() -> [TrackRecord]
    /// The source has no more frames: checks that the records have none either.
    func finish(framesDecoded: Int) throws
}

/// What turns frames into records.
public enum Analysis {
    /// The detectors, on worker threads.
    case detect(faces: FaceDetectorOptions, codes: CodeReaderOptions)
    /// Records saved by an earlier run.
    case replay(RecordedFrames)
}

/// Everything a `Run` is made of.
public struct RunConfiguration {
    public var source: FrameSource
    public var analysis: Analysis
    public var schedule = Schedule()
    /// Track ids (nil: none, every frame stands alone, as a still taken by `snapshot`).
    public var tracking: TrackerOptions? = TrackerOptions()
    /// Shot-cut detection (nil: off). Every track ends at a cut.
    public var cuts: CutOptions? = CutOptions()
    /// Face identities: tracks linked into people by SFace embeddings (nil: off; needs tracking
    /// and a face detector that gives landmarks).
    public var identities: IdentityOptions?
    /// Analysis worker threads.
    public var threads = 1
    /// What the reading thread does when the workers are behind.
    public var backpressure = BackpressurePolicy.wait
    /// Frames before this time (seconds) are a shard's warm-up: analyzed and tracked, handed to
    /// the sinks as warm-up frames only (tracks ending there too are left out).
    public var warmupEnds: Double?
    /// Stop after this many frames.
    public var frameLimit: Int?
    /// Add the wall time to the summary (output then differs between runs).
    public var timing = false

    public init(source: FrameSource, analysis: Analysis) {
        self.source = source
        self.analysis = analysis
    }
}
