import Foundation

/// The report file, written under a temporary name beside it and renamed when complete, so a
/// failed or interrupted run never leaves half a page at the path asked for.
public final class ReportOutput {
    public let path: String
    /// The temporary file (same directory, so the rename is atomic).
    public let partialPath: String
    private var committed = false

    /// Creates the temporary file at once, so an unwritable destination fails before any work.
    public init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw SightlineError.outputUnwritable(path: path, reason: "it is a directory")
        }
        partialPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        let fd = open(partialPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw SightlineError.outputUnwritable(path: path, reason: String(cString: strerror(errno))) }
        close(fd)
    }

    deinit { if !committed { discard() } }

    /// Writes the whole page to the temporary file and renames it to `path`.
    public func commit(_ page: Data) throws {
        let fd = open(partialPath, O_WRONLY | O_TRUNC)
        guard fd >= 0 else { throw SightlineError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        var failure: String?
        page.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure {
            discard()
            throw SightlineError.writeFailed(path: path, reason: failure)
        }
        guard rename(partialPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw SightlineError.writeFailed(path: path, reason: reason)
        }
        committed = true
    }

    /// Removes the temporary file (nothing is left at `path`).
    public func discard() {
        unlink(partialPath)
    }
}
