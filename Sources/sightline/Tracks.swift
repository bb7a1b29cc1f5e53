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
        let file = try RecordFile(path: records)
        let tracks = file.tracks.filter { kind == nil || $0.kind.rawValue == kind }
            .filter { !confirmedOnly || $0.state != .unconfirmed }.sorted { $0.id < $1.id }
        if json {
            for track in tracks { print(track.json.serialized()) }
            return
        }
        print(TrackRecord.timeline(tracks), terminator: "")
    }
}
