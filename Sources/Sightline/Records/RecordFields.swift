import Foundation
import SightlineFrames

/// One JSON record read back (parsed by json-c, `JSONText`), with typed access to its members.
/// It is how code outside `Records/` reads a record: the decoders of the plan's `shard` lines
/// and the scan index's `span` lines sit beside their encoders and read through it, so no
/// untyped JSON leaves this layer.
public struct RecordFields {
    /// The parsed object, for the decoders in this layer.
    package let object: [String: Any]

    package init(_ object: [String: Any]) { self.object = object }

    /// One line of a JSON Lines file; nil when it is not exactly one JSON object.
    public init?(line: some Collection<UInt8>) {
        guard let object = JSONText.parse(line) as? [String: Any] else { return nil }
        self.object = object
    }

    /// The record's `type`.
    public var type: String? { string("type") }

    public func contains(_ key: String) -> Bool { object[key] != nil }
    /// True when the member is there and is JSON null.
    public func isNull(_ key: String) -> Bool { object[key] is NSNull }

    public func string(_ key: String) -> String? { object[key] as? String }
    public func bool(_ key: String) -> Bool? { object[key] as? Bool }
    /// A finite number.
    public func double(_ key: String) -> Double? { recordNumber(object[key]) }
    /// A number with no fractional part.
    public func int(_ key: String) -> Int? { recordInteger(object[key]) }
    /// An array of numbers (nil when any element is not one).
    public func doubles(_ key: String) -> [Double]? {
        guard let values = object[key] as? [Any] else { return nil }
        let numbers = values.compactMap(recordNumber)
        return numbers.count == values.count ? numbers : nil
    }
    /// An array of integers (nil when any element is not one).
    public func ints(_ key: String) -> [Int]? {
        guard let values = object[key] as? [Any] else { return nil }
        let numbers = values.compactMap(recordInteger)
        return numbers.count == values.count ? numbers : nil
    }
    public func strings(_ key: String) -> [String]? { object[key] as? [String] }
    /// A member that is itself an object.
    public func fields(_ key: String) -> RecordFields? { (object[key] as? [String: Any]).map(RecordFields.init) }
}

/// A finite JSON number.
package func recordNumber(_ value: Any?) -> Double? {
    guard let n = value as? NSNumber else { return nil }
    let d = n.doubleValue
    return d.isFinite ? d : nil
}

/// A JSON number with no fractional part, in range.
package func recordInteger(_ value: Any?) -> Int? {
    guard let d = recordNumber(value), d == d.rounded(), abs(d) < 1e15 else { return nil }
    return Int(d)
}
