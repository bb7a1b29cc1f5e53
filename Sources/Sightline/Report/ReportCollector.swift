import Foundation
import SightlineFrames
import SightlineRecords

/// Gathers what the report page shows from a run's records as they stream by, one frame at a time,
/// so memory grows with the number of tracks and bins, never with the number of frames.
///
/// The frames are cut into at most `maxBins` bins of `binWidth` consecutive frame indexes (1 frame
/// per bin for runs of up to `maxBins` frames). The width starts from the number of frames
/// expected and doubles, merging pairs of bins, whenever a frame lands past the last bin, so the
/// records need not be counted before they are read. Per bin it keeps the time of its first frame and the
/// faces and codes counted; per track the bins where it was seen (runs of equal state: detected,
/// refined, interpolated) and, for hovering, the first observation of the track in each bin.
public final class ReportCollector {
    /// Observation states on a lane, best first wins within a bin.
    public enum LaneState: Int, Sendable { case interpolated = 1, refined = 2, detected = 3 }

    /// One track's lane.
    public struct Lane: Sendable {
        public var id: Int
        public var kind: TrackKind
        public var firstFrame: Int
        public var lastFrame: Int
        public var firstT: Double
        public var lastT: Double
        /// Runs of bins as (first bin, last bin, state) triples.
        public var runs: [Int] = []
        /// Hover samples, one per bin seen: frame index, t, x, y, w, h, score (faces), state.
        public var samples: [Double] = []
    }

    /// A lane being filled, with the bin it is in (a class, so it grows in place).
    private final class OpenLane {
        var lane: Lane
        var bin = -1
        var state = 0
        init(_ lane: Lane) { self.lane = lane }
    }

    public static let maxBins = 10_000
    public private(set) var binWidth: Int
    public private(set) var firstIndex: Int?
    public private(set) var frames = 0
    /// Per bin: time of its first frame, frames, faces and codes in them.
    public private(set) var binTimes: [Double] = []
    public private(set) var binFrames: [Int] = []
    public private(set) var binFaces: [Int] = []
    public private(set) var binCodes: [Int] = []
    /// Lanes by track id (complete after `finish()`), and the track records met.
    public var lanes: [Int: Lane] { open.mapValues(\.lane) }
    private var open: [Int: OpenLane] = [:]
    public private(set) var tracks: [Int: TrackRecord] = [:]
    /// Face scores (detected and refined) counted by value in thousandths.
    public private(set) var faceScores: [Int: Int] = [:]
    /// Code reads (detected and refined) by symbology.
    public private(set) var codeReads: [String: Int] = [:]

    /// `expectedFrames`: about how many frame records the file holds (it sets the bin width).
    public init(expectedFrames: Int) {
        binWidth = max(1, (expectedFrames + Self.maxBins - 1) / Self.maxBins)
    }

    /// Keep every record added (`keptFrames`, `keptTracks`): the report's audit reads them
    /// without reading the file again.
    public var keepsRecords = false
    public private(set) var keptFrames: [FrameRecord] = []
    public private(set) var keptTracks: [TrackRecord] = []

    public func add(_ record: FrameRecord) {
        if keepsRecords { keptFrames.append(record) }
        if firstIndex == nil { firstIndex = record.index }
        while (record.index - (firstIndex ?? 0)) / binWidth >= Self.maxBins { widen() }
        let bin = max(0, (record.index - (firstIndex ?? 0)) / binWidth)
        while binTimes.count <= bin {
            // A bin with no frame of its own (a gap in the indexes) takes the time of the last one.
            binTimes.append(binTimes.count == bin ? record.t : (binTimes.last ?? record.t))
            binFrames.append(0)
            binFaces.append(0)
            binCodes.append(0)
        }
        frames += 1
        binFrames[bin] += 1
        binFaces[bin] += record.faces.count
        binCodes[bin] += record.codes.count
        for face in record.faces {
            if face.source != .interpolated { faceScores[Int((face.score * 1000).rounded()), default: 0] += 1 }
            guard let id = face.track else { continue }
            see(id, .face, record, bin: bin, box: face.box, score: face.score, source: face.source)
        }
        for code in record.codes {
            if code.source != .interpolated { codeReads[code.symbology.rawValue, default: 0] += 1 }
            guard let id = code.track else { continue }
            see(id, .code, record, bin: bin, box: code.box, score: nil, source: code.source)
        }
    }

