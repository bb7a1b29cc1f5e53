import Foundation
import SightlineFrames

/// Writes records as JSON Lines to a file or standard output. Each record goes out as one
/// complete line in one write, so whatever was written stays valid JSON Lines if the process dies.
public final class JSONLinesWriter {
    public let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// Set when the file is written under a temporary name until `commit`.
    private let atomic: AtomicFile?

    /// `path` "-" writes to standard output. `atomically`: write `PATH.partial` and rename it to
    /// PATH on `commit` (see `AtomicFile`; ignored for standard output).
    public init(path: String, atomically: Bool = false) throws {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
            ownsDescriptor = false
            atomic = nil
        } else if atomically {
            let file = try AtomicFile(path: path)
            atomic = file
            fd = file.descriptor
            ownsDescriptor = false
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw SightlineError.outputUnwritable(path: path, reason: String(cString: strerror(errno)))
            }
            ownsDescriptor = true
            atomic = nil
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    public func write(_ record: JSON) throws {
        try write(line: record.serialized())
    }

    /// One record already serialized (without its newline).
    public func write(line text: String) throws {
        var line = text
        line.append("\n")
        try line.withUTF8 { try writeAll(fd, UnsafeRawBufferPointer($0), path: path == "-" ? "standard output" : path) }
    }

    /// A file written atomically gets its final name (nothing to do otherwise).
    public func commit() throws { try atomic?.commit() }
}
