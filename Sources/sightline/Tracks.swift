import ArgumentParser
import Foundation
import Sightline

struct Tracks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the timeline of faces and codes from saved records: one line per track.",
        discussion: "Reads the track records that `sightline analyze` writes. Exit 65 when the file is malformed, 66 when it is missing or unreadable."
    )

    @Argument(help: "Records written by sightline analyze.")
    var records: String

    @Flag(help: "Print the track records as JSON Lines instead of a table.")
    var json = false

    @Option(help: "Only tracks of this kind: face or code.")
    var kind: String?

    @Flag(name: .customLong("confirmed-only"), help: "Leave out code tracks that were never confirmed (listed as unconfirmed otherwise).")
    var confirmedOnly = false

    func validate() throws {
        if let kind, TrackKind(rawValue: kind) == nil { throw ValidationError("--kind must be face or code, not '\(kind)'.") }
    }

    func run() throws {
        let file = try recordFile { try RecordFile(path: records) }
        let tracks = file.tracks.filter { kind == nil || $0.kind.rawValue == kind }
            .filter { !confirmedOnly || $0.state != .unconfirmed }.sorted { $0.id < $1.id }
        if json {
            for track in tracks { print(track.json.serialized()) }
            return
        }
        print("   id  kind   from (s)    to (s)  frames  seen  what")
        for t in tracks {
            let what: String
            switch t.kind {
            case .face: what = String(format: "face, best at frame %d", t.bestFrame)
            case .code:
                // Records written before confirmation existed have no state: taken as they are.
                what = (t.state == .unconfirmed ? "unconfirmed " : "") + "\(t.symbology?.rawValue ?? "?") \"\(Self.shorten(t.text ?? ""))\""
            }
            print(String(format: "%5d  %-4@  %8.3f  %8.3f  %6d  %4.0f%%  %@",
                         t.id, t.kind.rawValue, t.firstT, t.lastT, t.lastFrame - t.firstFrame + 1,
                         100 * Double(t.framesObserved) / Double(max(1, t.lastFrame - t.firstFrame + 1)), what))
        }
        if tracks.isEmpty { print("(no tracks)") }
    }

    /// Payloads can be long or hold line breaks: one line, at most 48 characters.
    static func shorten(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
        return flat.count > 48 ? String(flat.prefix(47)) + "…" : flat
    }
}