    public func add(_ track: TrackRecord) {
        if keepsRecords { keptTracks.append(track) }
        tracks[track.id] = track
    }

    /// Closes the runs still open. Call once after the last record.
    public func finish() {
        for lane in open.values { close(lane) }
    }

    private static func state(_ source: ObservationSource) -> LaneState {
        switch source {
        case .detected: return .detected
        case .refined: return .refined
        case .interpolated: return .interpolated
        }
    }

    private func see(_ id: Int, _ kind: TrackKind, _ record: FrameRecord, bin: Int, box: Box, score: Double?,
                     source: ObservationSource) {
        let state = Self.state(source).rawValue
        let o: OpenLane
        if let existing = open[id] {
            o = existing
        } else {
            o = OpenLane(Lane(id: id, kind: kind, firstFrame: record.index, lastFrame: record.index, firstT: record.t, lastT: record.t))
            open[id] = o
        }
        o.lane.lastFrame = record.index
        o.lane.lastT = record.t
        if o.bin != bin {
            close(o)
            o.bin = bin
            o.state = state
            o.lane.samples += [Double(record.index), record.t, box.x, box.y, box.w, box.h, score ?? -1, Double(state)]
        } else {
            o.state = max(o.state, state)
        }
    }

    /// Doubles the bin width: bins 2k and 2k + 1 become bin k (the time of the first, the sums of
    /// the counts), and every lane's runs, samples and open bin follow (the best state of the two
    /// bins, the first observation).
    private func widen() {
        binWidth *= 2
        let pairs = (binTimes.count + 1) / 2
        binTimes = (0..<pairs).map { binTimes[2 * $0] }
        func halve(_ counts: [Int]) -> [Int] { (0..<pairs).map { counts[2 * $0] + (2 * $0 + 1 < counts.count ? counts[2 * $0 + 1] : 0) } }
        binFrames = halve(binFrames)
        binFaces = halve(binFaces)
        binCodes = halve(binCodes)
        let first = firstIndex ?? 0
        for o in open.values {
            // Runs: each bin's state, then runs of equal state again.
            var states: [(bin: Int, state: Int)] = []
            for r in stride(from: 0, to: o.lane.runs.count, by: 3) {
                for bin in o.lane.runs[r]...o.lane.runs[r + 1] {
                    let half = bin / 2, state = o.lane.runs[r + 2]
                    if let last = states.last, last.bin == half {
                        states[states.count - 1].state = max(last.state, state)
                    } else {
                        states.append((half, state))
                    }
                }
            }
            if o.bin >= 0 {
                o.bin /= 2
                // The open bin takes in a closed one it now shares.
                if let last = states.last, last.bin == o.bin {
                    o.state = max(o.state, last.state)
                    states.removeLast()
                }
            }
            o.lane.runs = []
            for (bin, state) in states {
                let n = o.lane.runs.count
                if n >= 3, o.lane.runs[n - 2] == bin - 1, o.lane.runs[n - 1] == state {
                    o.lane.runs[n - 2] = bin
                } else {
                    o.lane.runs += [bin, bin, state]
                }
            }
            // Samples: the first observation of each new bin.
            var samples: [Double] = []
            var lastBin = -1
            for k in stride(from: 0, to: o.lane.samples.count, by: 8) {
                let bin = (Int(o.lane.samples[k]) - first) / binWidth
                if bin != lastBin { samples += o.lane.samples[k..<k + 8] }
                lastBin = bin
            }
            o.lane.samples = samples
        }
    }

    /// Ends the lane's open bin: it extends the last run when adjacent and of the same state.
    private func close(_ o: OpenLane) {
        guard o.bin >= 0 else { return }
        let n = o.lane.runs.count
        if n >= 3, o.lane.runs[n - 2] == o.bin - 1, o.lane.runs[n - 1] == o.state {
            o.lane.runs[n - 2] = o.bin
        } else {
            o.lane.runs += [o.bin, o.bin, o.state]
        }
        o.bin = -1
    }
}
