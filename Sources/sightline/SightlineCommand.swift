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
        guard let failure else { return }
        Foundation.exit(report(failure))
    }

    /// Reports a command's failure as the process ends with it: writes its message (to standard
    /// error; to standard output for help and the version, whose status is 0) and returns the exit
    /// status. Sightline's errors are one line naming the file and the cause, with the exit code
    /// of that cause.
    static func report(_ error: Error) -> Int32 {
        let (status, message): (Int32, String)
        switch error {
        case let error as SightlineError: (status, message) = (error.exitCode, "sightline: \(error)")
        case let error as RecordFileError: (status, message) = (error.exitCode, "sightline: \(error)")
        case let error as AlignmentError: (status, message) = (64, "sightline: \(error)")
        default: (status, message) = (exitCode(for: error).rawValue, fullMessage(for: error))
        }
        if !message.isEmpty {
            (status == 0 ? FileHandle.standardOutput : FileHandle.standardError).write(Data((message + "\n").utf8))
        }
        return status
    }
}
