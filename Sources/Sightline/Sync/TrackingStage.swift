import SightlineFrames
import SightlineMedia
import SightlineTracking

/// Tracking settings reported in the stream record.
public struct TrackingConfiguration: Sendable, Equatable {
    public var maxGap: Int
    public var detectEvery: Int
    public var codeConfirmation = CodeConfirmation()
    /// Frames are held for looking back (false: live capture's default, each frame handed on at once).
    public var looksBack = true
}

/// The ordered stage after the synchronizer: region search (`RegionSearch`: it detects around
/// what the tracks predict), then ids (`Tracker`: detections in, detections with ids out), then
/// looking back (a track's object searched for on the frames held since the last full search, so
/// a track begins on the first frame its object shows). Runs in frame order, so it is
/// deterministic; as the one serial stage it stays lean: the searches of one frame run in
/// parallel, and face attributes are read on detection frames only (by the parallel workers).
public final class TrackingStage {
    private let tracker: Tracker
    private let detectEvery: Int
    /// Whether frames are held until the full searches after them have run (see `process`).
    private let holdsFrames: Bool
    private let search: RegionSearch
    /// Region searches that failed with an error (counted in the summary).
    public var errors: Int { search.errors }

    /// A frame tracked but not yet handed on: a later full search may still find, looking back,
    /// an object on it.
    public struct Settled {
        public var record: FrameRecord
        public var frame: VideoFrame
        /// Tracks that ended with this frame.
        public var ended: [TrackRecord]
    }
    /// The frames not yet covered by every full search after them (oldest first).
    private var window: [Settled] = []
    /// The position through which every face search has covered the whole frame since (the
    /// whole-frame pass, and on tiled frames every tile of the rotation), and the same for the
    /// whole-frame code search.
    private var facesCovered = Int.min, codesCovered = Int.min
    /// Tiled frames: the position each tile was last searched at.
    private var tileSearched: [Int: Int] = [:]

    /// `lanes`: how many region searches of one frame may run at once (the analysis threads).
    /// `detectEvery`: the schedule's full-detection stride (faces are searched around their
    /// tracks on the frames between). A record whose code status is `ok` had the full code search.
    /// `holdsFrames` false: every frame is handed on as soon as it is tracked (live, where a
    /// record is wanted now): a track then begins on the frame its object was found on.
    /// `busyFrames`: frames may come without full detection off the schedule (a live source's
    /// frames that found every worker busy), to be searched around the known objects.
    public init(tracker options: TrackerOptions, detectEvery: Int, lanes: Int = 1, faces: ResolvedFaceDetector,
                codes: CodeReaderOptions, holdsFrames: Bool = true, busyFrames: Bool = false) throws {
        tracker = Tracker(options: options)
        self.detectEvery = detectEvery
        self.holdsFrames = holdsFrames
        search = try RegionSearch(faces: faces, codes: codes, detectEvery: detectEvery, lanes: lanes, busyFrames: busyFrames)
    }

    /// Starts making the region search's network ready (see `RegionSearch.prepare`).
    public func prepareSearch() { search.prepare() }

    /// The tracking settings, as the stream record reports them.
    public var configuration: TrackingConfiguration {
        TrackingConfiguration(maxGap: tracker.options.maxGap, detectEvery: detectEvery,
                              codeConfirmation: tracker.options.codeConfirmation, looksBack: holdsFrames)
    }

    /// Takes the next frame's record; returns the frames now settled, in order, each with its
    /// track ids (and region-search results) and the tracks that ended with it. A frame is held
    /// until every full search has run on it or after it (on a tiled frame: every tile of the
    /// rotation), so the objects those searches find are looked for backwards on it first (a
    /// track begins on the first frame its object shows).
    public func process(_ record: FrameRecord, frame: VideoFrame) -> [Settled] {
        let (record, ended) = track(record, frame: frame)
        window.append(Settled(record: record, frame: frame, ended: ended))
        let covered = min(facesCovered, codesCovered)
        // Memory stays bounded whatever the strides: past this many frames the oldest go on
        // without being looked back on.
        var count = window.prefix { $0.record.index <= covered }.count
        count = max(count, window.count - (holdsFrames ? Self.maxHeld : 0))
        guard count > 0 else { return [] }
        let settled = Array(window.prefix(count))
        window.removeFirst(count)
        return publish(settled)
    }

    /// Notes what the frame's full searches covered.
    private func cover(_ record: FrameRecord, facesDetected: Bool, codesFull: Bool, tiles: TileGrid?) {
        if codesFull { codesCovered = record.index }
        guard record.faceStatus != .off else {
            facesCovered = record.index
            return
        }
        guard facesDetected else { return }
        // A detection that failed: nothing to wait for on this frame.
        guard let search = record.faceSearch else {
            facesCovered = record.index
            return
        }
        if let tile = search.tile {
            tileSearched[tile.index] = record.index
            // Until every tile has been searched once, nothing is covered.
            facesCovered = tileSearched.count >= tile.count ? tileSearched.values.min()! : Int.min
        } else if tiles != nil && search.everyTile == nil {
            // A tiled frame's whole-frame pass alone (a crowd between detections) covers no tile.
        } else {
            // The whole frame down to the smallest face: every tile too.
            facesCovered = record.index
            if let tiles { (0..<tiles.count).forEach { tileSearched[$0] = record.index } }
        }
    }

