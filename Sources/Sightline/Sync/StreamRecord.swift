import SightlineFrames
import SightlineMedia
import SightlineRecords
import SightlineTracking

/// The first line: what was read and how it was analyzed.
public struct StreamRecord: Sendable {
    public var tool: String
    public var stream: VideoStreamInfo
    public var faces: ResolvedFaceDetector
    public var codes: CodeReaderOptions
    public var schedule: Schedule
    public var tracking: TrackingConfiguration
    /// Shot-cut detection (nil: off).
    public var cuts: CutOptions?
    /// Face identities (nil: off).
    public var identities: IdentityOptions?
    public var start: Double?
    public var duration: Double?
    /// Seconds before `start` that were analyzed and tracked but not written (a shard's warm-up).
    public var warmup: Double?
    /// Live capture only: the camera, and how the run treats it.
    public var camera: CameraFacts?
    /// A capture of several cameras: this one's name (`--camera NAME=SOURCE`).
    public var cameraName: String?

    /// The stream record of a run that detects: its source, and its analyzers as the run
    /// resolved them (model, runtime and its version). `start`, `duration`, `warmup`: the span
    /// of the file asked for.
    public init(run: Run, start: Double? = nil, duration: Double? = nil, warmup: Double? = nil) {
        tool = "sightline \(sightlineVersion)"
        stream = run.configuration.source.info
        faces = run.faces ?? .off
        codes = run.codes ?? CodeReaderOptions(backend: .off)
        schedule = run.schedule
        tracking = run.tracking ?? TrackingConfiguration(maxGap: 0, detectEvery: schedule.detectEvery)
        cuts = run.cuts
        identities = run.identities
        self.start = start
        self.duration = duration
        self.warmup = warmup
    }
}
