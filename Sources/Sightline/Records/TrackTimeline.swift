import Foundation
import SightlineFrames

extension TrackRecord {
    /// The timeline `sightline tracks` prints: one line per track, in the order given.
    public static func timeline(_ tracks: [TrackRecord]) -> String {
        var out = "   id  kind   from (s)    to (s)  frames  seen  what\n"
        for t in tracks {
            let what: String
            switch t.kind {
            case .face: what = String(format: "face, best at frame %d", t.bestFrame)
            case .code:
                // Records written before confirmation existed have no state: taken as they are.
                what = (t.state == .unconfirmed ? "unconfirmed " : "") + "\(t.symbology?.rawValue ?? "?") \"\(shorten(t.text ?? ""))\""
            }
            out += String(format: "%5d  %-4@  %8.3f  %8.3f  %6d  %4.0f%%  %@",
                         t.id, t.kind.rawValue, t.firstT, t.lastT, t.lastFrame - t.firstFrame + 1,
                         100 * Double(t.framesObserved) / Double(max(1, t.lastFrame - t.firstFrame + 1)), what) + "\n"
        }
        return tracks.isEmpty ? out + "(no tracks)\n" : out
    }

    /// Payloads can be long or hold line breaks: one line, at most 48 characters.
    package static func shorten(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
        return flat.count > 48 ? String(flat.prefix(47)) + "…" : flat
    }
}
