import SightlineFrames
import SightlineMedia
import SightlineTracking

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
    /// The detectors, on worker threads (the face detector resolved once for all of them).
    case detect(faces: ResolvedFaceDetector, codes: CodeReaderOptions)
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
    /// Workers shared with other runs (a capture of several cameras); nil: the run makes its own.
    package var sharedWorkers: AnalysisWorkers?
    /// What the reading thread does when the workers are behind.
    public var backpressure = BackpressurePolicy.wait
    /// Frames before this time (seconds) are a shard's warm-up: analyzed and tracked, handed to
    /// the sinks as warm-up frames only (tracks ending there too are left out).
    public var warmupEnds: Double?
    /// Frames from this time on (seconds) are a cool-down (`SourceOptions.cooldownFrames`):
    /// analyzed and tracked so that looking back completes the frames before it (a small face a
    /// tile finds after the span's end), never handed to the sinks; the run stops once every frame
    /// before it is settled.
    public var outputEnds: Double?
    /// Frames are held until the full searches after them have run, so a track begins on the
    /// first frame its object shows (false: live capture's default; each record is handed on as
    /// soon as its frame is tracked).
    public var lookBack = true
    /// Stop after this many frames.
    public var frameLimit: Int?
    /// Add the wall time to the summary (output then differs between runs).
    public var timing = false

    public init(source: FrameSource, analysis: Analysis) {
        self.source = source
        self.analysis = analysis
    }
}
