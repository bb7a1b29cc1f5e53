import CVision
import CZBar
import Foundation

/// Which code reader runs.
public enum CodeBackend: String, CaseIterable, Sendable {
    case zbar, zxing, off
}

/// Options for code reading, one value shared by every worker's reader.
public struct CodeReaderOptions: Sendable, Equatable {
    public var backend: CodeBackend = .zxing
    /// Symbologies to look for; empty means every symbology the backend knows.
    public var symbologies: Set<Symbology> = []

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
        case .zxing: return set.filter { ZXingCodeReader.zxingName($0) == nil }
        case .off: return []
        }
    }
}

/// Reads codes from a gray image. Implementations are not thread-safe: one per worker.
public protocol CodeReader: AnyObject {
    /// Codes in the picture, with geometry mapped into the displayed frame.
    func read(_ image: GrayImage, rotation: Rotation) throws -> [CodeObservation]
}

public func makeCodeReader(_ options: CodeReaderOptions) throws -> CodeReader? {
    switch options.backend {
    case .zbar: return try ZBarCodeReader(symbologies: options.symbologies)
    case .zxing: return try ZXingCodeReader(symbologies: options.symbologies)
    case .off: return nil
    }
}

// MARK: - zbar

/// zbar's image scanner on the luma plane, without copying it.
public final class ZBarCodeReader: CodeReader {
    private let scanner: OpaquePointer
    private let image: OpaquePointer

    static func zbarType(_ s: Symbology) -> zbar_symbol_type_t? {
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

// MARK: - zxing-cpp

/// zxing-cpp's multi-format reader on the luma plane, without copying it.
public final class ZXingCodeReader: CodeReader {
    private let reader: OpaquePointer
    private var found = [slv_code](repeating: slv_code(), count: 64)

    static func zxingName(_ s: Symbology) -> String? {
        switch s {
        case .qr: return "QRCode"
        case .microQR: return "MicroQRCode"
        case .aztec: return "Aztec"
        case .dataMatrix: return "DataMatrix"
        case .pdf417: return "PDF417"
        case .maxiCode: return "MaxiCode"
        case .ean13: return "EAN13"
        case .ean8: return "EAN8"
        case .upcA: return "UPCA"
        case .upcE: return "UPCE"
        case .code128: return "Code128"
        case .code39: return "Code39"
        case .code93: return "Code93"
        case .codabar: return "Codabar"
        case .itf: return "ITF"
        case .dataBar: return "DataBar"
        case .dataBarExpanded: return "DataBarExpanded"
        case .isbn10, .isbn13, .ean2, .ean5: return nil
        }
    }

    private static let symbologyOfFormat: [Int32: Symbology] = Dictionary(
        uniqueKeysWithValues: Symbology.allCases.compactMap { s in
            zxingName(s).map { (Int32(bitPattern: slv_zxing_format_from_name($0)), s) }
        })

    public init(symbologies: Set<Symbology>, tryHarder: Bool = true) throws {
        let mask = symbologies.compactMap(Self.zxingName).reduce(UInt32(0)) { $0 | slv_zxing_format_from_name($1) }
        guard let reader = slv_zxing_create(mask, tryHarder ? 1 : 0) else {
            throw SightlineError.internal("cannot create a zxing-cpp reader")
        }
        self.reader = reader
    }

    deinit { slv_zxing_destroy(reader) }

    public func read(_ gray: GrayImage, rotation: Rotation) throws -> [CodeObservation] {
        var error = [CChar](repeating: 0, count: 512)
        let count = slv_zxing_read(reader, gray.image, &found, Int32(found.count), &error, error.count)
        guard count >= 0 else { throw SightlineError.internal("zxing-cpp failed: " + error.cString) }
        return found.prefix(Int(count)).compactMap { code in
            guard let symbology = Self.symbologyOfFormat[code.format] else { return nil }
            let text = code.text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: code.text_length), as: UTF8.self) } ?? ""
            let bytes = code.bytes.map { [UInt8](UnsafeBufferPointer(start: $0, count: code.bytes_length)) } ?? []
            let c = code.corners
            let corners = [(c.0, c.1), (c.2, c.3), (c.4, c.5), (c.6, c.7)]
            return CodeObservation(symbology: symbology, text: text, bytes: bytes,
                                   polygon: corners.map {
                                       rotation.display(Point(x: Double($0.0 + Int32(gray.originX)), y: Double($0.1 + Int32(gray.originY))))
                                   })
        }
    }
}

extension Array where Element == CChar {
    /// The NUL-terminated string in a C error buffer.
    var cString: String {
        String(decoding: prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
    }
}
