import Dispatch
import Foundation
import SightlineFrames

/// Reads a Sightline JSON Lines file one record at a time, so memory stays bounded whatever the
/// video's length (`RecordFile` holds every frame). The first record must be the `stream` record.
public final class RecordStreamReader {
    /// What the file holds after its stream record, in file order (the summary is kept in `summary`).
    public enum Item {
        case frame(FrameRecord)
        case track(TrackRecord)
    }

    public let path: String
    /// The `stream` record (set by `init`, which fails without one).
    public private(set) var stream = StreamHeader(RecordFields([:]), line: "")
    /// The `summary` record, once it has been read (it is the last line), and its line as
    /// written (blanks around it trimmed), for copying it.
    public private(set) var summary: SummaryRecord?
    public private(set) var summaryLine: String?
    /// The `identity` records read so far (they come after the last track record).
    public private(set) var identities: [IdentityRecord] = []
    /// Faces in the frame records handed out so far, and how many of them carry a `score`.
    public private(set) var faces = 0
    public private(set) var scoredFaces = 0
    /// The line of the last record returned.
    public private(set) var line = 0

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// Lines read from the file so far (read ahead of `line`).
    private var readLines = 0

    public init(path: String) throws {
        self.path = path
        try RecordFile.checkIsFile(path)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RecordFileError(path: path, line: 0, reason: "cannot read the file: permission denied", unreadable: true)
        }
        self.handle = handle
        guard let (fields, type, text) = try nextObject() else {
            throw RecordFileError(path: path, line: 0, reason: "no records: the file is empty")
        }
        guard type == "stream" else {
            throw RecordFileError(path: path, line: line, reason: "the first record is not a stream record (not written by sightline analyze?)")
        }
        stream = StreamHeader(fields, line: text)
    }

    deinit { try? handle.close() }

    /// The next frame or track record, or nil at the end of the file.
    public func next() throws -> Item? {
        while true {
            if parsedIndex == parsed.count {
                guard try parseBatch() else { return nil }
            }
            let (lineNumber, result) = parsed[parsedIndex]
            parsed[parsedIndex].result = .skip   // let go of it
            parsedIndex += 1
            line = lineNumber
            switch result {
            case .item(let item, let faces, let scored):
                self.faces += faces
                scoredFaces += scored
                return item
            case .summary(let record, let text):
                summary = record
                summaryLine = text
            case .identity(let person): identities.append(person)
            case .skip: continue
            case .failure(let error): throw error
            }
        }
    }

    /// A line turned into what `next()` hands out.
    private enum Parsed {
        /// With a frame's faces and scored faces (truth files have no scores).
        case item(Item, faces: Int, scoredFaces: Int)
        case summary(SummaryRecord, line: String)
        case identity(IdentityRecord)
        case skip
        case failure(Error)
    }

    /// Lines read ahead and parsed (in parallel: JSON parsing is most of the cost of reading).
    private var parsed: [(line: Int, result: Parsed)] = []
    private var parsedIndex = 0
    private static let batchLines = 2048
    private static let workers = max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))

    /// Reads up to `batchLines` lines and parses them; false at the end of the file.
    private func parseBatch() throws -> Bool {
        var lines: [(bytes: ArraySlice<UInt8>, isLast: Bool, line: Int)] = []
        lines.reserveCapacity(Self.batchLines)
        while lines.count < Self.batchLines, let (bytes, isLast) = try nextLine() {
            readLines += 1
            lines.append((bytes, isLast, readLines))
        }
        parsed = []
        parsedIndex = 0
        guard !lines.isEmpty else { return false }
        var results = [Parsed](repeating: .skip, count: lines.count)
        let path = self.path, input = lines
        let workers = lines.count < 64 ? 1 : Self.workers
        results.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var k = worker * input.count / workers
                let end = (worker + 1) * input.count / workers
                while k < end {
                    out[k] = Self.parse(input[k].bytes, line: input[k].line, isLast: input[k].isLast, path: path)
                    k += 1
                }
            }
        }
        parsed = zip(lines, results).map { ($0.line, $1) }
        return true
    }

    private static func parse(_ bytes: ArraySlice<UInt8>, line: Int, isLast: Bool, path: String) -> Parsed {
        do {
            guard let (fields, type) = try RecordFile.record(bytes, line: line, isLast: isLast, path: path) else { return .skip }
            let object = fields.object
            switch type {
            case "frame":
                let record = try FrameRecord(json: object)
                let scored = (object["faces"] as? [Any] ?? []).filter { ($0 as? [String: Any])?["score"] != nil }.count
                return .item(.frame(record), faces: record.faces.count, scoredFaces: scored)
            case "track": return .item(.track(try TrackRecord(json: object)), faces: 0, scoredFaces: 0)
            case "stream": throw RecordShapeError("a second stream record")
            case "summary": return .summary(SummaryRecord(json: object), line: Self.text(bytes))
            case "identity": return .identity(try IdentityRecord(json: object))
            default: return .skip
            }
        } catch let error as RecordShapeError {
            return .failure(RecordFileError(path: path, line: line, reason: error.reason))
        } catch {
            return .failure(error)
        }
    }

    /// The next non-blank line as a record with its type and its text (the stream record).
    private func nextObject() throws -> (RecordFields, String, String)? {
        while let (bytes, isLast) = try nextLine() {
            readLines += 1
            line = readLines
            if let (object, type) = try RecordFile.record(bytes, line: line, isLast: isLast, path: path) {
                return (object, type, Self.text(bytes))
            }
        }
        return nil
    }

    /// A line's text without the blanks around it.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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
