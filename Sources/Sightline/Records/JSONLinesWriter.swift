import Foundation

/// Writes records as JSON Lines to a file or standard output. Each record goes out as one
/// complete line in one write, so whatever was written stays valid JSON Lines if the process dies.
public final class JSONLinesWriter {
    public let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool

    /// `path` "-" writes to standard output.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
            ownsDescriptor = false
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw SightlineError.outputUnwritable(path: path, reason: String(cString: strerror(errno)))
            }
            ownsDescriptor = true
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
}

/// Writes all of `bytes` to `fd` (retrying after a signal); a failure names `path`.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    var offset = 0
    while offset < bytes.count {
        let n = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw SightlineError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        offset += n
    }
}
