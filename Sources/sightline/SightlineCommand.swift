import ArgumentParser
import Foundation
import Sightline

@main
struct SightlineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sightline",
        abstract: "Find faces and codes in video, frame by frame, and write them as JSON Lines.",
        discussion: """
            Exit codes: 0 success; 1 internal error; 2 input damaged (output complete for what \
            decoded); 64 bad command line; 65 not a video file (or a fetched model failed its checksum); 66 input missing or unreadable; \
            67 no video stream; 69 detector unavailable; 73 output cannot be created; \
            74 write failed; 75 model fetch failed; 130 interrupted.
            """,
        version: sightlineVersion,
        subcommands: [Analyze.self, Audit.self, Models.self]
    )

    /// Runs the command, turning Sightline's errors into one stderr line and their exit code.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as SightlineError {
            FileHandle.standardError.write(Data("sightline: \(error)\n".utf8))
            Foundation.exit(error.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}
