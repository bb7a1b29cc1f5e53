import Foundation
import SightlineFrames
import SightlineRecords

/// How the frames of two record files are paired.
public enum FrameMatching: String, CaseIterable, Sendable {
    /// Same frame index.
    case index
    /// Nearest presentation time, within half a frame interval.
    case time
}

/// One frame as seen by both files. Either side may be missing (that file has no such frame).
public struct AlignedFrame: Sendable {
    /// The reference side's frame index (the truth's, or the first file's in a diff).
    public var index: Int
    /// Seconds from the stream's start.
    public var t: Double
    public var reference: FrameRecord?
    public var other: FrameRecord?
}

/// Problems that stop two files from being compared at all.
public enum AlignmentError: Error, CustomStringConvertible, Sendable {
    case noFrameRate(String, String)

    public var description: String {
        switch self {
        case let .noFrameRate(a, b):
            return "--match time needs a frame rate, and neither \(a) nor \(b) has a stream record with frame_rate (use --match index)"
        }
    }
}

/// Pairs the frames of a reference file (ground truth, or run A of a diff) with another file's.
///
/// - A Sightline JSON Lines reference lists every frame: the frames compared are its frames, and
///   frames only the other file has are counted (`otherOnly`) and left out.
/// - A MOTChallenge reference lists only frames with boxes: the frames compared are the frames of
///   either file.
/// - When the other file is Sightline JSON Lines, which also lists every frame it read, reference
///   frames before its first or after its last frame are counted (`referenceOutside`) and left out,
///   so a run over part of the video (`--start`, `--duration`) is held against that part.
/// - `union`: the frames of either file, whatever the formats (used to diff two runs).
///
/// By time: MOTChallenge frames get t = (frame − 1) / frame rate; each reference frame takes the
/// other file's nearest frame within half a frame interval (once only).
public struct FrameAligner: Sendable {
    public var matching: FrameMatching
    public var union: Bool

    public init(matching: FrameMatching = .index, union: Bool = false) {
        self.matching = matching
        self.union = union
    }

    public struct Result: Sendable {
        public var frames: [AlignedFrame]
        /// Reference frames outside the other file's span of frames, left out.
        public var referenceOutside = 0
        /// Reference frames (within the other file's span) the other file has no frame for.
        public var referenceOnly: Int
        /// Frames of the other file with no reference frame.
        public var otherOnly: Int
        /// Frames of the other file left out of the comparison (only some of `otherOnly`, or all).
        public var otherLeftOut: Int
        /// Frames paired by index whose times differ by more than half a frame interval (both files
        /// Sightline JSON Lines with a frame rate): a sign that --match time was meant.
        public var timeMismatches = 0
    }

    public func align(reference: RecordFile, other: RecordFile) throws -> Result {
        let frameRate = reference.frameRate ?? other.frameRate
        let keepOtherOnly = union || reference.format == .motChallenge
        var result = try pair(reference: reference, other: other, frameRate: frameRate, keepOtherOnly: keepOtherOnly)
        if matching == .index, let frameRate, reference.format == .jsonLines, other.format == .jsonLines {
            result.timeMismatches = result.frames.filter { f in
                guard let r = f.reference, let o = f.other else { return false }
                return abs(r.t - o.t) > 0.5 / frameRate + 1e-6
            }.count
        }
        // Trim the reference to the other file's span of frames when that file lists every frame.
        guard !union, other.format == .jsonLines else { return result }
        let positions = other.frames.map { matching == .index ? Double($0.index) : time($0, in: other, frameRate) }
        guard let low = positions.min(), let high = positions.max() else { return result }
        let tolerance = matching == .index ? 0 : 0.5 / (frameRate ?? 1) + 1e-6
        let inside = { (f: AlignedFrame) -> Bool in
            let position = matching == .index ? Double(f.index) : f.t
            return f.other != nil || (position >= low - tolerance && position <= high + tolerance)
        }
        let outside = result.frames.filter { !inside($0) }
        result.referenceOutside = outside.count
        result.referenceOnly -= outside.count
        result.frames = result.frames.filter(inside)
        return result
    }

    private func pair(reference: RecordFile, other: RecordFile, frameRate: Double?, keepOtherOnly: Bool) throws -> Result {
        switch matching {
        case .index:
            let otherByIndex = Dictionary(other.frames.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
            let referenceIndexes = Set(reference.frames.map(\.index))
            var frames: [AlignedFrame] = []
            var referenceOnly = 0
            for r in reference.frames {
                let o = otherByIndex[r.index]
                if o == nil { referenceOnly += 1 }
                frames.append(AlignedFrame(index: r.index, t: time(r, in: reference, frameRate), reference: r, other: o))
            }
            let unpaired = other.frames.filter { !referenceIndexes.contains($0.index) }
            if keepOtherOnly {
                frames += unpaired.map { AlignedFrame(index: $0.index, t: time($0, in: other, frameRate), reference: nil, other: $0) }
            }
            frames.sort { $0.index < $1.index }
            return Result(frames: frames, referenceOnly: referenceOnly, otherOnly: unpaired.count,
                          otherLeftOut: keepOtherOnly ? 0 : unpaired.count)
        case .time:
            guard let frameRate else { throw AlignmentError.noFrameRate(reference.path, other.path) }
            let tolerance = 0.5 / frameRate + 1e-6   // times are written with 6 decimals
            let others = other.frames.map { (t: time($0, in: other, frameRate), record: $0) }.sorted { $0.t < $1.t }
            var used = [Bool](repeating: false, count: others.count)
            var frames: [AlignedFrame] = []
            var referenceOnly = 0
            for r in reference.frames {
                let t = time(r, in: reference, frameRate)
                // Nearest other frame by time (binary search for the first at or after t).
                var lo = 0, hi = others.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if others[mid].t < t { lo = mid + 1 } else { hi = mid }
                }
                let nearest = [lo - 1, lo].filter { $0 >= 0 && $0 < others.count && !used[$0] }
                    .min { abs(others[$0].t - t) < abs(others[$1].t - t) }
                if let k = nearest, abs(others[k].t - t) <= tolerance {
                    used[k] = true
                    frames.append(AlignedFrame(index: r.index, t: t, reference: r, other: others[k].record))
                } else {
                    referenceOnly += 1
                    frames.append(AlignedFrame(index: r.index, t: t, reference: r, other: nil))
                }
            }
            let unpaired = others.indices.filter { !used[$0] }
            if keepOtherOnly {
                // Frames only the other file has are numbered by their time.
                frames += unpaired.map { k in
                    AlignedFrame(index: Int((others[k].t * frameRate).rounded()), t: others[k].t, reference: nil, other: others[k].record)
                }
            }
            frames.sort { $0.t != $1.t ? $0.t < $1.t : $0.index < $1.index }
            return Result(frames: frames, referenceOnly: referenceOnly, otherOnly: unpaired.count,
                          otherLeftOut: keepOtherOnly ? 0 : unpaired.count)
        }
    }

    /// A frame's time: its `t`, or (frame index) / frame rate for MOTChallenge text, which has no times.
    private func time(_ record: FrameRecord, in file: RecordFile, _ frameRate: Double?) -> Double {
        if file.format == .motChallenge, let frameRate { return Double(record.index) / frameRate }
        return record.t
    }
}
