import SightlineFrames
import SightlineRecords

/// A face or a code, as one side of a difference.
public enum DiffItem: Sendable, Equatable {
    case face(FaceObservation)
    case code(CodeObservation)

    public var box: Box {
        switch self {
        case .face(let f): return f.box
        case .code(let c): return c.box
        }
    }

    public var track: Int? {
        switch self {
        case .face(let f): return f.track
        case .code(let c): return c.track
        }
    }
}

/// One observation that differs between two runs.
public struct DiffChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Only in B.
        case new
        /// Only in A.
        case lost
        /// In both, overlapping, but with IoU below the threshold.
        case moved
        /// A code in both places with another symbology or payload.
        case payload
        /// In both, but B's track id no longer corresponds to A's the way it did before.
        case track
    }
    public var frame: Int
    public var t: Double
    public var kind: Kind
    public var a: DiffItem?
    public var b: DiffItem?
    /// IoU of the pair (moved, payload, track).
    public var iou: Double?
}

/// The differences of one kind of object.
public struct KindDiff: Sendable, Equatable {
    public var kind: AuditKind
    /// Paired with IoU at the threshold or above (and, codes, the same payload).
    public var same = 0
    /// Of `same`, those with identical boxes.
    public var identical = 0
    public var moved = 0
    public var new = 0
    public var lost = 0
    public var payloadChanged = 0
    public var trackChanges = 0
    /// Distinct track ids in A and in B.
    public var tracksA = 0
    public var tracksB = 0
    /// "A" or "B" when only that run has track ids for this kind (a difference in itself).
    public var trackIdsOnlyIn: String?

    public var differences: Int {
        moved + new + lost + payloadChanged + trackChanges + (trackIdsOnlyIn == nil ? 0 : 1)
    }
}

/// What changed between two runs over the same video.
public struct RunDiff: Sendable, Equatable {
    public var pathA: String
    public var pathB: String
    public var iou: Double
    public var matching: FrameMatching
    public var frames = 0
    public var framesOnlyInA = 0
    public var framesOnlyInB = 0
    public var faces: KindDiff?
    public var codes: KindDiff?
    /// Every change, by frame.
    public var changes: [DiffChange] = []

    public var isIdentical: Bool {
        framesOnlyInA == 0 && framesOnlyInB == 0 && [faces, codes].allSatisfy { ($0?.differences ?? 0) == 0 }
    }
}

/// Compares two runs frame by frame. In each frame, A's and B's observations of a kind are paired by
/// the optimal assignment on 1 − IoU among pairs that overlap at all (codes prefer the same payload).
/// A pair at the IoU threshold or above is the same observation; below it, the observation moved.
/// Unpaired observations are lost (only in A) or new (only in B). When both runs carry track ids,
/// a pair whose ids no longer correspond as they did earlier in the video (A's track now paired
/// with another B track, or B's with another A track) is a track change; renumbered ids are not.
public struct RunDiffer: Sendable {
    public var iou: Double
    public var matching: FrameMatching
    public var kinds: [AuditKind]

    public init(iou: Double = 0.5, matching: FrameMatching = .index, kinds: [AuditKind] = AuditKind.allCases) {
        self.iou = iou
        self.matching = matching
        self.kinds = kinds
    }

    public func diff(_ a: RecordFile, _ b: RecordFile) throws -> RunDiff {
        let alignment = try FrameAligner(matching: matching, union: true).align(reference: a, other: b)
        var result = RunDiff(pathA: a.path, pathB: b.path, iou: iou, matching: matching)
        result.frames = alignment.frames.count
        result.framesOnlyInA = alignment.referenceOnly
        result.framesOnlyInB = alignment.otherOnly
        if kinds.contains(.faces) {
            result.faces = diffKind(.faces, alignment.frames, &result.changes) { $0.faces.map(DiffItem.face) }
        }
        if kinds.contains(.codes) {
            result.codes = diffKind(.codes, alignment.frames, &result.changes) { $0.codes.map(DiffItem.code) }
        }
        // By frame; within a frame faces before codes, each in the order found.
        result.changes = result.changes.enumerated()
            .sorted { ($0.element.t, $0.element.frame, $0.offset) < ($1.element.t, $1.element.frame, $1.offset) }
            .map(\.element)
        return result
    }

    private func diffKind(_ kind: AuditKind, _ frames: [AlignedFrame], _ changes: inout [DiffChange],
                          items: (FrameRecord) -> [DiffItem]) -> KindDiff {
        var diff = KindDiff(kind: kind)
        let allA = frames.flatMap { $0.reference.map(items) ?? [] }, allB = frames.flatMap { $0.other.map(items) ?? [] }
        diff.tracksA = Set(allA.compactMap(\.track)).count
        diff.tracksB = Set(allB.compactMap(\.track)).count
        let idsA = allA.contains { $0.track != nil }, idsB = allB.contains { $0.track != nil }
        if idsA != idsB { diff.trackIdsOnlyIn = idsA ? "A" : "B" }
        var aToB: [Int: Int] = [:], bToA: [Int: Int] = [:]

        for frame in frames {
            let itemsA = frame.reference.map(items) ?? [], itemsB = frame.other.map(items) ?? []
            // Any overlap pairs; among equally many pairs, the same payload is preferred.
            let match = ObservationMatcher(minIoU: 0).match(truth: itemsA.map(\.box), predicted: itemsB.map(\.box)) {
                samePayload(itemsA[$0], itemsB[$1]) ? 0 : 1
            }
            func change(_ k: DiffChange.Kind, _ x: DiffItem?, _ y: DiffItem?, _ overlap: Double? = nil) {
                changes.append(DiffChange(frame: frame.index, t: frame.t, kind: k, a: x, b: y, iou: overlap))
            }
            for p in match.pairs {
                let x = itemsA[p.truth], y = itemsB[p.predicted], overlap = p.iou
                if !samePayload(x, y) {
                    diff.payloadChanged += 1
                    change(.payload, x, y, overlap)
                } else if overlap < iou {
                    diff.moved += 1
                    change(.moved, x, y, overlap)
                } else {
                    diff.same += 1
                    if x.box == y.box { diff.identical += 1 }
                }
                if let ta = x.track, let tb = y.track {
                    let before = (aToB[ta], bToA[tb])
                    if (before.0 != nil && before.0 != tb) || (before.1 != nil && before.1 != ta) {
                        diff.trackChanges += 1
                        change(.track, x, y, overlap)
                    }
                    aToB[ta] = tb
                    bToA[tb] = ta
                }
            }
            for i in match.missed {
                diff.lost += 1
                change(.lost, itemsA[i], nil)
            }
            for j in match.extra {
                diff.new += 1
                change(.new, nil, itemsB[j])
            }
        }
        return diff
    }

    private func samePayload(_ x: DiffItem, _ y: DiffItem) -> Bool {
        if case .code(let a) = x, case .code(let b) = y { return a.hasSamePayload(as: b) }
        return true
    }
}
