import Foundation

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
    /// The frame's displayed size, only when it is not the stream record's (a stream that changes
    /// size): boxes are in this frame's own pixels.
    public var frameSize: FrameSize?
    /// Where the face detector looked on this frame (nil: it did not run, or a record written
    /// before records said so).
    public var faceSearch: FaceSearch?

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

/// Where the face detector looked on one frame: the whole frame at one scale, and a full-scale
/// tile of it or every tile (see docs/tracking.md). The region search around known faces is not
/// counted here: how many ran depends on the tracks a run has kept, which a shard's may not
/// (its faces are marked `refined`).
public struct FaceSearch: Sendable, Equatable {
    /// The scale of the whole-frame pass (network input over displayed frame), nil when it did not run.
    public var wholeScale: Double?
    /// The full-scale tile searched for faces too small for the whole-frame pass.
    public var tile: Tile?
    /// Every tile was searched (the stream's first frame, a still): how many.
    public var everyTile: Int?

    /// One tile of a frame's rotation: `index` of `count`, and where it lies in the displayed frame.
    public struct Tile: Sendable, Equatable {
        public var index: Int
        public var count: Int
        public var box: Box
        public init(index: Int, count: Int, box: Box) {
            self.index = index
            self.count = count
            self.box = box
        }
    }

    public init(wholeScale: Double? = nil, tile: Tile? = nil, everyTile: Int? = nil) {
        self.wholeScale = wholeScale
        self.tile = tile
        self.everyTile = everyTile
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
    /// Live capture only: frame records with a `dropped` status, frames the camera driver
    /// dropped before they could be read, and frames a network stream sent before the capture
    /// was ready (the last two have no record).
    public var live = false
    public var droppedFrames = 0
    public var lostFrames = 0
    public var framesBeforeStart = 0
    /// Discontinuity records written (clock jumps, size changes, reconnections).
    public var discontinuities = 0
    /// Live capture only: how late the frame records were (arrival to written or published).
    public var latency: Latency?
    /// `capture --publish` only: records the broker never got (the queue was full, or still
    /// waiting when the run ended).
    public var unpublished: Int?
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

/// Decimal places: geometry in pixels, time in seconds, scores.
package enum Precision {
    package static let pixels = 2
    package static let seconds = 6
    package static let score = 3

    /// A value as the records write it (and as a reader of them gets it back).
    package static func written(_ value: Double, digits: Int) -> Double { Double(format(value, digits: digits)) ?? value }

    /// `value` with `digits` decimals, as the records write it: never "-0.00", 0 for what is not finite.
    package static func format(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return digits == 0 ? "0" : "0." + String(repeating: "0", count: digits) }
        let text = String(format: "%.\(digits)f", value)
        if text.hasPrefix("-"), text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) {
            return String(text.dropFirst())
        }
        return text
    }
    package static func written(_ p: Point) -> Point { Point(x: written(p.x, digits: pixels), y: written(p.y, digits: pixels)) }
    package static func written(_ b: Box) -> Box {
        Box(x: written(b.x, digits: pixels), y: written(b.y, digits: pixels), w: written(b.w, digits: pixels), h: written(b.h, digits: pixels))
    }
}

extension FrameRecord {
    /// The record with its geometry and scores as the records write them: what `render`,
    /// thumbnails and `merge` read back. Drawing and picking from this makes `analyze --render`
    /// and `render` from the written records agree to the pixel.
    public var written: FrameRecord {
        var r = self
        for i in r.faces.indices {
            r.faces[i].box = Precision.written(r.faces[i].box)
            r.faces[i].score = Precision.written(r.faces[i].score, digits: Precision.score)
            if var l = r.faces[i].landmarks {
                l.leftEye = Precision.written(l.leftEye)
                l.rightEye = Precision.written(l.rightEye)
                l.nose = Precision.written(l.nose)
                l.mouthLeft = Precision.written(l.mouthLeft)
                l.mouthRight = Precision.written(l.mouthRight)
                r.faces[i].landmarks = l
            }
            if var a = r.faces[i].attributes {
                a.leftEye = a.leftEye.map(Precision.written)
                a.rightEye = a.rightEye.map(Precision.written)
                a.mouth = a.mouth.map(Precision.written)
                r.faces[i].attributes = a
            }
        }
        for i in r.codes.indices { r.codes[i].polygon = r.codes[i].polygon.map(Precision.written) }
        return r
    }
}

/// Problems met while reading that did not stop the run.
public struct DecodeDamage: Sendable, Equatable {
    /// Packets or frames the decoder rejected or flagged as corrupt.
    public var corruptFrames = 0
    /// The demuxer stopped on an error before the end of the file (truncated or unreadable data).
    public var readError: String?
    /// Frames the decoder emitted with a pts not after the previous frame's (damaged streams do
    /// this); they are dropped, so the frames handed out keep strictly increasing timestamps.
    public var outOfOrderFrames = 0
    public var isEmpty: Bool { corruptFrames == 0 && readError == nil && outOfOrderFrames == 0 }

    public init() {}

    /// Adds another reading's counts (corrupt and out-of-order frames); the read error is the
    /// caller's to decide.
    public mutating func addCounts(of other: DecodeDamage) {
        corruptFrames += other.corruptFrames
        outOfOrderFrames += other.outOfOrderFrames
    }
}

extension DecodeDamage: CustomStringConvertible {
    /// What went wrong, for an error line: "3 corrupt packets or frames skipped; read error: …".
    public var description: String {
        var reasons: [String] = []
        if corruptFrames > 0 { reasons.append("\(corruptFrames) corrupt packets or frames skipped") }
        if outOfOrderFrames > 0 { reasons.append("\(outOfOrderFrames) frames out of presentation order dropped") }
        if let readError { reasons.append(readError) }
        return reasons.joined(separator: "; ")
    }
}

/// How late a live run's records were: each frame's time from its arrival (read from the camera
/// or stream) to its record being written and published, in 1 ms steps up to 60 s.
public struct Latency: Sendable, Equatable {
    public private(set) var frames = 0
    public private(set) var maxMilliseconds = 0.0
    /// Frames by milliseconds; made at the first frame (a run over a file has none).
    private var counts: [Int] = []

    public init() {}

    public mutating func add(milliseconds: Double) {
        if counts.isEmpty { counts = [Int](repeating: 0, count: 60_001) }
        frames += 1
        maxMilliseconds = max(maxMilliseconds, milliseconds)
        counts[min(counts.count - 1, max(0, Int(milliseconds.rounded(.up))))] += 1
    }

    /// The `p` quantile (0...1), in milliseconds, rounded up to the millisecond; 0 without frames.
    public func percentile(_ p: Double) -> Double {
        guard frames > 0 else { return 0 }
        let rank = max(1, Int((p * Double(frames)).rounded(.up)))
        var seen = 0
        for (ms, count) in counts.enumerated() {
            seen += count
            if seen >= rank { return min(Double(ms), maxMilliseconds.rounded(.up)) }
        }
        return maxMilliseconds
    }
}
