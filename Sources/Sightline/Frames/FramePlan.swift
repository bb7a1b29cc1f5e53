/// Which analyses run on which frames. One place decides (`planner()` gives each frame its
/// `FramePlan`), so the pipeline, the tracking stage, a shard and the stream record agree.
public struct Schedule: Sendable, Equatable {
    /// Full-frame detection (faces and codes) on every Nth frame of the stream; on the frames
    /// between, the tracking stage searches around known objects.
    public var detectEvery = 1
    /// The whole-frame code search on every Nth frame; between, known codes are read in their regions.
    public var codeFullEvery = 15
    /// The full-scale tiles small faces are searched on, one per detection frame in turn (0 or 1:
    /// none; the whole-frame pass already finds the smallest faces asked for). Set by the run
    /// from the frame size and the face detector (`TileGrid`).
    public var tiles = 0
    /// The stream's first frame is searched on every tile (the faces a video opens on, before
    /// the rotation); false: live without looking back, where the first record is wanted now and
    /// the tiles take their turns from the first frame.
    public var everyTileFirst = true

    public init(detectEvery: Int = 1, codeFullEvery: Int = 15, tiles: Int = 0) {
        self.detectEvery = max(1, detectEvery)
        self.codeFullEvery = max(1, codeFullEvery)
        self.tiles = max(0, tiles)
    }

    /// The tile searched on the detection frame at `position`: tiles follow one another by the
    /// position's detection slot (position / `detectEvery`), so a shard searches the same tile on
    /// each frame as the whole run, whatever its cut.
    public func tile(at position: Int) -> Int? {
        tiles > 1 ? (position / detectEvery) % tiles : nil
    }

    /// Whether the code reader searches the whole frame at `position` in the stream (the
    /// record's `index`), so a shard searches the same frames as the whole run, whatever its cut.
    public func fullCodeSearch(at position: Int) -> Bool { codeFullEvery <= 1 || position % codeFullEvery == 0 }

    /// The plans of one run's frames, in the order they are read.
    public func planner() -> FramePlanner { FramePlanner(schedule: self) }
}

/// What the detectors do on one frame. The tracking stage then searches around every known
/// object where the whole-frame search did not run.
public struct FramePlan: Sendable, Equatable {
    /// Whole-frame face detection (and the code search, if `fullCodeSearch`); false: the frame
    /// is only recorded.
    public var fullDetection: Bool
    /// The whole-frame code search.
    public var fullCodeSearch: Bool
    /// With `fullDetection`: the full-scale tile of the frame also searched for small faces
    /// (`Schedule.tiles`; nil: the whole frame is searched down to the smallest face).
    public var tile: Int?

    public init(fullDetection: Bool, fullCodeSearch: Bool, tile: Int? = nil) {
        self.fullDetection = fullDetection
        self.fullCodeSearch = fullCodeSearch
        self.tile = tile
    }

    /// Every detector on the whole frame (a still, a scan's sample).
    public static let whole = FramePlan(fullDetection: true, fullCodeSearch: true)
}

/// Gives each frame its `FramePlan`, by its position in the stream: full detection on positions
/// 0, N, 2N… (N = `detectEvery`), also in a run that starts later (a shard keeps the whole run's
/// phase, so both detect on the same frames). A live source that drops a full-detection frame
/// (`dropped`) passes the duty on to the next frame analyzed, so new objects still appear
/// within N frames.
public struct FramePlanner: Sendable {
    public let schedule: Schedule
    /// The position of the last frame that got full detection (nil before the first frame).
    private var lastDetection: Int?

    package init(schedule: Schedule) { self.schedule = schedule }

    /// The plan of the frame at `position`; call `analyzed` once it is sure to be analyzed.
    /// `last`: the frame is the stream's last (a file's end, known by reading one frame ahead).
    public mutating func plan(at position: Int, last: Bool = false) -> FramePlan {
        if lastDetection == nil {
            let phase = position % schedule.detectEvery
            lastDetection = phase == 0 ? Int.min / 2 : position - phase
        }
        // The stream's last frame is searched as its first: whole, on every tile, for codes too.
        // What appeared since its tile's or the code search's last turn is found there, and
        // looking back takes it to its first frame (else it would never be found at all).
        if last { return .whole }
        let detect = position - lastDetection! >= schedule.detectEvery
        // The stream's first frame is searched whole down to the smallest face (a still, a
        // photo, the faces a video opens on); the tiles take turns after it.
        let everyTile = position == 0 && schedule.everyTileFirst
        return FramePlan(fullDetection: detect, fullCodeSearch: detect && schedule.fullCodeSearch(at: position),
                         tile: detect && !everyTile ? schedule.tile(at: position) : nil)
    }

    /// The frame at `position` goes to the analyzers with `plan` (a frame a live source drops
    /// is not reported, so its full detection moves on to the next frame).
    public mutating func analyzed(at position: Int, _ plan: FramePlan) {
        if plan.fullDetection { lastDetection = position }
    }
}
