/// Every failure Sightline reports to a user: one readable line naming the file and the cause,
/// and a documented process exit code (docs/exit-codes.md).
public enum SightlineError: Error, CustomStringConvertible, Sendable {
    /// The input does not exist or cannot be read.
    case inputUnreadable(path: String, reason: String)
    /// The input is not media FFmpeg recognizes (or is a playlist that is refused).
    case notMedia(path: String, reason: String)
    /// The input has no (such) video stream.
    case noVideoStream(path: String, reason: String)
    /// An output file cannot be created.
    case outputUnwritable(path: String, reason: String)
    /// Writing to an output failed part-way (disk full, closed pipe, …).
    case writeFailed(path: String, reason: String)
    /// A detector could not be set up (missing cascade file, …).
    case detectorUnavailable(name: String, reason: String)
    /// The input was read to the end but parts of it could not be decoded. Output is complete for
    /// everything that decoded.
    case inputDamaged(path: String, reason: String)
    /// A detector failed on some frames of the input (their records' status says error). Output
    /// is complete for every frame.
    case analysisFailed(path: String, reason: String)
    /// `models fetch`: the source could not be read to its end (unreachable, HTTP error, cut short).
    /// Nothing was installed.
    case fetchFailed(name: String, source: String, reason: String)
    /// `models fetch`: the file read is not the known model (size or sha256 differ). Nothing was installed.
    case checksumMismatch(name: String, source: String, reason: String)
    /// A camera refused access (device permissions).
    case permissionDenied(path: String, reason: String)
    /// A camera is in use by another program.
    case deviceBusy(path: String, reason: String)
    /// A camera cannot do what was asked (size, format, frame rate, streaming I/O).
    case deviceUnsupported(path: String, reason: String)
    /// An image (a `--style mask:` image) does not exist or cannot be read.
    case imageUnreadable(path: String, reason: String)
    /// A file that should be an image is not one FFmpeg can decode as an image.
    case notImage(path: String, reason: String)
    /// Saved records are not those of the video they are used with (another video, another
    /// stream, frames missing on either side).
    case recordsMismatch(records: String, input: String, reason: String)
    /// A time asked for lies outside the video (`snapshot --at` past the last frame).
    case timeOutOfRange(path: String, reason: String)
    /// `merge`: a shard output that cannot be part of the merged timeline (truncated or
    /// interrupted, of another file, overlapping another, analyzed with other options).
    case shardRejected(path: String, reason: String)
    /// `leaks`: the anonymized video does not have the original's frames.
    case framesMismatch(path: String, reason: String)
    /// An MQTT broker that cannot be reached, refuses the connection, or fails the TLS handshake.
    case brokerUnavailable(url: String, reason: String)
    /// A bug or an unexpected library failure.
    case `internal`(String)

    public var description: String {
        switch self {
        case let .inputUnreadable(path, reason): return "\(path): cannot read input: \(reason)"
        case let .notMedia(path, reason): return "\(path): not a video file: \(reason)"
        case let .noVideoStream(path, reason): return "\(path): \(reason)"
        case let .outputUnwritable(path, reason): return "\(path): cannot create output: \(reason)"
        case let .writeFailed(path, reason): return "\(path): write failed: \(reason)"
        case let .detectorUnavailable(name, reason): return "\(name): detector unavailable: \(reason)"
        case let .inputDamaged(path, reason): return "\(path): input damaged: \(reason)"
        case let .analysisFailed(path, reason): return "\(path): analysis failed: \(reason)"
        case let .fetchFailed(name, source, reason): return "\(name): fetch from \(source) failed: \(reason); nothing was installed"
        case let .checksumMismatch(name, source, reason): return "\(name): file from \(source) rejected: \(reason); nothing was installed"
        case let .permissionDenied(path, reason): return "\(path): permission denied: \(reason)"
        case let .deviceBusy(path, reason): return "\(path): camera busy: \(reason)"
        case let .deviceUnsupported(path, reason): return "\(path): not supported by the camera: \(reason)"
        case let .imageUnreadable(path, reason): return "\(path): cannot read image: \(reason)"
        case let .notImage(path, reason): return "\(path): not an image: \(reason)"
        case let .recordsMismatch(records, input, reason): return "\(records): records do not match \(input): \(reason)"
        case let .timeOutOfRange(path, reason): return "\(path): \(reason)"
        case let .shardRejected(path, reason): return "\(path): shard rejected: \(reason)"
        case let .framesMismatch(path, reason): return "\(path): not the frames of the original: \(reason)"
        case let .brokerUnavailable(url, reason): return "\(url): broker unavailable: \(reason)"
        case let .internal(message): return "internal error: \(message)"
        }
    }

    /// The process exit code documented in docs/exit-codes.md.
    public var exitCode: Int32 {
        switch self {
        case .internal, .analysisFailed: return 1
        case .inputDamaged: return 2
        case .timeOutOfRange: return 64
        case .notMedia, .checksumMismatch, .notImage, .recordsMismatch, .shardRejected, .framesMismatch: return 65
        case .inputUnreadable, .imageUnreadable: return 66
        case .noVideoStream: return 67
        case .detectorUnavailable, .deviceUnsupported, .brokerUnavailable: return 69
        case .outputUnwritable: return 73
        case .writeFailed: return 74
        case .fetchFailed, .deviceBusy: return 75
        case .permissionDenied: return 77
        }
    }
}
