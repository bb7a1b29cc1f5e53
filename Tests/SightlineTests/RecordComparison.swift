import Foundation
@testable import Sightline

/// Two runs' records compared field by field, as a reader of them would: what a network's
/// floating-point kernels compute may differ in its last digits between CPU kinds (AVX2, AVX-512
/// VNNI), so boxes, scores and landmarks are compared within stated tolerances; everything else
/// (the order and types of records, ids, counts, codes, statuses, timestamps, every other value)
/// stays exact.
enum RecordComparison {
    /// Pixels a box side or a code corner may move.
    static let box = 1.0
    /// What a face's score (or a track's mean score) may change.
    static let score = 0.02
    /// Pixels a landmark may move.
    static let landmark = 2.0

    /// The differences between `expected` and `actual` (JSON Lines), at most `limit` of them,
    /// each naming the line, the record and the field; empty when they agree.
    static func differences(expected: Data, actual: Data, limit: Int = 10) -> [String] {
        let lines = { (data: Data) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() }
        let (old, new) = (Array(lines(expected)), Array(lines(actual)))
        var found: [String] = []
        if old.count != new.count { found.append("\(new.count) lines, expected \(old.count)") }
        for (i, (a, b)) in zip(old, new).enumerated() where found.count < limit {
            guard let x = JSONText.parse(a), let y = JSONText.parse(b) else {
                found.append("line \(i + 1): not JSON"); continue
            }
            let record = x as? [String: Any]
            let name = "line \(i + 1) (\(record?["type"] ?? "?")\(record?["index"].map { " \($0)" } ?? ""))"
            compare(x, y, at: name, tolerance: nil, into: &found, limit: limit)
        }
        return Array(found.prefix(limit))
    }

    /// The tolerance of a member, by its name: nil for exact.
    private static func tolerance(of key: String, within parent: Double?) -> Double? {
        switch key {
        case "x", "y", "w", "h", "polygon": return box
        case "score", "mean_score": return score
        case "landmarks": return landmark
        default: return parent   // landmarks' points and polygons' corners inherit their member's
        }
    }

    private static func compare(_ a: Any, _ b: Any, at path: String, tolerance: Double?, into found: inout [String], limit: Int) {
        guard found.count < limit else { return }
        switch (a, b) {
        case let (a as [String: Any], b as [String: Any]):
            if Set(a.keys) != Set(b.keys) {
                found.append("\(path): members \(b.keys.sorted()), expected \(a.keys.sorted())"); return
            }
            for key in a.keys.sorted() {
                compare(a[key]!, b[key]!, at: "\(path).\(key)", tolerance: Self.tolerance(of: key, within: tolerance),
                        into: &found, limit: limit)
            }
        case let (a as [Any], b as [Any]):
            guard a.count == b.count else { found.append("\(path): \(b.count) items, expected \(a.count)"); return }
            for (i, (x, y)) in zip(a, b).enumerated() {
                compare(x, y, at: "\(path)[\(i)]", tolerance: tolerance, into: &found, limit: limit)
            }
        case let (x as Bool, y as Bool) where type(of: a) == Bool.self && type(of: b) == Bool.self:   // not a bridged 0 or 1
            if x != y { found.append("\(path): \(y), expected \(x)") }
        case let (a as NSNumber, b as NSNumber):
            let (x, y) = (a.doubleValue, b.doubleValue)
            if tolerance.map({ abs(x - y) > $0 + 1e-9 }) ?? (x != y) {
                found.append("\(path): \(b), expected \(a)" + (tolerance.map { " (± \($0))" } ?? ""))
            }
        case let (a as String, b as String):
            if a != b { found.append("\(path): \(b.debugDescription), expected \(a.debugDescription)") }
        case (is NSNull, is NSNull):
            break
        default:
            found.append("\(path): \(b), expected \(a)")
        }
    }
}
