import CJSONC
import Foundation
import SightlineFrames

/// A JSON value with keys in a fixed order and numbers at a fixed precision, serialized by json-c.
public indirect enum JSON: Sendable, Equatable {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case int(Int64)
    /// A number written with exactly `digits` decimals.
    case fixed(Double, digits: Int)
    /// A number written with as many digits as it takes to read back as the same `Double`.
    case exact(Double)
    case bool(Bool)
    case null

    public static func == (a: JSON, b: JSON) -> Bool { a.serialized() == b.serialized() }

    /// One line of compact JSON (no trailing newline).
    public func serialized() -> String {
        let object = makeJSONC()
        defer { json_object_put(object) }
        var length = 0
        let flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE
        guard let chars = json_object_to_json_string_length(object, Int32(flags), &length) else { return "null" }
        return String(decoding: UnsafeRawBufferPointer(start: chars, count: length), as: UTF8.self)
    }

    private func makeJSONC() -> OpaquePointer? {
        switch self {
        case .object(let members):
            let object = json_object_new_object()
            for (key, value) in members {
                json_object_object_add(object, key, value.makeJSONC())
            }
            return object
        case .array(let items):
            let array = json_object_new_array_ext(Int32(items.count))
            for item in items { json_object_array_add(array, item.makeJSONC()) }
            return array
        case .string(let s):
            return json_object_new_string_len(s, Int32(s.utf8.count))
        case .int(let i):
            return json_object_new_int64(i)
        case .fixed(let value, let digits):
            return json_object_new_double_s(value, JSON.format(value, digits: digits))
        case .exact(let value):
            return json_object_new_double_s(value, value.isFinite ? "\(value)" : "0")
        case .bool(let b):
            return json_object_new_boolean(b ? 1 : 0)
        case .null:
            return nil   // json-c writes a NULL member as null
        }
    }

    /// `value` with `digits` decimals; never "-0.00", never NaN or infinity (written as 0).
    package static func format(_ value: Double, digits: Int) -> String { Precision.format(value, digits: digits) }
}
