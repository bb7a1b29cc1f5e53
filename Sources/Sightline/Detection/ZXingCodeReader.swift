import CVision
import CZXing
import CZXingText

/// zxing-cpp 3.1 through its C API, on the luma plane without copying it.
///
/// The full search is zxing's `ReadBarcodes` with the `try…` settings asked for, on the whole
/// frame. The quick search, for the frames in between (`Schedule.codeFullEvery`),
/// splits the work by where zxing spends it on video frames: 1D codes are read on a few scan
/// lines of the full-size frame (cheap, rotated and inverted included); 2D codes need the whole
/// frame binarized, so large frames are read at half size, and a symbol found there but not
/// decoded is read again at full size in its own region.
public final class ZXingCodeReader: CodeReader {
    private let full: OpaquePointer
    private let quickLinear: OpaquePointer?
    /// Per 1D symbology: every scan line of a region where the quick search read one.
    private let regionLinear: [Symbology: OpaquePointer]
    private let quickMatrix: OpaquePointer?
    private let regionMatrix: OpaquePointer?
    /// The half-size luma plane of the quick search, reused from frame to frame.
    private var half: [UInt8] = []

    /// Frames whose shorter side is at least this are read at half size for 2D codes in the quick
    /// search (a 720p frame: 640x360, where the modules of a QR code of 80 px or more still
    /// span two pixels).
    static let halfSizeFrom = 720

    /// zxing-cpp's formats for one of our symbologies (the variants it reports are mapped back
    /// by `symbology(of:)`); empty when zxing-cpp cannot read it.
    static func formats(of s: Symbology) -> [ZXing_BarcodeFormat] {
        switch s {
        case .qr: return [ZXing_BarcodeFormat_QRCodeModel1, ZXing_BarcodeFormat_QRCodeModel2]
        case .microQR: return [ZXing_BarcodeFormat_MicroQRCode]
        case .aztec: return [ZXing_BarcodeFormat_Aztec]
        case .dataMatrix: return [ZXing_BarcodeFormat_DataMatrix]
        case .pdf417: return [ZXing_BarcodeFormat_PDF417]
        case .maxiCode: return [ZXing_BarcodeFormat_MaxiCode]
        case .ean13: return [ZXing_BarcodeFormat_EAN13]
        case .ean8: return [ZXing_BarcodeFormat_EAN8]
        case .upcA: return [ZXing_BarcodeFormat_UPCA]
        case .upcE: return [ZXing_BarcodeFormat_UPCE]
        case .code128: return [ZXing_BarcodeFormat_Code128]
        case .code39: return [ZXing_BarcodeFormat_Code39]
        case .code93: return [ZXing_BarcodeFormat_Code93]
        case .codabar: return [ZXing_BarcodeFormat_Codabar]
        case .itf: return [ZXing_BarcodeFormat_ITF]
        case .dataBar: return [ZXing_BarcodeFormat_DataBarOmni, ZXing_BarcodeFormat_DataBarStk,
                               ZXing_BarcodeFormat_DataBarStkOmni, ZXing_BarcodeFormat_DataBarLtd]
        case .dataBarExpanded: return [ZXing_BarcodeFormat_DataBarExp, ZXing_BarcodeFormat_DataBarExpStk]
        case .isbn10, .isbn13, .ean2, .ean5: return []
        }
    }

    /// The symbology of a format zxing-cpp reports (a variant, e.g. Code 39 extended), or nil for
    /// one we do not name.
    static func symbology(of format: ZXing_BarcodeFormat) -> Symbology? {
        if let s = symbologyOfFormat[format.rawValue] { return s }
        // Variants within a symbology (Code 39 extended, ITF-14, compact PDF417, Aztec runes…).
        return symbologyOfFamily[ZXing_BarcodeFormatSymbology(format).rawValue]
    }

