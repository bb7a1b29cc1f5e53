import Foundation
import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// Keeps the best picture of every track and writes it as `DIR/face-<id>.png` or
/// `DIR/code-<id>.png` when the track ends (or, made without a directory, keeps the PNG bytes in
/// `pictures` for a page that embeds them).
///
/// Best: the highest-scoring observation a detector made (detected or refined by region search;
/// interpolated boxes are never pictures of the object); among equal scores the larger box, then
/// the earlier frame (codes have no score, so their largest box wins). The crop is cut from the
/// displayed (rotation-applied) picture as soon as an observation becomes the best, so at most one
/// crop per live track is held, never a frame.
public final class ThumbnailCollector: FrameSink {
    /// Where the PNG files go; nil: kept in memory (`pictures`).
    public let directory: String?
    /// Files written so far, in order.
    public private(set) var written: [String] = []
    /// Without a directory: the PNG file bytes of every ended track, by track id.
    public private(set) var pictures: [Int: Data] = [:]

    private struct Best {
        var kind: TrackKind
        var score: Double
        var area: Double
        var image: RGBImage
    }
    private var best: [Int: Best] = [:]
    private let scaler = FrameScaler()
    private let converter = FrameScaler()

    /// Creates the directory if needed.
    public init(directory: String) throws {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw SightlineError.outputUnwritable(path: directory, reason: "cannot create the thumbnail directory")
        }
        guard access(directory, W_OK) == 0 else {
            throw SightlineError.outputUnwritable(path: directory, reason: String(cString: strerror(errno)))
        }
    }

    /// Keeps the pictures in memory (`pictures`) instead of writing files.
    public init() { directory = nil }


    /// The displayed-frame pixels cut for a box: the box grown by a margin of a tenth of its
    /// longer side (at least 4 px) on every side, to whole pixels, clipped to the frame.
    public static func cropRect(for box: Box, frameWidth: Int, frameHeight: Int) -> PixelRect? {
        let margin = max(4, 0.1 * max(box.w, box.h))
        let x0 = Int((box.x - margin).rounded(.down)), y0 = Int((box.y - margin).rounded(.down))
        let x1 = Int((box.x + box.w + margin).rounded(.up)), y1 = Int((box.y + box.h + margin).rounded(.up))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0).clipped(width: frameWidth, height: frameHeight)
    }

    /// Considers every observation of a frame record (with track ids) made in `frame`; a live run
    /// passes `record.written`, so render from the records picks the same pictures.
    public func observe(_ record: FrameRecord, frame: VideoFrame) throws {
        var candidates: [(id: Int, kind: TrackKind, score: Double, box: Box)] = []
        for face in record.faces where face.source != .interpolated {
            if let id = face.track { candidates.append((id, .face, face.score, face.box)) }
        }
        for code in record.codes where code.source != .interpolated {
            if let id = code.track { candidates.append((id, .code, 0, code.box)) }
        }
        var picture: Picture?
        for c in candidates {
            if let current = best[c.id],
               !(c.score > current.score || (c.score == current.score && c.box.area > current.area)) { continue }
            if picture == nil { picture = try Picture(copying: frame, scaler: scaler) }
            guard let rect = Self.cropRect(for: c.box, frameWidth: picture!.displayWidth, frameHeight: picture!.displayHeight)
            else { continue }
            let image = try picture!.rgb(rect, converter: converter)
            best[c.id] = Best(kind: c.kind, score: c.score, area: c.box.area, image: image)
        }
    }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        if let picture { try observe(record.written, frame: picture) }
    }

    public func tracksEnded(_ tracks: [TrackRecord]) throws { for track in tracks { try trackEnded(track.id) } }

    public func finish(_ summary: SummaryRecord) throws { try finish() }

    /// Writes the picture of a track that ended and lets go of it.
    public func trackEnded(_ id: Int) throws {
        guard let b = best.removeValue(forKey: id) else { return }
        guard let directory else {
            pictures[id] = try PNGWriter.encode(b.image)
            return
        }
        let path = (directory as NSString).appendingPathComponent("\(b.kind.rawValue)-\(id).png")
        try PNGWriter.write(b.image, to: path)
        written.append(path)
    }

    /// Writes the pictures of the tracks still open (end of the video), in id order.
    public func finish() throws {
        for id in best.keys.sorted() { try trackEnded(id) }
    }

    /// Removes what was written (the records turned out not to match the video).
    public func discard() {
        for path in written { try? FileManager.default.removeItem(atPath: path) }
        written.removeAll()
        pictures.removeAll()
        best.removeAll()
    }
}
