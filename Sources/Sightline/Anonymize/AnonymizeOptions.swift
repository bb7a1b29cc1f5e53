import SightlineFrames

/// What covers a face in an anonymized video.
public enum AnonymizeStyle: Hashable, Sendable, CustomStringConvertible {
    /// Block averages smoothed into one another: no edge or feature of the face is left.
    case blur
    /// Large blocks (about seven across the mask's longer side).
    case pixelate
    /// Black.
    case solid
    /// An image scaled into the mask's box and blended by its alpha.
    case mask(path: String)

    /// Parses `blur`, `pixelate`, `solid` or `mask:PATH`; nil for anything else.
    public init?(name: String) {
        switch name {
        case "blur": self = .blur
        case "pixelate": self = .pixelate
        case "solid": self = .solid
        default:
            guard name.hasPrefix("mask:"), name.count > 5 else { return nil }
            self = .mask(path: String(name.dropFirst(5)))
        }
    }

    /// The image of `mask:PATH`, else nil.
    public var maskPath: String? {
        if case .mask(let path) = self { return path }
        return nil
    }

    public var description: String {
        switch self {
        case .blur: return "blur"
        case .pixelate: return "pixelate"
        case .solid: return "solid"
        case .mask(let path): return "mask:\(path)"
        }
    }
}

/// The outline of a mask.
public enum MaskShape: String, Sendable, CaseIterable {
    case ellipse, box
}

/// How faces are hidden: where masks go (from tracks, in time) and what they look like.
public struct AnonymizeOptions: Sendable, Equatable {
    public var style = AnonymizeStyle.blur
    public var shape = MaskShape.ellipse
    /// The mask's width and height as a multiple of the face box's, about its centre. An
    /// ellipse inscribed in a box scaled by √2 just covers the box's corners.
    public var maskScale = 1.5
    /// The least margin around a face box, in pixels on each side of a box found at full size:
    /// the box of a face under about 24 px is off by a few pixels, more than a 1.5x mask leaves
    /// (on the crowd scene a 6 px margin covers 274 of its 288 face-frames under 24 px, 1.5x
    /// alone 262). A box the whole-frame pass found on a scaled frame is as far off in the
    /// network's pixels, so its margin grows by the scale (12 px at half size).
    public static let minimumMargin = 6.0
    /// Frames after a track's last sighting during which its face stays masked at its
    /// predicted place (a face the detector loses for a moment is still there).
    public var hold = 15
    /// Frames before a track's first sighting that get its first box (a face is often visible
    /// a few frames before the detector is sure of it). The video is delayed by this many frames.
    public var lookBack = 15

    /// The smallest face `anonymize` looks for by default, in pixels of the displayed frame:
    /// CenterFace's whole-frame pass finds faces from 40 px, full-size tiles the smaller ones.
    public static let defaultMinFace = 16

    /// The detector confidence from which a face is masked by default. CenterFace's INT8 network
    /// scores faces of 16-20 px, darkened or partly covered, from about 0.15 (on the crowd scene
    /// 0.25 leaves one such face unmasked for 14 frames, 0.15 none), and a harmless mask on a
    /// false positive costs little; f32 and the other detectors keep 0.3.
    public static func defaultMaskThreshold(int8: Bool) -> Double { int8 ? 0.15 : 0.3 }

    public init(style: AnonymizeStyle = .blur, shape: MaskShape = .ellipse, maskScale: Double = 1.5, hold: Int = 15, lookBack: Int = 15) {
        self.style = style
        self.shape = shape
        self.maskScale = maskScale
        self.hold = hold
        self.lookBack = lookBack
    }
}
