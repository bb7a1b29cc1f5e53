import Foundation

/// The fuzzer's bytes as a file: Sightline's readers take paths, as the commands do.
public enum FuzzInput {
    /// A file per process under the temporary folder, rewritten for each input.
    public static func file(_ data: UnsafeRawBufferPointer, suffix: String) -> String {
        let path = NSTemporaryDirectory() + "sightline-fuzz-\(getpid())\(suffix)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        var offset = 0
        while offset < data.count {
            let n = write(fd, data.baseAddress! + offset, data.count - offset)
            precondition(n > 0, "cannot write \(path)")
            offset += n
        }
        close(fd)
        return path
    }

    public static func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> UnsafeRawBufferPointer {
        guard let pointer, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }
}
