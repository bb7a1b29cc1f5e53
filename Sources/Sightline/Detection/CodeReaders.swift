import CVision
import CZBar
import Foundation
import SightlineFrames
import SightlineMedia

/// Which code reader runs.
public enum CodeBackend: String, CaseIterable, Sendable {
    case zbar, zxing, off
}

/// Options for code reading, one value shared by every worker's reader. The `try…`, binarizer
/// and text settings are zxing-cpp's `ReaderOptions` (zbar has none of them).
public struct CodeReaderOptions: Sendable, Equatable {
    public var backend: CodeBackend = .zxing
    /// Symbologies to look for; empty means every symbology the backend knows.
    public var symbologies: Set<Symbology> = []
    /// Spend more time to find more codes (1D: more scan lines; 2D: slower finder searches).
    public var tryHarder = true
    /// Also look for codes turned by 90°, 180° and 270° (1D: scan columns too).
    public var tryRotate = true
    /// Also look for inverted codes (light modules on a dark ground).
    public var tryInvert = true
    /// Also look in downscaled copies of the picture (large codes, noisy pictures).
    public var tryDownscale = true
    public var binarizer: CodeBinarizer = .localAverage
    public var textMode: CodeTextMode = .plain

    public init(backend: CodeBackend = .zxing, symbologies: Set<Symbology> = []) {
        self.backend = backend
        self.symbologies = symbologies
    }

    /// The symbologies actually looked for, sorted: the chosen ones, or all the backend reads.
    public var effectiveSymbologies: [Symbology] {
        (symbologies.isEmpty ? Set(Symbology.allCases) : symbologies).subtracting(unsupported(in: Set(Symbology.allCases))).sorted()
    }

    /// Symbologies the backend cannot read at all.
    public func unsupportedSymbologies() -> [Symbology] { unsupported(in: symbologies).sorted() }

    private func unsupported(in set: Set<Symbology>) -> Set<Symbology> {
        switch backend {
        case .zbar: return set.filter { ZBarCodeReader.zbarType($0) == nil }
        case .zxing: return set.filter { ZXingCodeReader.formats(of: $0).isEmpty }
        case .off: return []
        }
    }
}

/// How zxing-cpp turns gray levels into black and white modules.
public enum CodeBinarizer: String, CaseIterable, Sendable {
    /// Threshold by the local average of 8x8 blocks (zxing's hybrid binarizer; uneven lighting).
    case localAverage = "local-average"
    /// One threshold per row from the histogram (fast, even lighting).
    case globalHistogram = "global-histogram"
    /// Everything at or below 127 is black.
    case fixedThreshold = "fixed-threshold"
    /// Every non-zero pixel is white (pictures that are already black and white).
    case boolCast = "bool-cast"
}

/// What `text` holds, as zxing-cpp's `TextMode`.
public enum CodeTextMode: String, CaseIterable, Sendable {
    /// The payload as text, character sets (ECI) applied, GS1 separators kept as 0x1D.
    case plain
    /// The payload with its ECI designators, as the standard transmits it (`\NNNNNN`).
    case eci
    /// Human readable: GS1 application identifiers in parentheses, ISO 15434 spelled out.
    case hri
    /// Plain, with non-printable characters escaped (`<GS>`, `<U+1F>`).
    case escaped
    /// The payload bytes as hexadecimal.
    case hex
}

/// Reads codes from a gray image. Implementations are not thread-safe: one per worker.
public protocol CodeReader: AnyObject {
    /// Codes in the picture, with geometry mapped into the displayed frame.
    func read(_ image: GrayImage, rotation: Rotation) throws -> [CodeObservation]
}


public func makeCodeReader(_ options: CodeReaderOptions) throws -> CodeReader? {
    switch options.backend {
    case .zbar: return try ZBarCodeReader(symbologies: options.symbologies)
    case .zxing: return try ZXingCodeReader(options: options)
    case .off: return nil
    }
}

// MARK: - zbar

/// zbar's image scanner on the luma plane, without copying it.
public final class ZBarCodeReader: CodeReader {
    private let scanner: OpaquePointer
    private let image: OpaquePointer

