import SightlineFrames

/// How observations are drawn.
public enum OverlayStyle: Hashable, Sendable, CustomStringConvertible {
    /// Boxes with track-id labels and landmark dots (faces), outlines with the payload (codes).
    case boxes
    /// Faces (and codes with `anonymizeCodes`) blurred beyond recognition.
    case blur
    /// Faces (and codes with `anonymizeCodes`) turned into large blocks.
    case pixelate
    /// An image (a PNG with alpha, typically) scaled into each face box (and code box with
    /// `anonymizeCodes`) and blended over it by its alpha.
    case mask(path: String)

    /// Parses `boxes`, `blur`, `pixelate` or `mask:PATH`; nil for anything else.
    public init?(name: String) {
        switch name {
        case "boxes": self = .boxes
        case "blur": self = .blur
        case "pixelate": self = .pixelate
        default:
            guard name.hasPrefix("mask:"), name.count > 5 else { return nil }
            self = .mask(path: String(name.dropFirst(5)))
        }
    }

    public var description: String {
        switch self {
        case .boxes: return "boxes"
        case .blur: return "blur"
        case .pixelate: return "pixelate"
        case .mask(let path): return "mask:\(path)"
        }
    }

    /// The styles that cover faces instead of outlining them.
    public var hidesFaces: Bool { self != .boxes }

    public var maskPath: String? {
        if case .mask(let path) = self { return path }
        return nil
    }
}
