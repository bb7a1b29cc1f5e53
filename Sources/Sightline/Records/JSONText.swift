import CJSONC
import Foundation
import SightlineFrames

/// Parses one JSON text with json-c (strict, UTF-8 checked) into the values JSONSerialization gives
/// (String, NSNumber, Bool, NSNull, [Any], [String: Any]), built as native Swift containers: record
/// files of a million lines are read several times faster than through JSONSerialization, whose
/// containers are bridged again on every cast.
package enum JSONText {
    /// The value of `bytes` (leading and trailing blanks ignored), or nil when it is not exactly one
    /// JSON text.
    package static func parse(_ bytes: some Collection<UInt8>) -> Any? {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        var text = Array(bytes)
        while let last = text.last, blank(last) { text.removeLast() }
        guard let first = text.firstIndex(where: { !blank($0) }) else { return nil }
        if first > 0 { text.removeFirst(first) }
        guard let tokener = json_tokener_new() else { return nil }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
        let object = text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { json_tokener_parse_ex(tokener, $0.baseAddress, Int32($0.count)) }
        }
        defer { json_object_put(object) }
        guard json_tokener_get_error(tokener) == json_tokener_success, json_tokener_get_parse_end(tokener) == text.count else {
            return nil
        }
        return value(object)
    }

    private static func value(_ object: OpaquePointer?) -> Any {
        guard let object else { return NSNull() }
        switch json_object_get_type(object) {
        case json_type_boolean:
            return json_object_get_boolean(object) != 0
        case json_type_int:
            return NSNumber(value: json_object_get_int64(object))
        case json_type_double:
            return NSNumber(value: json_object_get_double(object))
        case json_type_string:
            let length = Int(json_object_get_string_len(object))
            guard let chars = json_object_get_string(object) else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: chars, count: length), as: UTF8.self)
        case json_type_array:
            let count = json_object_array_length(object)
            var items: [Any] = []
            items.reserveCapacity(count)
            for i in 0..<count { items.append(value(json_object_array_get_idx(object, i))) }
            return items
        case json_type_object:
            var members: [String: Any] = [:]
            var it = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            while json_object_iter_equal(&it, &end) == 0 {
                members[String(cString: json_object_iter_peek_name(&it))] = value(json_object_iter_peek_value(&it))
                json_object_iter_next(&it)
            }
            return members
        default:
            return NSNull()
        }
    }
}