    package static func zbarType(_ s: Symbology) -> zbar_symbol_type_t? {
        switch s {
        case .qr: return ZBAR_QRCODE
        case .ean13: return ZBAR_EAN13
        case .ean8: return ZBAR_EAN8
        case .upcA: return ZBAR_UPCA
        case .upcE: return ZBAR_UPCE
        case .isbn10: return ZBAR_ISBN10
        case .isbn13: return ZBAR_ISBN13
        case .ean2: return ZBAR_EAN2
        case .ean5: return ZBAR_EAN5
        case .code128: return ZBAR_CODE128
        case .code39: return ZBAR_CODE39
        case .code93: return ZBAR_CODE93
        case .codabar: return ZBAR_CODABAR
        case .itf: return ZBAR_I25
        case .dataBar: return ZBAR_DATABAR
        case .dataBarExpanded: return ZBAR_DATABAR_EXP
        case .microQR, .aztec, .dataMatrix, .pdf417, .maxiCode: return nil
        }
    }

    private static let symbologyOfType: [UInt32: Symbology] = Dictionary(
        uniqueKeysWithValues: Symbology.allCases.compactMap { s in zbarType(s).map { ($0.rawValue, s) } })

    public init(symbologies: Set<Symbology>) throws {
        guard let scanner = zbar_image_scanner_create(), let image = zbar_image_create() else {
            throw SightlineError.internal("cannot create a zbar scanner")
        }
        self.scanner = scanner
        self.image = image
        zbar_image_set_format(image, sl_zbar_y800())
        if !symbologies.isEmpty {
            zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
            for s in symbologies {
                if let type = Self.zbarType(s) { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1) }
            }
        }
    }

    deinit {
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    public func read(_ gray: GrayImage, rotation: Rotation) throws -> [CodeObservation] {
        if gray.isRegion {
            // A region's rows are not contiguous: copy it (regions are small).
            var rows = [UInt8](repeating: 0, count: gray.width * gray.height)
            for y in 0..<gray.height {
                rows.withUnsafeMutableBufferPointer { dst in
                    (dst.baseAddress! + y * gray.width).update(from: gray.image.data + y * gray.stride, count: gray.width)
                }
            }
            return try rows.withUnsafeBufferPointer { buffer in
                let copy = GrayImage(image: slv_gray_image(data: buffer.baseAddress, width: gray.image.width,
                                                           height: gray.image.height, stride: gray.image.width),
                                     originX: gray.originX, originY: gray.originY)
                return try scan(copy, rotation: rotation)
            }
        }
        return try scan(gray, rotation: rotation)
    }

    private func scan(_ gray: GrayImage, rotation: Rotation) throws -> [CodeObservation] {
        // zbar has no row stride: scan stride-wide rows and drop what lies in the padding.
        zbar_image_set_size(image, UInt32(gray.stride), UInt32(gray.height))
        zbar_image_set_data(image, gray.image.data, UInt(gray.stride * gray.height), nil)
        defer { zbar_image_set_data(image, nil, 0, nil) }
        guard zbar_scan_image(scanner, image) >= 0 else {
            throw SightlineError.internal("zbar failed to scan a frame")
        }
        var codes: [CodeObservation] = []
        let width = Double(gray.width)
        var symbol = zbar_image_first_symbol(image)
        while let s = symbol {
            defer { symbol = zbar_symbol_next(s) }
            guard let symbology = Self.symbologyOfType[zbar_symbol_get_type(s).rawValue] else { continue }
            let count = zbar_symbol_get_loc_size(s)
            var points: [Point] = []
            for i in 0..<count {
                points.append(Point(x: Double(zbar_symbol_get_loc_x(s, i)), y: Double(zbar_symbol_get_loc_y(s, i))))
            }
            guard points.contains(where: { $0.x < width }) else { continue }   // found in the padding
            points = points.map { rotation.display(Point(x: min($0.x, width) + Double(gray.originX), y: $0.y + Double(gray.originY))) }
            let length = Int(zbar_symbol_get_data_length(s))
            let bytes = zbar_symbol_get_data(s).map { ptr in
                [UInt8](UnsafeRawBufferPointer(start: ptr, count: length))
            } ?? []
            codes.append(CodeObservation(symbology: symbology, text: String(decoding: bytes, as: UTF8.self),
                                         bytes: bytes, polygon: points))
        }
        return codes
    }
}

extension Array where Element == CChar {
    /// The NUL-terminated string in a C error buffer.
    package var cString: String {
        String(decoding: prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
    }
}
