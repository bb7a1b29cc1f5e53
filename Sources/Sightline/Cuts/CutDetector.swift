import SightlineFrames

/// Finds shot boundaries in frame order, as PySceneDetect 0.7.2's ContentDetector with its
/// default flash filter: a frame whose score (change from the previous frame) reaches the
/// threshold starts a new shot when at least `minShot` frames have passed since the last frame
/// over the threshold (cut or not), or since the stream's first frame.
///
/// One difference: when frames over the threshold come closer together than `minShot` after a
/// cut, PySceneDetect's merge mode may later report the last of them, frames after the fact;
/// here they start no shot (tracks cannot end in the past).
///
/// The state is the previous frame's image and the last frame over the threshold, so a shard
/// whose warm-up is longer than `minShot` frames finds the same cuts after its start as the
/// whole run; without a warm-up, the same when no frame over the threshold lies within
/// `minShot` frames before its start (its first frame is compared with the one before: `prime`).
public final class CutDetector {
    public let options: CutOptions
    private var previous: ShotImage?
    private var lastAbove: Int?

    public init(options: CutOptions) { self.options = options }

    /// Gives the frame before the first one (a run that starts later in the stream), so the first
    /// frame can be a cut as in the whole run.
    public func prime(_ image: ShotImage) { if previous == nil { previous = image } }

    /// The stream is not continuous before the next frame (its clock jumped, its size changed):
    /// that frame is not compared with the one before (the discontinuity already ends the tracks).
    public func restart() { previous = nil }

    /// The cut that `frame` starts, if any. `image` is nil for a frame not analyzed (dropped
    /// from a live source): the next frame then has nothing to compare with.
    public func next(_ image: ShotImage?, frame record: FrameRecord) -> CutRecord? {
        defer { previous = image }
        // The stream's first frame: PySceneDetect counts the minimum shot from it.
        if record.index == 0 { lastAbove = 0 }
        guard let image, let previous else { return nil }
        let score = image.score(from: previous)
        guard score >= options.threshold else { return nil }
        let longEnough = lastAbove.map { record.index - $0 >= options.minShot } ?? true
        lastAbove = record.index
        return longEnough ? CutRecord(index: record.index, pts: record.pts, t: record.t, score: score) : nil
    }
}
