import SightlineFrames

/// The full-scale tiles a frame's small faces are searched on.
///
/// CenterFace finds faces from about 20 px in its input. The whole-frame pass runs the frame
/// scaled so that a `FaceDetectorOptions.wholeFrameMinFace` face (40 px) reaches that size (at
/// 720p and 1080p: half size); a 16 px face then needs the full-size frame, four times the
/// pixels. So the smaller faces are searched on tiles of the frame at the scale they need, one
/// tile per detection frame in turn (`Schedule.tiles`), and the region search follows each face
/// found on every frame after (see docs/tracking.md).
///
/// Tiles overlap by more than the largest face the whole-frame pass may miss, so every such face
/// lies wholly inside at least one tile; a face cut by a tile's inner edge is left to the tile
/// that holds it whole. Each tile's network input is about a third of the whole-frame pass's,
/// rounded up to CenterFace's multiple of 32.
public struct TileGrid: Sendable, Equatable {
    /// The tiles in displayed-frame pixels, row by row, all of one size.
    public let tiles: [Box]
    /// The network input of one tile.
    public let inputWidth: Int
    public let inputHeight: Int
    /// The scale of a tile's input over the displayed frame.
    public let scale: Double

    public var count: Int { tiles.count }

    /// Overlap of neighbouring tiles, in displayed pixels: faces the whole-frame pass may miss
    /// (under 1.25 times its smallest face) fit whole in one tile.
    public static let overlap = 1.25 * Double(FaceDetectorOptions.wholeFrameMinFace)

    /// A tile's input as a share of the whole-frame pass's, before rounding: about a third keeps
    /// the default's CPU per frame within 1.5 times that of `--min-face 40` on 720p camera-like
    /// footage (a half: 1.51 times; docs/performance.md), with a rotation of 15 to 18 tiles.
    static let share = 0.35

    /// The tiles of a displayed frame of `width` x `height`; nil when the whole-frame pass
    /// already finds the smallest face asked for (`--min-face 40` and up, small frames,
    /// `--face-width 0`), or the detector is not CenterFace (the only network whose input is
    /// sized by the smallest face) on OpenVINO (OpenCV's DNN module does not keep up with an
    /// input that changes size from one inference to the next: it gave wrong boxes).
    public init?(width: Int, height: Int, options: FaceDetectorOptions) {
        guard width > 0, height > 0, options.mayTile, let kind = options.backend.model?.kind else { return nil }
        let whole = kind.inputSize(width: width, height: height, detectWidth: options.detectWidth, minFace: options.wholePassMinFace)
        let scale = min(1, FaceModelKind.smallestReliableFace / Double(max(1, options.minFace)))
        guard scale > 1.05 * Double(whole.width) / Double(width) else { return nil }
        // Tiles of about a third of the whole-frame pass's input each (rounding up to multiples of
        // 32 makes them more).
        let target = (Self.share * Double(whole.width * whole.height)).squareRoot()
        let overlap = Self.overlap * scale
        func split(_ side: Int) -> (count: Int, input: Int) {
            let scaled = Double(side) * scale
            let count = max(1, Int(((scaled - overlap) / max(32, target - overlap)).rounded(.up)))
            let input = (Int(((scaled + Double(count - 1) * overlap) / Double(count)).rounded(.up)) + 31) / 32 * 32
            return (count, min(input, (Int(scaled.rounded(.up)) + 31) / 32 * 32))
        }
        let (columns, inputWidth) = split(width), (rows, inputHeight) = split(height)
        guard columns * rows > 1 else { return nil }
        let w = min(Double(width), Double(inputWidth) / scale), h = min(Double(height), Double(inputHeight) / scale)
        // Spread evenly, the first at the top-left corner and the last at the bottom-right one.
        func origin(_ i: Int, _ count: Int, _ side: Double, _ frame: Int) -> Double {
            count > 1 ? ((Double(frame) - side) * Double(i) / Double(count - 1)).rounded(.down) : 0
        }
        tiles = (0..<rows).flatMap { r in
            (0..<columns).map { c in Box(x: origin(c, columns, w, width), y: origin(r, rows, h, height), w: w, h: h) }
        }
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.scale = scale
    }
}