    private static let symbologyOfFormat: [UInt32: Symbology] = Dictionary(
        Symbology.allCases.flatMap { s in formats(of: s).map { ($0.rawValue, s) } }
            // zxing-cpp 3.1 reports a model 2 QR code as plain "QR Code", and some DataBar as "DataBar".
            + [(ZXing_BarcodeFormat_QRCode.rawValue, .qr), (ZXing_BarcodeFormat_DataBar.rawValue, .dataBar)],
        uniquingKeysWith: { a, _ in a })
    private static let symbologyOfFamily: [UInt32: Symbology] = [
        ZXing_BarcodeFormat_Code39.rawValue: .code39, ZXing_BarcodeFormat_ITF.rawValue: .itf,
        ZXing_BarcodeFormat_PDF417.rawValue: .pdf417, ZXing_BarcodeFormat_Aztec.rawValue: .aztec,
    ]

    public init(options: CodeReaderOptions) throws {
        // Every format we name, not zxing's "all": formats nobody asked for cost time and read
        // phantoms (DX film edge, Telepen in noise).
        let symbologies = options.symbologies.isEmpty ? Symbology.allCases : options.symbologies.sorted()
        let linear = symbologies.filter { !Self.matrix.contains($0) }.flatMap(Self.formats(of:))
        let matrix = symbologies.filter { Self.matrix.contains($0) }.flatMap(Self.formats(of:))
        func make(_ formats: [ZXing_BarcodeFormat], harder: Bool, rotate: Bool, invert: Bool, downscale: Bool,
                  errors: Bool = false) throws -> OpaquePointer {
            guard let o = ZXing_ReaderOptions_new() else { throw SightlineError.internal("cannot create zxing-cpp reader options") }
            formats.withUnsafeBufferPointer { ZXing_ReaderOptions_setFormats(o, $0.baseAddress, Int32($0.count)) }
            ZXing_ReaderOptions_setTryHarder(o, harder)
            ZXing_ReaderOptions_setTryRotate(o, rotate)
            ZXing_ReaderOptions_setTryInvert(o, invert)
            ZXing_ReaderOptions_setTryDownscale(o, downscale)
            ZXing_ReaderOptions_setBinarizer(o, options.binarizer.zxing)
            ZXing_ReaderOptions_setTextMode(o, options.textMode.zxing)
            // Symbols with errors are reported only where we look for them again at full size;
            // they never become reads.
            ZXing_ReaderOptions_setReturnErrors(o, errors)
            return o
        }
        full = try make(linear + matrix, harder: options.tryHarder, rotate: options.tryRotate, invert: options.tryInvert,
                        downscale: options.tryDownscale)
        quickLinear = linear.isEmpty ? nil : try make(linear, harder: false, rotate: options.tryRotate, invert: options.tryInvert, downscale: false)
        regionLinear = try Dictionary(uniqueKeysWithValues: symbologies.filter { !Self.matrix.contains($0) }.map {
            ($0, try make(Self.formats(of: $0), harder: true, rotate: false, invert: false, downscale: false))
        })
        quickMatrix = matrix.isEmpty ? nil : try make(matrix, harder: false, rotate: false, invert: false, downscale: false, errors: true)
        regionMatrix = matrix.isEmpty ? nil : try make(matrix, harder: options.tryHarder, rotate: options.tryRotate,
                                                        invert: options.tryInvert, downscale: false)
    }

    /// Symbologies zxing finds by their 2D structure (the rest are read along scan lines).
    static let matrix: Set<Symbology> = [.qr, .microQR, .aztec, .dataMatrix, .pdf417, .maxiCode]

    deinit {
        for o in [full, quickLinear, quickMatrix, regionMatrix] + regionLinear.values.map(Optional.some) { if let o { ZXing_ReaderOptions_delete(o) } }
    }

