/// The record types Sightline writes, one JSON object per line (see Schemas/).

/// Version of the record format; bumped when a field changes meaning or disappears.
public let recordSchemaVersion = 2
/// Schema 2 put `t` on the file's presentation timeline (pts × time base − the container's start
/// time) and made `index` the frame's position in the stream also when a run starts later; in
/// schema 1 both counted from the first frame read.
public let firstSchemaOnFileTimeline = 2

/// What happened to one analyzer on one frame.
public enum AnalyzerStatus: String, Sendable {
    /// Ran on the frame (found something or not).
    case ok
    /// Not enabled for this run.
    case off
    /// Not run on this frame (detection stride) and no region search either.
    case skipped
    /// Not run on the whole frame (detection stride); searched around known tracks instead.
    case refined
    /// Failed on this frame; the error is counted in the summary.
    case error
    /// Not run: a live source delivered the frame while the analyzers were busy with earlier ones.
    case dropped
}

/// The first line: what was read and how it was analyzed.
public struct StreamRecord: Sendable {
    public var tool: String
    public var stream: VideoStreamInfo
    public var faces: FaceDetectorOptions
    public var codes: CodeReaderOptions
    public var tracking: TrackingConfiguration
    public var start: Double?
    public var duration: Double?
    /// Seconds before `start` that were analyzed and tracked but not written (a shard's warm-up).
    public var warmup: Double?
    /// Live capture only: the camera, and how the run treats it.
    public var camera: CameraFacts?

    public init(tool: String, stream: VideoStreamInfo, faces: FaceDetectorOptions, codes: CodeReaderOptions,
                tracking: TrackingConfiguration, start: Double? = nil, duration: Double? = nil, warmup: Double? = nil) {
        self.tool = tool
        self.warmup = warmup
        self.stream = stream
        self.faces = faces
        self.codes = codes
        self.tracking = tracking
        self.start = start
        self.duration = duration
    }
}

/// One line per decoded frame, in presentation order, also when nothing was found.
public struct FrameRecord: Sendable {
    /// Position in the stream, in presentation order, from 0 (also when the run started later).
    public var index: Int
    public var pts: Int64
    /// Seconds on the file's presentation timeline: pts × time base − the container's start time.
    public var t: Double
    public var faceStatus: AnalyzerStatus
    public var codeStatus: AnalyzerStatus
    public var faces: [FaceObservation]
    public var codes: [CodeObservation]

    public init(index: Int, pts: Int64, t: Double, faceStatus: AnalyzerStatus, codeStatus: AnalyzerStatus,
                faces: [FaceObservation], codes: [CodeObservation]) {
        self.index = index
        self.pts = pts
        self.t = t
        self.faceStatus = faceStatus
        self.codeStatus = codeStatus
        self.faces = faces
        self.codes = codes
    }
}

/// The last line: counts, and what went wrong without stopping the run.
public struct SummaryRecord: Sendable {
    public var frames = 0
    public var framesWithFaces = 0
    public var framesWithCodes = 0
    public var faceObservations = 0
    public var codeObservations = 0
    /// Distinct (symbology, payload) pairs seen.
    public var distinctCodes: Int { seenCodes.count }
    /// Track records written.
    public var tracks = 0
    public var analyzerErrors = 0
    public var damage = DecodeDamage()
    public var interrupted = false
    /// Live capture only: frame records with a `dropped` status, and frames the camera driver
    /// dropped before they could be read (no record).
    public var live = false
    public var droppedFrames = 0
    public var lostFrames = 0
    /// Only with --timing: wall time makes output differ between runs.
    public var wallSeconds: Double?
    /// Outputs that failed during the run (the rendered video, thumbnails), one "PATH: cause"
    /// each; the records go on without them.
    public var outputErrors: [String] = []
    private var seenCodes = Set<String>()

    public init() {}

    /// Counts one frame record.
    public mutating func add(_ record: FrameRecord) {
        frames += 1
        if !record.faces.isEmpty { framesWithFaces += 1 }
        if !record.codes.isEmpty { framesWithCodes += 1 }
        if record.faceStatus == .dropped || record.codeStatus == .dropped { droppedFrames += 1 }
        faceObservations += record.faces.count
        codeObservations += record.codes.count
        for code in record.codes { seenCodes.insert(code.symbology.rawValue + "\u{0}" + code.text) }
    }
}
