import ArgumentParser
import Foundation
import Sightline

struct People: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the timeline of each person from saved records (written with --identities on).",
        discussion: """
            One block per person: time on screen, then each appearance (file, identity, tracks, first and last time). \
            Given several files, the people of different files are linked by their face embeddings, so those files \
            must have been written with --identities on --embeddings. Exit 65 when a file is malformed or lacks \
            embeddings, 66 when it is missing or unreadable.
            """
    )

    @Argument(help: "Records written by sightline analyze or capture with --identities on.")
    var records: [String]

    @Option(name: .customLong("identity-threshold"), help: "Several files: cosine similarity of two people's mean embeddings at which they are one person.")
    var identityThreshold: Double = IdentityOptions.defaultThreshold

    func validate() throws {
        if records.isEmpty { throw ValidationError("Give at least one record file.") }
        if !(-1...1).contains(identityThreshold) { throw ValidationError("--identity-threshold must be between -1 and 1, not \(identityThreshold).") }
    }

    func run() throws {
        let timeline = try PeopleTimeline(files: records, threshold: identityThreshold)
        print(timeline.text, terminator: "")
    }
}
