import Foundation
import Synchronization
import SightlineFrames

/// An output written under a temporary name beside it (`PATH.partial`, in the same folder so the
/// rename is atomic) and renamed to PATH only when complete: a killed, interrupted or failed
/// write never leaves a file at PATH that looks finished. Used for every such output: records of
/// a part of a video (shards), merged files, downloaded models and the report page.
public final class AtomicFile {
    /// Where the file ends up.
    public let path: String
    /// Where it is written until `commit`.
    public let temporaryPath: String
    /// Open for writing until `commit` or `discard`.
    public private(set) var descriptor: Int32
    private var committed = false

    /// Creates (or empties) the temporary file at once, so an unwritable destination fails
    /// before any work is done. `unique`: the temporary name also has the process id, for files
    /// other processes may be writing at the same time (a shared cache).
    public init(path: String, unique: Bool = false) throws {
        self.path = path
        temporaryPath = path + (unique ? ".\(getpid())" : "") + ".partial"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw SightlineError.outputUnwritable(path: path, reason: "it is a directory")
        }
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SightlineError.outputUnwritable(path: path, reason: String(cString: strerror(errno))) }
        PartialFiles.shared.add(temporaryPath)
    }

    /// A file not committed is removed.
    deinit { if !committed { discard() } }

    /// Appends all of `bytes` (a failure names PATH).
    public func write(_ bytes: UnsafeRawBufferPointer) throws { try writeAll(descriptor, bytes, path: path) }

    public func write(_ data: Data) throws { try data.withUnsafeBytes { try write($0) } }

    /// Flushes the file to disk when `sync`, closes it and renames it to PATH. On failure the
    /// temporary file is removed and nothing is left at PATH.
    public func commit(sync: Bool = false) throws {
        var failure: String?
        if sync, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        descriptor = -1
        if failure == nil, rename(temporaryPath, path) != 0 {
            failure = "cannot rename \(temporaryPath) to it: \(String(cString: strerror(errno)))"
        }
        if let failure {
            discard()
            throw SightlineError.writeFailed(path: path, reason: failure)
        }
        committed = true
        PartialFiles.shared.remove(temporaryPath)
    }

    /// Closes and removes the temporary file; nothing is left at PATH.
    public func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(temporaryPath)
        PartialFiles.shared.remove(temporaryPath)
    }
}

/// Temporary files being written, so a signal handler can remove them before the process exits.
public final class PartialFiles: Sendable {
    public static let shared = PartialFiles()
    private let paths = Mutex<Set<String>>([])

    package func add(_ path: String) { paths.withLock { _ = $0.insert(path) } }
    package func remove(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    /// Deletes every temporary file still being written. Safe from any thread.
    public func removeAll() {
        paths.withLock { set in
            for path in set { unlink(path) }
            set.removeAll()
        }
    }
}

/// Writes all of `bytes` to `fd` (retrying after a signal); a failure names `path`.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    var offset = 0
    while offset < bytes.count {
        let n = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw SightlineError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        offset += n
    }
}
