import CVision
import SightlineFrames
import SightlineMedia

/// How a face looked at its last full detection: the picture under its box, sampled small.
/// Between detections (detection stride) the face is followed by finding this patch again near
/// its predicted place (normalized cross-correlation): a small fraction of a cascade search, and
/// the box keeps the full detector's geometry instead of the cascade's.
///
/// Made from detections only, never from a frame it was itself found in, so it cannot drift.
/// Immutable once made: the region searches of one frame may use it from several threads.
package final class AppearancePatch: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The detected box, displayed-frame pixels.
    package let box: Box
    /// The detector's score at that detection.
    package let score: Double

    /// Longer side of the sample, in pixels: enough texture for a face, cheap to correlate.
    package static let sampleSize: Int32 = 32

    /// Nil when the box lies outside the picture or holds too little texture to follow.
    package init?(box: Box, score: Double, luma: GrayImage, rotation: Rotation) {
        let coded = rotation.coded(box)
        guard let handle = slv_patch_create(luma.image, Float(coded.x), Float(coded.y), Float(coded.w), Float(coded.h),
                                            Self.sampleSize) else { return nil }
        self.handle = handle
        self.box = box
        self.score = score
    }

    deinit { slv_patch_destroy(handle) }

    /// The box of the detection's size that best matches the patch within `margin` box sizes
    /// around `predicted`'s centre, and how well it matches (normalized correlation, up to 1).
    package func find(near predicted: Box, margin: Double, luma: GrayImage, rotation: Rotation) -> (box: Box, correlation: Double)? {
        let centre = predicted.center
        let guess = rotation.coded(Box(x: centre.x - box.w / 2, y: centre.y - box.h / 2, w: box.w, h: box.h))
        var x: Float = 0, y: Float = 0
        let correlation = slv_patch_find(handle, luma.image, Float(guess.x), Float(guess.y), Float(margin), &x, &y)
        guard correlation >= -1 else { return nil }
        // Whole sample pixels may place the box a pixel or two past the picture's edge; it is
        // kept inside, as detections are.
        let found = Box(x: max(0, min(Double(x), Double(luma.width) - guess.w)),
                        y: max(0, min(Double(y), Double(luma.height) - guess.h)), w: guess.w, h: guess.h)
        return (rotation.display(found), Double(correlation))
    }
}