    public func read(_ gray: GrayImage, rotation: Rotation, fully: Bool) throws -> [CodeObservation] {
        if fully { return try read(gray, with: full).map { observation($0, in: gray, rotation: rotation) } }
        var found: [Found] = []
        if let quickLinear {
            for symbol in try read(gray, with: quickLinear) where symbol.valid {
                found.append(try wholeHeight(of: symbol, in: gray) ?? symbol)
            }
        }
        if let quickMatrix, let regionMatrix {
            if min(gray.width, gray.height) >= Self.halfSizeFrom {
                for symbol in try readHalf(gray, with: quickMatrix) {
                    if symbol.valid {
                        found.append(symbol)
                    } else if let region = gray.cropped(around: symbol.corners, margin: 0.25) {
                        // Found at half size but not decoded: its modules may need full size.
                        found += try read(region, with: regionMatrix).map { $0.offset(by: region, from: gray) }
                    }
                }
            } else {
                found += try read(gray, with: quickMatrix).filter(\.valid)
            }
        }
        return found.map { observation($0, in: gray, rotation: rotation) }
    }

    /// One symbol as zxing-cpp reported it, corners in pixels of the picture it read.
    private struct Found {
        var valid: Bool
        var symbology: Symbology
        var text: String
        var bytes: [UInt8]
        var corners: [(x: Double, y: Double)]

        var width: Double { (corners.map(\.x).max() ?? 0) - (corners.map(\.x).min() ?? 0) }
        var height: Double { (corners.map(\.y).max() ?? 0) - (corners.map(\.y).min() ?? 0) }

        /// Corners moved from a region of `whole` to `whole`'s own pixels.
        func offset(by region: GrayImage, from whole: GrayImage) -> Found {
            var f = self
            let dx = Double(region.originX - whole.originX), dy = Double(region.originY - whole.originY)
            f.corners = corners.map { (x: $0.x + dx, y: $0.y + dy) }
            return f
        }
    }

    private func observation(_ f: Found, in gray: GrayImage, rotation: Rotation) -> CodeObservation {
        CodeObservation(symbology: f.symbology, text: f.text, bytes: f.bytes, polygon: f.corners.map {
            rotation.display(Point(x: $0.x + Double(gray.originX), y: $0.y + Double(gray.originY)))
        })
    }

    /// A 1D code the quick search read on a few scan lines, read again on every line of its
    /// region for its whole outline (its height); nil when that read does not give the same code.
    /// Only codes read horizontally (a code turned by 90° keeps the outline of its scan lines).
    private func wholeHeight(of symbol: Found, in gray: GrayImage) throws -> Found? {
        guard symbol.width > symbol.height, let options = regionLinear[symbol.symbology],
              let region = gray.cropped(around: symbol.corners, margin: 0, vertical: symbol.width / 2) else { return nil }
        return try read(region, with: options).first { $0.valid && $0.bytes == symbol.bytes }?.offset(by: region, from: gray)
    }

