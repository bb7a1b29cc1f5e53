import CFFmpeg
import SightlineFrames

/// An error code of FFmpeg's libraries (a negative AVERROR), with FFmpeg's own message.
public struct FFmpegError: Error, CustomStringConvertible, Sendable {
    public let code: Int32

    public init(_ code: Int32) { self.code = code }

    public var description: String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            av_strerror(code, buffer.baseAddress, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }
}
