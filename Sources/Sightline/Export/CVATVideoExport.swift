import Foundation
import SightlineFrames
import SightlineRecords

/// CVAT for video 1.1 XML (the "CVAT for video" export and import format of CVAT): the task's meta
/// (size, frames, labels, original size) and one `<track>` per Sightline track with a `<box>` per
/// frame it was seen in, every box a keyframe. Where a track is not seen in the next frame (it ended,
/// or is missing for a while), a box with `outside="1"` closes it there, as CVAT writes it; a track
/// that reaches the last frame has none. Codes carry their symbology and payload as `<attribute>`s:
/// `payload` the text (characters XML cannot hold, such as control codes, as U+FFFD) and
/// `payload_base64` the exact bytes.
struct CVATVideoExport {
    /// The frame records, by index.
    let frames: [FrameRecord]
    let video: ExportedVideo
    let kinds: Set<TrackKind>

    private struct Shape {
        var frame: Int
        var box: Box
        var code: CodeObservation?
    }

    private struct Track {
        var id: Int
        var kind: TrackKind
        var shapes: [Shape] = []
    }

    var xml: String {
        let ids = ExportTrackIDs(frames: frames)
        var tracks: [Int: Track] = [:]
        for (k, frame) in frames.enumerated() {
            // A CVAT video task has one frame size: the boxes of a frame of another size are scaled
            // to it, as the rendered video's frames are.
            let sx = frame.frameSize.map { Double(video.width) / Double($0.width) } ?? 1
            let sy = frame.frameSize.map { Double(video.height) / Double($0.height) } ?? 1
            func scaled(_ b: Box) -> Box { sx == 1 && sy == 1 ? b : Box(x: b.x * sx, y: b.y * sy, w: b.w * sx, h: b.h * sy) }
            if kinds.contains(.face) {
                for (f, face) in frame.faces.enumerated() {
                    let id = ids.faces[k][f]
                    tracks[id, default: Track(id: id, kind: .face)].shapes.append(Shape(frame: frame.index, box: scaled(face.box)))
                }
            }
            if kinds.contains(.code) {
                for (c, code) in frame.codes.enumerated() {
                    let id = ids.codes[k][c]
                    tracks[id, default: Track(id: id, kind: .code)].shapes.append(Shape(frame: frame.index, box: scaled(code.box), code: code))
                }
            }
        }
        let first = frames.first?.index ?? 0, last = frames.last?.index ?? -1

        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<annotations>\n  <version>1.1</version>\n  <meta>\n    <task>\n"
        out += "      <id>0</id>\n      <name>\(escape(video.name))</name>\n      <size>\(frames.count)</size>\n"
        out += "      <mode>interpolation</mode>\n      <overlap>0</overlap>\n      <bugtracker></bugtracker>\n"
        out += "      <start_frame>\(first)</start_frame>\n      <stop_frame>\(max(first, last))</stop_frame>\n      <frame_filter></frame_filter>\n"
        out += "      <segments>\n        <segment>\n          <id>0</id>\n          <start>\(first)</start>\n          <stop>\(max(first, last))</stop>\n          <url></url>\n        </segment>\n      </segments>\n"
        out += "      <labels>\n"
        if kinds.contains(.face) {
            out += "        <label>\n          <name>face</name>\n          <color>#33ddff</color>\n          <type>rectangle</type>\n          <attributes>\n          </attributes>\n        </label>\n"
        }
        if kinds.contains(.code) {
            out += "        <label>\n          <name>code</name>\n          <color>#fa7dbb</color>\n          <type>rectangle</type>\n          <attributes>\n"
            for name in ["symbology", "payload", "payload_base64"] {
                out += "            <attribute>\n              <name>\(name)</name>\n              <mutable>True</mutable>\n"
                out += "              <input_type>text</input_type>\n              <default_value></default_value>\n              <values></values>\n            </attribute>\n"
            }
            out += "          </attributes>\n        </label>\n"
        }
        out += "      </labels>\n"
        out += "      <original_size>\n        <width>\(video.width)</width>\n        <height>\(video.height)</height>\n      </original_size>\n"
        out += "      <source>\(escape(video.name))</source>\n    </task>\n  </meta>\n"

        for track in tracks.values.sorted(by: { $0.id < $1.id }) {
            out += "  <track id=\"\(track.id)\" label=\"\(track.kind.rawValue)\" source=\"auto\">\n"
            for (k, shape) in track.shapes.enumerated() {
                out += box(shape, outside: false)
                let next = k + 1 < track.shapes.count ? track.shapes[k + 1].frame : nil
                // Not seen in the next frame: the track is outside from there (until seen again).
                if next != shape.frame + 1, shape.frame < last {
                    out += box(Shape(frame: shape.frame + 1, box: shape.box, code: shape.code), outside: true)
                }
            }
            out += "  </track>\n"
        }
        out += "</annotations>\n"
        return out
    }

    private func box(_ shape: Shape, outside: Bool) -> String {
        let b = shape.box
        func px(_ v: Double) -> String { JSON.format(v, digits: Precision.pixels) }
        var out = "    <box frame=\"\(shape.frame)\" keyframe=\"1\" outside=\"\(outside ? 1 : 0)\" occluded=\"0\" "
            + "xtl=\"\(px(b.x))\" ytl=\"\(px(b.y))\" xbr=\"\(px(b.x + b.w))\" ybr=\"\(px(b.y + b.h))\" z_order=\"0\">"
        if let code = shape.code {
            out += "\n      <attribute name=\"symbology\">\(code.symbology.rawValue)</attribute>"
            out += "\n      <attribute name=\"payload\">\(escape(code.text))</attribute>"
            out += "\n      <attribute name=\"payload_base64\">\(Data(code.bytes).base64EncodedString())</attribute>\n    "
        }
        return out + "</box>\n"
    }

    /// Text for XML 1.0 element content or attribute values: markup characters as entities, carriage
    /// returns and tabs as character references (parsers would fold them), and characters XML 1.0
    /// cannot hold at all (control codes, U+FFFE, U+FFFF) as U+FFFD.
    private func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            default:
                let v = scalar.value
                let allowed = v >= 0x20 && v != 0xFFFE && v != 0xFFFF
                out.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return out
    }
}
