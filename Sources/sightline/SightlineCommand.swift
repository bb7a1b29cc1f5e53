import ArgumentParser
import Foundation
import Sightline

@main
struct SightlineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sightline",
        abstract: "Find faces and codes in video, frame by frame, and write them as JSON Lines.",
        discussion: """
            Every command writes one line to standard error naming the file and the cause of a \
            failure, and exits 0 on success, 64 on a bad command line, and with a code of its cause \
            otherwise (docs/exit-codes.md lists them all).
            """,
        version: sightlineVersion,
        groupedSubcommands: [
            CommandGroup(name: "Analyze", subcommands: [Analyze.self, Capture.self, Devices.self, Tracks.self, People.self]),
            CommandGroup(name: "Draw and anonymize", subcommands: [Render.self, Snapshot.self, Anonymize.self, Leaks.self]),
            CommandGroup(name: "Check and share results", subcommands: [Audit.self, Diff.self, Report.self, Export.self]),
            CommandGroup(name: "Archives on a cluster", subcommands: [Scan.self, Plan.self, Merge.self]),
            CommandGroup(name: "Models", subcommands: [Models.self]),
        ]
    )

    /// Runs the command, turning Sightline's errors into one stderr line and their exit code.
    static func main() {
        stopBLASThreads()
        var failure: Error?
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            failure = error
        }
        // Every way out waits for the network compilations started ahead of use: OpenVINO must
        // not be torn down under them.
        OpenVINORuntime.finishPreparations()
        switch failure {
        case nil: return
        case let error as SightlineError: fail(error, exitCode: error.exitCode)
        case let error as RecordFileError: fail(error, exitCode: error.exitCode)
        case let error as AlignmentError: fail(error, exitCode: 64)
        case let error?: exit(withError: error)
        }
    }

    /// One stderr line naming the file and the cause, and the error's exit code.
    private static func fail(_ error: Error, exitCode: Int32) -> Never {
        FileHandle.standardError.write(Data("sightline: \(error)\n".utf8))
        Foundation.exit(exitCode)
    }
}
