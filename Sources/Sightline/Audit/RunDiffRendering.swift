import Foundation
import SightlineFrames
import SightlineRecords

private func int(_ value: Int) -> JSON { .int(Int64(value)) }

extension DiffItem {
    var json: JSON {
        switch self {
        case .face(let f): return f.json
        case .code(let c): return c.json
        }
    }

    var text: String {
        let track = self.track.map { "track \($0) " } ?? ""
        switch self {
        case .face(let f): return "\(track)\(f.box.text)"
        case .code(let c): return "\(track)\(c.label) at \(c.box.text)"
        }
    }
}

extension KindDiff {
    var json: JSON {
        .object([("same", int(same)), ("identical", int(identical)), ("moved", int(moved)), ("new", int(new)),
                 ("lost", int(lost)), ("payload_changed", int(payloadChanged)), ("track_changes", int(trackChanges)),
                 ("tracks_a", int(tracksA)), ("tracks_b", int(tracksB)),
                 ("track_ids_only_in", trackIdsOnlyIn.map { .string($0) } ?? .null)])
    }

    var line: String {
        var parts = ["same \(same) (\(identical) identical)", "moved \(moved)", "new \(new)", "lost \(lost)"]
        if kind == .codes { parts.append("payload changed \(payloadChanged)") }
        parts.append("track changes \(trackChanges)")
        parts.append("tracks A \(tracksA), B \(tracksB)")
        if let only = trackIdsOnlyIn { parts.append("track ids only in \(only)") }
        return kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + parts.joined(separator: "  ")
    }
}

extension DiffChange {
    var json: JSON {
        var members: [(String, JSON)] = [("frame", int(frame)), ("t", .fixed(t, digits: Precision.seconds)),
                                         ("change", .string(kind.rawValue)),
                                         ("kind", .string(what))]
        members.append(("a", a?.json ?? .null))
        members.append(("b", b?.json ?? .null))
        members.append(("iou", iou.map { .fixed($0, digits: 4) } ?? .null))
        return .object(members)
    }

    /// "face" or "code".
    var what: String { (a ?? b).map { $0.isFace ? "face" : "code" } ?? "face" }

    var line: String {
        let head = "  frame \(frame) (\(JSON.format(t, digits: Precision.seconds)) s)  \(what) \(kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
        let overlap = iou.map { "  IoU \(JSON.format($0, digits: 4))" } ?? ""
        switch kind {
        case .new: return head + "B " + (b?.text ?? "")
        case .lost: return head + "A " + (a?.text ?? "")
        case .moved, .payload, .track: return head + "A " + (a?.text ?? "") + "  ->  B " + (b?.text ?? "") + overlap
        }
    }
}

extension DiffItem {
    var isFace: Bool { if case .face = self { return true } else { return false } }
}

extension RunDiff {
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("a", .string(pathA)), ("b", .string(pathB)), ("iou", .fixed(iou, digits: 2)), ("match", .string(matching.rawValue)),
            ("identical", .bool(isIdentical)),
            ("frames", .object([("compared", int(frames)), ("only_in_a", int(framesOnlyInA)), ("only_in_b", int(framesOnlyInB))])),
        ]
        if let faces { members.append(("faces", faces.json)) }
        if let codes { members.append(("codes", codes.json)) }
        members.append(("changes", .array(changes.map(\.json))))
        return .object(members)
    }

    public var table: String {
        var out = ["diff of A \(pathA) and B \(pathB)",
                   "frames \(frames) compared (matched by \(matching.rawValue)), IoU >= \(JSON.format(iou, digits: 2)); "
                    + "only in A \(framesOnlyInA), only in B \(framesOnlyInB)"]
        out += [faces, codes].compactMap { $0?.line }
        if !changes.isEmpty {
            out.append("changes")
            out += changes.map(\.line)
        }
        out.append(isIdentical ? "no differences" : "differences found")
        return out.joined(separator: "\n") + "\n"
    }
}
