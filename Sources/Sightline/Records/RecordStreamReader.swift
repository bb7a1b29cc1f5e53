import Foundation

/// Reads a Sightline JSON Lines file one record at a time, so memory stays bounded whatever the
/// video's length (`RecordFile` holds every frame). The first record must be the `stream` record.
public final class RecordStreamReader {
    /// What the file holds after its stream record, in file order (summaries are skipped).
    public enum Item {
        case frame(FrameRecord)
        case track(TrackRecord)
    }

    public let path: String
    /// The `stream` record as parsed JSON.
    public private(set) var stream: [String: Any] = [:]
    /// The line of the last record returned.
    public private(set) var line = 0

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    public init(path: String) throws {
        self.path = path
        try RecordFile.checkIsFile(path)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RecordFileError(path: path, line: 0, reason: "cannot read the file: permission denied", unreadable: true)
        }
        self.handle = handle
        guard let (object, _) = try nextObject() else {
            throw RecordFileError(path: path, line: 0, reason: "no records: the file is empty")
        }
        guard object["type"] as? String == "stream" else {
            throw RecordFileError(path: path, line: line, reason: "the first record is not a stream record (not written by sightline analyze?)")
        }
        stream = object
    }

    deinit { try? handle.close() }

    /// The next frame or track record, or nil at the end of the file.
    public func next() throws -> Item? {
        while let (object, type) = try nextObject() {
            do {
                switch type {
                case "frame": return .frame(try FrameRecord(json: object))
                case "track": return .track(try TrackRecord(json: object))
                case "stream": throw RecordShapeError("a second stream record")
                default: continue
                }
            } catch let error as RecordShapeError {
                throw RecordFileError(path: path, line: line, reason: error.reason)
            }
        }
        return nil
    }

    /// The next non-blank line as a JSON object with its type.
    private func nextObject() throws -> ([String: Any], String)? {
        while let (bytes, isLast) = try nextLine() {
            line += 1
            if let record = try RecordFile.record(bytes, line: line, isLast: isLast, path: path) { return record }
        }
        return nil
    }

    /// The next line without its newline, and whether it ended the file without one.
    private func nextLine() throws -> (ArraySlice<UInt8>, Bool)? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return (buffer[start..<newline], false)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return (buffer[start...], true)
            }
            buffer.removeSubrange(0..<start)
            start = 0
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                throw RecordFileError(path: path, line: line, reason: "read error: \(error.localizedDescription)", unreadable: true)
            }
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { atEnd = true }
        }
    }
}
