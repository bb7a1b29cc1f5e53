import ArgumentParser
import Foundation
import Sightline

/// Runs `body`, turning a malformed record file into one stderr line and its exit code (65, or 66
/// when it cannot be read).
func recordFile<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as RecordFileError {
        FileHandle.standardError.write(Data("sightline: \(error)\n".utf8))
        throw ExitCode(error.exitCode)
    }
}

/// Reads a record file for `audit` or `diff`; a bad file is one stderr line and exit 65 (66 when it
/// cannot be read at all).
func readRecords(_ path: String, truth: Bool) throws -> RecordFile {
    try recordFile { try RecordFile(auditInput: path, truth: truth) }
}
