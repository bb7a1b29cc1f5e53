import CVision
import CZXing
import CZXingText
import SightlineFrames
import SightlineMedia

/// zxing-cpp 3.1 through its C API, on the luma plane without copying it: zxing's `ReadBarcodes`
/// with the `try…` settings asked for, on the whole picture (a frame, or a code track's region).
public final class ZXingCodeReader: CodeReader {
    private let full: OpaquePointer

    /// zxing-cpp's formats for one of our symbologies (the variants it reports are mapped back
    /// by `symbology(of:)`); empty when zxing-cpp cannot read it.
    package static func formats(of s: Symbology) -> [ZXing_BarcodeFormat] {
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
    package static func symbology(of format: ZXing_BarcodeFormat) -> Symbology? {
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
        // 1D formats first, then the 2D ones, as zxing is asked for them.
        let formats = symbologies.filter { !Self.matrix.contains($0) }.flatMap(Self.formats(of:))
            + symbologies.filter { Self.matrix.contains($0) }.flatMap(Self.formats(of:))
        guard let o = ZXing_ReaderOptions_new() else { throw SightlineError.internal("cannot create zxing-cpp reader options") }
        formats.withUnsafeBufferPointer { ZXing_ReaderOptions_setFormats(o, $0.baseAddress, Int32($0.count)) }
        ZXing_ReaderOptions_setTryHarder(o, options.tryHarder)
        ZXing_ReaderOptions_setTryRotate(o, options.tryRotate)
        ZXing_ReaderOptions_setTryInvert(o, options.tryInvert)
        ZXing_ReaderOptions_setTryDownscale(o, options.tryDownscale)
        ZXing_ReaderOptions_setBinarizer(o, options.binarizer.zxing)
        ZXing_ReaderOptions_setTextMode(o, options.textMode.zxing)
        ZXing_ReaderOptions_setReturnErrors(o, false)
        full = o
    }

    /// Symbologies zxing finds by their 2D structure (the rest are read along scan lines).
    package static let matrix: Set<Symbology> = [.qr, .microQR, .aztec, .dataMatrix, .pdf417, .maxiCode]

    deinit { ZXing_ReaderOptions_delete(full) }

    public func read(_ gray: GrayImage, rotation: Rotation) throws -> [CodeObservation] {
        try read(gray, with: full).map { observation($0, in: gray, rotation: rotation) }
    }

    /// One symbol as zxing-cpp reported it, corners in pixels of the picture it read.
    private struct Found {
        var symbology: Symbology
        var text: String
        var bytes: [UInt8]
        var corners: [(x: Double, y: Double)]
    }

    private func observation(_ f: Found, in gray: GrayImage, rotation: Rotation) -> CodeObservation {
        CodeObservation(symbology: f.symbology, text: f.text, bytes: f.bytes, polygon: f.corners.map {
            rotation.display(Point(x: $0.x + Double(gray.originX), y: $0.y + Double(gray.originY)))
        })
    }

    /// Every symbol zxing-cpp reads in the picture.
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
            found.append(Found(symbology: symbology, text: text, bytes: bytes,
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
    package var zxing: ZXing_Binarizer {
        switch self {
        case .localAverage: return ZXing_Binarizer_LocalAverage
        case .globalHistogram: return ZXing_Binarizer_GlobalHistogram
        case .fixedThreshold: return ZXing_Binarizer_FixedThreshold
        case .boolCast: return ZXing_Binarizer_BoolCast
        }
    }
}

extension CodeTextMode {
    package var zxing: ZXing_TextMode {
        switch self {
        case .plain: return ZXing_TextMode_Plain
        case .eci: return ZXing_TextMode_ECI
        case .hri: return ZXing_TextMode_HRI
        case .escaped: return ZXing_TextMode_Escaped
        case .hex: return ZXing_TextMode_Hex
        }
    }
}
