/// Where the stream stops being one continuous piece: its clock jumped (segments joined end to
/// end, a camera that reconnected), its frames changed size, or a live source reconnected. Every
/// track ends before the frame, as at a shot cut; the record comes right before the frame's record.
public struct DiscontinuityRecord: Sendable, Equatable {
    /// The stream's own clock jumped: the frames go on on a continuous timeline, `offset` (in the
    /// stream's time base) added to the stream's own pts from this frame on.
    public struct ClockJump: Sendable, Equatable {
        /// The stream's own pts of the last frame before the jump, and of this frame.
        public var oldPTS: Int64
        public var newPTS: Int64
        /// What is added to the stream's own pts from here on (the sum of every jump so far).
        public var offset: Int64
        public init(oldPTS: Int64, newPTS: Int64, offset: Int64) {
            self.oldPTS = oldPTS
            self.newPTS = newPTS
            self.offset = offset
        }
    }

    /// A live source lost its stream and opened it again: the wall-clock time without frames, and
    /// the frames the source's frame rate would have given in it (counted in `lost_frames`).
    public struct Reconnect: Sendable, Equatable {
        public var seconds: Double
        public var lostFrames: Int
        public init(seconds: Double, lostFrames: Int) {
            self.seconds = seconds
            self.lostFrames = lostFrames
        }
    }

    /// The frame after the discontinuity (its position in the stream, pts and time).
    public var index: Int
    public var pts: Int64
    public var t: Double
    public var clock: ClockJump?
    /// The displayed size before and from this frame on, when it changed.
    public var previousSize: FrameSize?
    public var size: FrameSize?
    public var reconnect: Reconnect?

    public init(index: Int = 0, pts: Int64 = 0, t: Double = 0, clock: ClockJump? = nil, previousSize: FrameSize? = nil,
                size: FrameSize? = nil, reconnect: Reconnect? = nil) {
        self.index = index
        self.pts = pts
        self.t = t
        self.clock = clock
        self.previousSize = previousSize
        self.size = size
        self.reconnect = reconnect
    }
}
