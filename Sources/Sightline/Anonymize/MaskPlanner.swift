import SightlineFrames

/// Where the masks of each frame go, from the face tracks: a track's face is masked on every
/// frame it was seen, interpolated between sightings, held at its predicted place for `hold`
/// frames after the last one, and masked at its first box for `lookBack` frames before the first.
///
/// Frames are added in order; `masks(for:)` asks about a frame at least `lookBack` frames
/// behind the newest one added, so every sighting that can affect it is known.
final class MaskPlanner {
    private struct Sighting {
        let frame: Int
        let box: Box
        /// The least margin on each side (`AnonymizeOptions.minimumMargin` at the scale it was found at).
        let margin: Double
    }
    /// A mask's box before scaling, and its least margin.
    private typealias Placed = (box: Box, margin: Double)

    private let options: AnonymizeOptions
    /// Sightings per track id, in frame order.
    private var tracks: [Int: [Sighting]] = [:]
    /// Faces without a track id (a run without tracking), per frame.
    private var untracked: [Int: [Placed]] = [:]
    /// Frames that follow a discontinuity (a clock jump, a size change): no mask is held,
    /// interpolated or looked back across one (the boxes of another piece are in other pixels).
    private var boundaries: [Int] = []

    /// Frame `index` follows a discontinuity.
    func boundary(before index: Int) { boundaries.append(index) }

    /// Whether a boundary lies after frame `a` up to frame `b`.
    private func separated(_ a: Int, _ b: Int) -> Bool { boundaries.contains { a < $0 && $0 <= b } }

    init(options: AnonymizeOptions) { self.options = options }

    func add(_ record: FrameRecord) {
        // Faces the whole-frame pass found on a scaled frame (a tile's are found at full size, and
        // get the larger margin too: the record does not say which pass found a face).
        let scale = record.faceSearch?.wholeScale ?? 1
        let detectedMargin = AnonymizeOptions.minimumMargin / (scale > 0 ? min(1, scale) : 1)
        for face in record.faces {
            let margin = face.source == .detected ? detectedMargin : AnonymizeOptions.minimumMargin
            if let id = face.track {
                tracks[id, default: []].append(Sighting(frame: record.index, box: face.box, margin: margin))
            } else {
                untracked[record.index, default: []].append((face.box, margin))
            }
        }
    }

    /// The mask boxes (already scaled) of frame `index`, in track order, and forgets what no
    /// later frame needs.
    func masks(for index: Int) -> [Box] {
        var boxes = untracked.removeValue(forKey: index) ?? []
        for id in tracks.keys.sorted() {
            guard let sightings = tracks[id], let box = box(of: sightings, at: index) else { continue }
            boxes.append(box)
        }
        forget(before: index)
        return boxes.map(scaled)
    }

    private func box(of sightings: [Sighting], at index: Int) -> Placed? {
        // The last sighting at or before `index` and the first after it.
        let after = sightings.firstIndex { $0.frame > index }
        let previous = ((after ?? sightings.count) > 0 ? sightings[(after ?? sightings.count) - 1] : nil)
            .flatMap { separated($0.frame, index) ? nil : $0 }
        let next = after.map { sightings[$0] }.flatMap { separated(index, $0.frame) ? nil : $0 }
        switch (previous, next) {
        case let (p?, _) where p.frame == index:
            return (p.box, p.margin)
        case let (p?, n?):
            let f = Double(index - p.frame) / Double(n.frame - p.frame)
            return (Box(x: p.box.x + (n.box.x - p.box.x) * f, y: p.box.y + (n.box.y - p.box.y) * f,
                        w: p.box.w + (n.box.w - p.box.w) * f, h: p.box.h + (n.box.h - p.box.h) * f),
                    max(p.margin, n.margin))
        case let (p?, nil):
            let elapsed = index - p.frame
            guard elapsed <= options.hold else { return nil }
            return (predicted(sightings, elapsed: elapsed), p.margin)
        case let (nil, n?):
            return n.frame - index <= options.lookBack ? (n.box, n.margin) : nil
        default:
            return nil
        }
    }

    /// The last box moved on by the track's recent velocity, and grown as the guess gets older.
    private func predicted(_ sightings: [Sighting], elapsed: Int) -> Box {
        let last = sightings[sightings.count - 1]
        var dx = 0.0, dy = 0.0
        if sightings.count >= 2 {
            let before = sightings[sightings.count - 2]
            let frames = Double(last.frame - before.frame)
            // Motion over a long gap is no guide.
            if frames <= 3 {
                dx = (last.box.center.x - before.box.center.x) / frames
                dy = (last.box.center.y - before.box.center.y) / frames
            }
        }
        let grow = 1 + 0.02 * Double(elapsed)
        let w = last.box.w * grow, h = last.box.h * grow
        let cx = last.box.center.x + dx * Double(elapsed), cy = last.box.center.y + dy * Double(elapsed)
        return Box(x: cx - w / 2, y: cy - h / 2, w: w, h: h)
    }

    private func scaled(_ placed: Placed) -> Box {
        let (box, margin) = (placed.box, 2 * placed.margin)
        let w = max(box.w * options.maskScale, box.w + margin), h = max(box.h * options.maskScale, box.h + margin)
        return Box(x: box.center.x - w / 2, y: box.center.y - h / 2, w: w, h: h)
    }

    /// Keeps of each track only what a frame after `index` can use: the last two sightings
    /// before it (motion) and the later ones; tracks held out are dropped.
    private func forget(before index: Int) {
        boundaries.removeAll { $0 < index - max(options.hold, options.lookBack) - 1 }
        for (id, sightings) in tracks {
            let later = sightings.firstIndex { $0.frame > index } ?? sightings.count
            if later == sightings.count, let last = sightings.last, index - last.frame >= options.hold {
                tracks[id] = nil
            } else if later > 2 {
                tracks[id] = Array(sightings[(later - 2)...])
            }
        }
    }
}
