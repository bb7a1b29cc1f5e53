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
            decoded); 3 audit gate not met, diff found differences, or leaks found a face; 64 bad command line \
            (also snapshot --at past the end); 65 not a video file, a malformed record file, records \
            that do not match the video (also report --video), a mask that is not an image, a \
            fetched model that fails its checksum, or a shard merge refuses; 66 input, records, \
            mask image or shard output missing or unreadable, or no such camera; \
            67 no video stream, or not a capture device; 69 detector unavailable, or a camera size, \
            rate or format not offered; 73 output cannot be created (also the report page); 74 write failed; 75 model \
            fetch failed, or camera busy; 77 camera permission denied; 130 interrupted (analyze).
            """,
        version: sightlineVersion,
        subcommands: [Anonymize.self, Leaks.self, Analyze.self, Render.self, Snapshot.self, Capture.self, Devices.self, Tracks.self,
                      Audit.self, Diff.self, Models.self, Plan.self, Merge.self, Report.self, Export.self, People.self]
    )

    /// Runs the command, turning Sightline's errors into one stderr line and their exit code.
    static func main() {
        stopBLASThreads()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as SightlineError {
            fail(error, exitCode: error.exitCode)
        } catch let error as RecordFileError {
            fail(error, exitCode: error.exitCode)
        } catch let error as AlignmentError {
            fail(error, exitCode: 64)
        } catch {
            exit(withError: error)
        }
    }

    /// One stderr line naming the file and the cause, and the error's exit code.
    private static func fail(_ error: Error, exitCode: Int32) -> Never {
        FileHandle.standardError.write(Data("sightline: \(error)\n".utf8))
        Foundation.exit(exitCode)
    }
}