    /// The most frames held for looking back (about 90 MB of 720p pictures).
    package static let maxHeld = 60

    private func track(_ record: FrameRecord, frame: VideoFrame) -> (FrameRecord, [TrackRecord]) {
        // A frame dropped from analysis says nothing about the objects: tracks neither move nor age.
        if record.faceStatus == .dropped || record.codeStatus == .dropped { return (record, []) }
        var record = record
        tracker.advance()
        let (facesDetected, codesFull, tiles) = search.search(&record, in: frame, live: { tracker.predictions })
        let ended = tracker.update(&record)
        if !tracker.begun.isEmpty { lookBack(for: tracker.begun, in: record, frame: frame) }
        search.tracked(record, frame: frame, facesDetected: facesDetected)
        cover(record, facesDetected: facesDetected, codesFull: codesFull, tiles: tiles)
        return (record, ended)
    }

    /// Searches the held frames, newest first, for each track the frame began, in the region
    /// where it was found, until a frame where it is not.
    private func lookBack(for ids: [Int], in record: FrameRecord, frame: VideoFrame) {
        for id in ids {
            guard let trackRecord = tracker.record(of: id) else { continue }
            var box: Box
            var patch: AppearancePatch?
            var polygon: [Point] = []
            if let face = record.faces.first(where: { $0.track == id }) {
                guard search.searchesFaces else { continue }
                box = face.box
                patch = search.usesPatches
                    ? AppearancePatch(box: face.box, score: face.score, luma: frame.luma, rotation: frame.rotation) : nil
            } else if let code = record.codes.first(where: { $0.track == id }) {
                guard search.searchesCodes else { continue }
                box = code.box
                polygon = code.polygon
            } else { continue }
            for i in window.indices.reversed() {
                let held = window[i]
                if held.record.faceStatus == .dropped || held.record.codeStatus == .dropped { break }
                let prediction = Tracker.Prediction(id: id, kind: trackRecord.kind, box: box, seen: box, misses: Int.max / 2,
                                                    record: trackRecord, polygon: polygon)
                switch search.searchEarlier(prediction, patch: patch, frame: held.frame) {
                case .face(let face) where face.source == .refined:
                    tracker.observeEarlier(track: id, box: face.box, score: face.score, frame: held.record)
                    window[i].record.faces.append(face)
                    box = face.box
                    continue
                case .code(var code):
                    code.state = tracker.observeEarlier(track: id, box: code.box, score: 1, frame: held.record)
                    window[i].record.codes.append(code)
                    box = code.box
                    polygon = code.polygon
                    continue
                default:
                    break
                }
                break
            }
        }
    }

    /// The frames still held, then every live track ended (after them): at the end of the
    /// stream, and at a shot cut (nothing seen before a cut continues after it, and looking back
    /// never crosses one).
    public func finish() -> (frames: [Settled], ended: [TrackRecord]) {
        defer {
            window = []
            search.reset()
        }
        let frames = publish(window)
        return (frames, published(tracker.finish()))
    }

    /// The records' track ids, by the tracker's: in order of first appearance in the frames handed
    /// on (faces before codes, in record order), as `merge` numbers them. The tracker numbers
    /// tracks as it makes them, and looking back gives a track made late (a small face its tile
    /// found half a rotation after it appeared) frames before those of tracks made earlier.
    private var publicIDs: [Int: Int] = [:]

    private func publish(_ frames: [Settled]) -> [Settled] {
        frames.map { settled in
            var settled = settled
            func publicID(_ id: Int) -> Int {
                if let known = publicIDs[id] { return known }
                publicIDs[id] = publicIDs.count + 1
                return publicIDs.count
            }
            for i in settled.record.faces.indices { settled.record.faces[i].track = settled.record.faces[i].track.map(publicID) }
            for i in settled.record.codes.indices { settled.record.codes[i].track = settled.record.codes[i].track.map(publicID) }
            // Detected objects in the detectors' order, then the region-searched ones by id.
            settled.record.faces = Self.detectedFirst(settled.record.faces, source: \.source, track: \.track)
            settled.record.codes = Self.detectedFirst(settled.record.codes, source: \.source, track: \.track)
            settled.ended = published(settled.ended)
            return settled
        }
    }

    /// Ended tracks with their records' ids, in id order.
    private func published(_ tracks: [TrackRecord]) -> [TrackRecord] {
        tracks.map { track in
            var track = track
            track.id = publicIDs[track.id] ?? track.id
            return track
        }.sorted { $0.id < $1.id }
    }

    private static func detectedFirst<T>(_ objects: [T], source: KeyPath<T, ObservationSource>, track: KeyPath<T, Int?>) -> [T] {
        objects.enumerated().sorted { a, b in
            func key(_ o: (offset: Int, element: T)) -> (Int, Int) {
                (o.element[keyPath: source] == .detected ? Int.min : o.element[keyPath: track] ?? Int.max, o.offset)
            }
            return key(a) < key(b)
        }.map(\.element)
    }
}
