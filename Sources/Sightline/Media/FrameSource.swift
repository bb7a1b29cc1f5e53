import SightlineFrames

/// Where the pipeline's frames come from: a video file, or a live camera.
/// One instance is used by one thread (the pipeline's reading thread).
public protocol FrameSource: AnyObject {
    /// What the `stream` record says about the video.
    var info: VideoStreamInfo { get }
    /// Problems met while reading that did not stop the run.
    var damage: DecodeDamage { get }
    /// The next frame in presentation order, or nil at the end.
    func nextFrame() throws -> VideoFrame?
    /// A live source (a camera) never waits for analysis; its summary says how many frames the
    /// driver dropped before they could be read (`lostFrames`).
    var isLive: Bool { get }
    var lostFrames: Int { get }
    /// Frames a live source passed over before the run asked for its first (a network stream
    /// read while the networks were made ready): not analyzed, and not late either.
    var framesBeforeStart: Int { get }
    /// The frame just before the first one delivered, when reading began later in the stream
    /// (read after the first `nextFrame`); nil otherwise.
    var frameBeforeStart: VideoFrame? { get }
    /// Makes a blocking read return at once (a stop); safe from any thread. A network stream
    /// implements it; a file or camera returns within a frame anyway.
    func interruptReading()
    /// Starts the frames coming, once the analysis is ready for them (a camera streams from
    /// here; a file or a network stream, which buffers, needs nothing). Called before any output.
    func start() throws
}

extension FrameSource {
    public var isLive: Bool { false }
    public var lostFrames: Int { 0 }
    public var framesBeforeStart: Int { 0 }
    public var frameBeforeStart: VideoFrame? { nil }
    public func interruptReading() {}
    public func start() throws {}
}

extension VideoFileSource: FrameSource {}