    /// Reads the picture at half size (2x2 pixel means), corners mapped back to full size.
    private func readHalf(_ gray: GrayImage, with options: OpaquePointer) throws -> [Found] {
        let w = gray.width / 2, h = gray.height / 2
        if half.count != w * h { half = [UInt8](repeating: 0, count: w * h) }
        let src = gray.image.data!, stride = gray.stride
        half.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                let row0 = src + 2 * y * stride, row1 = row0 + stride
                let out = dst.baseAddress! + y * w
                for x in 0..<w {
                    let sum = Int(row0[2 * x]) + Int(row0[2 * x + 1]) + Int(row1[2 * x]) + Int(row1[2 * x + 1])
                    out[x] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                }
            }
        }
        return try half.withUnsafeBufferPointer { buffer in
            let view = GrayImage(image: slv_gray_image(data: buffer.baseAddress, width: Int32(w), height: Int32(h), stride: Int32(w)))
            // A module's centre at half size (x + 0.5) is at 2x + 1 - 0.5 at full size.
            return try read(view, with: options).map { f in
                var f = f
                f.corners = f.corners.map { (x: $0.x * 2 + 0.5, y: $0.y * 2 + 0.5) }
                return f
            }
        }
    }

    /// Every symbol zxing-cpp reports in the picture (invalid ones only when the options ask for them).
    private func read(_ gray: GrayImage, with options: OpaquePointer) throws -> [Found] {
        guard let view = ZXing_ImageView_new(gray.image.data, gray.image.width, gray.image.height, ZXing_ImageFormat_Lum,
                                             gray.image.stride, 1) else {
            throw SightlineError.internal("zxing-cpp: " + Self.lastError(or: "cannot view the picture"))
        }
        defer { ZXing_ImageView_delete(view) }
        guard let barcodes = ZXing_ReadBarcodes(view, options) else {
            throw SightlineError.internal("zxing-cpp failed: " + Self.lastError(or: "no reason given"))
        }
        defer { ZXing_Barcodes_delete(barcodes) }
        var found: [Found] = []
        for i in 0..<ZXing_Barcodes_size(barcodes) {
            guard let barcode = ZXing_Barcodes_at(barcodes, i),
                  let symbology = Self.symbology(of: ZXing_Barcode_format(barcode)) else { continue }
            var length: Int32 = 0
            let bytes = Self.taking(ZXing_Barcode_bytes(barcode, &length)) { [UInt8](UnsafeBufferPointer(start: $0, count: Int(length))) } ?? []
            // Both with their lengths: a payload may hold NUL bytes.
            var textLength: Int32 = 0
            let text = Self.taking(slv_zxing_barcode_text(barcode, &textLength)) {
                String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: Int(textLength)), as: UTF8.self)
            } ?? ""
            let p = ZXing_Barcode_position(barcode)
            found.append(Found(valid: ZXing_Barcode_isValid(barcode), symbology: symbology, text: text, bytes: bytes,
                               corners: [p.topLeft, p.topRight, p.bottomRight, p.bottomLeft].map { (x: Double($0.x), y: Double($0.y)) }))
        }
        return found
    }

    /// Converts memory zxing-cpp handed over and frees it.
    private static func taking<P, T>(_ pointer: UnsafeMutablePointer<P>?, _ convert: (UnsafeMutablePointer<P>) -> T) -> T? {
        guard let pointer else { return nil }
        defer { ZXing_free(pointer) }
        return convert(pointer)
    }

    private static func lastError(or fallback: String) -> String {
        taking(ZXing_LastErrorMsg()) { String(cString: $0) } ?? fallback
    }
}

extension CodeBinarizer {
    var zxing: ZXing_Binarizer {
        switch self {
        case .localAverage: return ZXing_Binarizer_LocalAverage
        case .globalHistogram: return ZXing_Binarizer_GlobalHistogram
        case .fixedThreshold: return ZXing_Binarizer_FixedThreshold
        case .boolCast: return ZXing_Binarizer_BoolCast
        }
    }
}

extension CodeTextMode {
    var zxing: ZXing_TextMode {
        switch self {
        case .plain: return ZXing_TextMode_Plain
        case .eci: return ZXing_TextMode_ECI
        case .hri: return ZXing_TextMode_HRI
        case .escaped: return ZXing_TextMode_Escaped
        case .hex: return ZXing_TextMode_Hex
        }
    }
}

extension GrayImage {
    /// The region around corner points (in this image's pixels), grown by `margin` of its size
    /// and 8 pixels on every side (`vertical` pixels above and below, if more), clipped to the
    /// image; nil if empty.
    fileprivate func cropped(around corners: [(x: Double, y: Double)], margin: Double, vertical: Double = 8) -> GrayImage? {
        guard let x0 = corners.map(\.x).min(), let x1 = corners.map(\.x).max(),
              let y0 = corners.map(\.y).min(), let y1 = corners.map(\.y).max() else { return nil }
        let mx = (x1 - x0) * margin + 8, my = (y1 - y0) * margin + max(8, vertical)
        let left = Int((x0 - mx).rounded(.down)), top = Int((y0 - my).rounded(.down))
        return cropped(x: left, y: top, width: Int((x1 + mx).rounded(.up)) - left, height: Int((y1 + my).rounded(.up)) - top)
    }
}
