import CFFmpeg
import Foundation
import SightlineFrames

/// Incremental SHA-256, computed by FFmpeg's libavutil (already linked for decoding).
package final class SHA256 {
    private let context: OpaquePointer

    package init() {
        guard let context = av_sha_alloc() else { fatalError("out of memory allocating a SHA-256 context") }
        av_sha_init(context, 256)
        self.context = context
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    package func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

    /// The digest as lowercase hex; the hasher must not be used afterwards.
    package func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of `data`.
    package static func hex(of data: Data) -> String {
        let hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The SHA-256 of a file's contents, read in chunks.
    package static func hex(ofFile path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SightlineError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let hasher = SHA256()
        while true {
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { break }
            hasher.update(chunk)
        }
        return hasher.finalize()
    }
}
