import Foundation
import SightlineFrames

/// A file of frame records: a Sightline JSON Lines file (an analyze run, or ground truth in the same
/// shape), or MOTChallenge text read into the same shape (see `MOTChallengeText`).
public struct RecordFile {
    /// The `stream` record, if the file has one.
    public var stream: StreamHeader?
    /// The `frame` records in file order.
    public var frames: [FrameRecord]
    /// The `track` records in file order.
    public var tracks: [TrackRecord] = []
    /// The `summary` record, if the file has one.
    public var summary: SummaryRecord?
    /// Where the records came from.
    public var path = ""
    public var format = RecordFormat.jsonLines
    /// True when the file's faces carry a detector confidence (`score`); truth files have none.
    public var facesHaveScores = false

    package init(stream: StreamHeader?, frames: [FrameRecord], tracks: [TrackRecord] = [], summary: SummaryRecord?) {
        self.stream = stream
        self.frames = frames
        self.tracks = tracks
        self.summary = summary
    }
}

public enum RecordFormat: String, Sendable {
    /// Sightline JSON Lines: one record per frame, also for frames where nothing was found.
    case jsonLines = "jsonl"
    /// MOTChallenge text: one line per box; frames without boxes do not appear.
    case motChallenge = "mot"
}

/// A record file that cannot be read, with the line at fault (0 when the whole file is).
public struct RecordFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var line: Int
    public var reason: String
    /// The file is missing or cannot be read at all (rather than malformed).
    public var unreadable = false

    public init(path: String, line: Int, reason: String, unreadable: Bool = false) {
        self.path = path
        self.line = line
        self.reason = reason
        self.unreadable = unreadable
    }

    public var description: String { line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)" }
    /// docs/exit-codes.md: 66 input missing or unreadable, 65 malformed.
    public var exitCode: Int32 { unreadable ? 66 : 65 }
}

/// A JSON record whose fields do not have the shape of a Sightline record.
public struct RecordShapeError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

extension RecordFile {
    /// The whole file, or an error naming why it cannot be read.
    package static func contents(of path: String) throws -> Data {
        try checkIsFile(path)
        // Through FileHandle: FileManager.contents(atPath:) leaks its buffer on an empty file
        // (swift-foundation's readBytesFromFile, found by Scripts/fuzz.sh).
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
            throw RecordFileError(path: path, line: 0, reason: "cannot read the file: permission denied or I/O error", unreadable: true)
        }
        try? handle.close()
        return data
    }

    /// Fails unless `path` names an existing file that is not a directory.
    package static func checkIsFile(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RecordFileError(path: path, line: 0, reason: "cannot read the file: No such file or directory", unreadable: true)
        }
        guard !isDirectory.boolValue else {
            throw RecordFileError(path: path, line: 0, reason: "cannot read the file: it is a directory", unreadable: true)
        }
    }

    /// Line `line` of a JSON Lines file as a record and its `type`; nil for a blank line.
    /// `isLast`: the line ended the file without a newline (so a parse failure means it was cut short).
    public static func record(_ bytes: some Collection<UInt8>, line: Int, isLast: Bool, path: String) throws -> (RecordFields, String)? {
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) { return nil }
        func fail(_ reason: String) -> RecordFileError { RecordFileError(path: path, line: line, reason: reason) }
        guard let parsed = JSONText.parse(bytes) else {
            throw fail(isLast ? "truncated last line: no newline at the end of the file and not valid JSON" : "not valid JSON")
        }
        guard let object = parsed as? [String: Any] else { throw fail("not a JSON object") }
        guard let type = object["type"] as? String else { throw fail("record without a \"type\"") }
        return (RecordFields(object), type)
    }

    /// Reads a Sightline JSON Lines file. Any malformed line is an error naming the line; so is a
    /// last line cut short (a complete last line without its newline is accepted).
    public init(path: String) throws {
        try self.init(jsonLines: RecordFile.contents(of: path), path: path)
    }

    package init(jsonLines data: Data, path: String) throws {
        var stream: StreamHeader?, summary: SummaryRecord?
        var frames: [FrameRecord] = []
        var tracks: [TrackRecord] = []
        var lineOfIndex: [Int: Int] = [:]
        var faces = 0, scoredFaces = 0
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() {
            let lineNumber = offset + 1
            // The last piece has no newline after it.
            guard let (fields, type) = try Self.record(line, line: lineNumber, isLast: offset == lines.count - 1, path: path) else { continue }
            let object = fields.object
            func fail(_ reason: String) -> RecordFileError { RecordFileError(path: path, line: lineNumber, reason: reason) }
            switch type {
            case "stream": stream = StreamHeader(fields, line: String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            case "summary": summary = SummaryRecord(json: object)
            case "frame":
                let record: FrameRecord
                do { record = try FrameRecord(json: object) } catch let error as RecordShapeError { throw fail(error.reason) }
                if let earlier = lineOfIndex[record.index] {
                    throw fail("frame index \(record.index) already appears on line \(earlier)")
                }
                lineOfIndex[record.index] = lineNumber
                let objectFaces = object["faces"] as? [[String: Any]] ?? []
                faces += objectFaces.count
                scoredFaces += objectFaces.filter { $0["score"] != nil }.count
                frames.append(record)
            case "track":
                do { tracks.append(try TrackRecord(json: object)) } catch let error as RecordShapeError { throw fail(error.reason) }
            default: continue   // record types this reader does not need
            }
        }
        self.init(stream: stream, frames: frames, tracks: tracks, summary: summary)
        self.path = path
        self.facesHaveScores = faces > 0 && scoredFaces == faces
    }

    /// The records a `RecordStreamReader` handed out, in file order, once it is at its end: a file
    /// both streamed and needed whole is then read once (`report --truth`).
    public init(streamed reader: RecordStreamReader, frames: [FrameRecord], tracks: [TrackRecord]) throws {
        var seen = Set<Int>()
        for frame in frames where !seen.insert(frame.index).inserted {
            throw RecordFileError(path: reader.path, line: 0, reason: "frame index \(frame.index) appears twice")
        }
        self.init(stream: reader.stream, frames: frames, tracks: tracks, summary: reader.summary)
        path = reader.path
        facesHaveScores = reader.faces > 0 && reader.scoredFaces == reader.faces
    }

    /// The stream's frame rate in frames per second, from the stream record's `frame_rate` [num, den].
    public var frameRate: Double? { stream?.framesPerSecond }
}

private func number(_ value: Any?) -> Double? { recordNumber(value) }

private func integer(_ value: Any?) -> Int? { recordInteger(value) }

private func box(_ value: Any?) throws -> Box {
    guard let b = value as? [String: Any], let x = number(b["x"]), let y = number(b["y"]),
          let w = number(b["w"]), let h = number(b["h"]) else { throw RecordShapeError("box needs numbers x, y, w, h") }
    return Box(x: x, y: y, w: w, h: h)
}

/// The optional `track` id of an observation; present but not an integer is an error.
private func track(_ o: [String: Any], _ what: String) throws -> Int? {
    guard let value = o["track"], !(value is NSNull) else { return nil }
    guard let id = integer(value) else { throw RecordShapeError("\(what) track is not an integer") }
    return id
}

/// A member that must be an array of objects when present.
private func objects(_ o: [String: Any], _ key: String) throws -> [[String: Any]] {
    guard let value = o[key] else { return [] }
    // The array test first: `is NSNull` on an array bridges the whole array to test its class.
    guard let array = value as? [Any] else {
        if value is NSNull { return [] }
        throw RecordShapeError("\"\(key)\" is not an array")
    }
    return try array.map {
        guard let object = $0 as? [String: Any] else { throw RecordShapeError("\"\(key)\" holds something other than objects") }
        return object
    }
}

/// How an observation was made; absent means detected.
private func source(_ o: [String: Any]) throws -> ObservationSource {
    guard let value = o["source"] else { return .detected }
    guard let name = value as? String, let source = ObservationSource(rawValue: name) else {
        throw RecordShapeError("unknown observation source")
    }
    return source
}

private func point(_ value: Any?) -> Point? {
    guard let xy = value as? [NSNumber], xy.count == 2 else { return nil }
    return Point(x: xy[0].doubleValue, y: xy[1].doubleValue)
}

private func attributes(_ f: [String: Any]) -> FaceAttributes? {
    let a = FaceAttributes(leftEye: point(f["left_eye"]), rightEye: point(f["right_eye"]), mouth: point(f["mouth"]),
                           smile: f["smile"] as? Bool, leftEyeClosed: f["left_eye_closed"] as? Bool,
                           rightEyeClosed: f["right_eye_closed"] as? Bool, roll: number(f["roll"]))
    return a == FaceAttributes() ? nil : a
}

private func landmarks(_ l: [String: Any]) throws -> FaceLandmarks {
    func point(_ key: String) throws -> Point {
        guard let p = l[key] as? [NSNumber], p.count == 2 else { throw RecordShapeError("landmarks need \(key) as [x, y]") }
        return Point(x: p[0].doubleValue, y: p[1].doubleValue)
    }
    return FaceLandmarks(leftEye: try point("left_eye"), rightEye: try point("right_eye"), nose: try point("nose"),
                         mouthLeft: try point("mouth_left"), mouthRight: try point("mouth_right"))
}

extension TrackRecord {
    package init(json o: [String: Any]) throws {
        func int(_ key: String) throws -> Int {
            guard let v = integer(o[key]) else { throw RecordShapeError("track record without an integer \(key)") }
            return v
        }
        guard let kind = (o["kind"] as? String).flatMap(TrackKind.init(rawValue:)) else {
            throw RecordShapeError("track record with an unknown kind")
        }
        let text = o["text"] as? String
        self.init(id: try int("id"), kind: kind, firstFrame: try int("first_frame"), lastFrame: try int("last_frame"),
                  firstT: number(o["first_t"]) ?? 0, lastT: number(o["last_t"]) ?? 0,
                  framesObserved: try int("frames_observed"), framesInterpolated: try int("frames_interpolated"),
                  meanScore: number(o["mean_score"]), symbology: (o["symbology"] as? String).flatMap(Symbology.init(rawValue:)),
                  text: text,
                  bytes: (o["bytes"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? text.map { Array($0.utf8) },
                  state: (o["state"] as? String).flatMap(CodeTrackState.init(rawValue:)),
                  bestBox: try box(o["best_box"]), bestFrame: try int("best_frame"))
        identity = integer(o["identity"])
    }
}

extension FrameRecord {
    /// A frame record from its JSON object; truth files may leave out pts and status.
    package init(json o: [String: Any]) throws {
        guard let index = integer(o["index"]), index >= 0 else { throw RecordShapeError("frame record without a non-negative integer index") }
        let faces = try objects(o, "faces").map { f in
            var face = FaceObservation(box: try box(f["box"]), score: number(f["score"]) ?? 1,
                                       landmarks: try (f["landmarks"] as? [String: Any]).map(landmarks), track: try track(f, "face"),
                                       source: try source(f), attributes: attributes(f))
            face.identity = integer(f["identity"])
            return face
        }
        let codes = try objects(o, "codes").map { c -> CodeObservation in
            guard let name = c["symbology"] as? String else { throw RecordShapeError("code without a symbology") }
            guard let symbology = Symbology(rawValue: name) else { throw RecordShapeError("code with an unknown symbology \"\(name)\"") }
            guard let text = c["text"] as? String else { throw RecordShapeError("code without text") }
            var bytes = Array(text.utf8)
            if let encoded = c["bytes"] {
                guard let base64 = encoded as? String, let data = Data(base64Encoded: base64) else {
                    throw RecordShapeError("code bytes are not base64")
                }
                bytes = [UInt8](data)
            }
            var polygon = (c["polygon"] as? [[NSNumber]] ?? []).filter { $0.count == 2 }
                .map { Point(x: $0[0].doubleValue, y: $0[1].doubleValue) }
            if polygon.isEmpty {
                let b = try box(c["box"])
                polygon = [Point(x: b.x, y: b.y), Point(x: b.x + b.w, y: b.y), Point(x: b.x + b.w, y: b.y + b.h), Point(x: b.x, y: b.y + b.h)]
            }
            return CodeObservation(symbology: symbology, text: text, bytes: bytes, polygon: polygon, track: try track(c, "code"),
                                   source: try source(c), state: (c["state"] as? String).flatMap(CodeTrackState.init(rawValue:)))
        }
        let status = o["status"] as? [String: Any]
        self.init(index: index, pts: (o["pts"] as? NSNumber)?.int64Value ?? 0, t: number(o["t"]) ?? 0,
                  faceStatus: AnalyzerStatus(rawValue: status?["faces"] as? String ?? "") ?? .ok,
                  codeStatus: AnalyzerStatus(rawValue: status?["codes"] as? String ?? "") ?? .ok,
                  faces: faces, codes: codes)
        if let search = o["face_search"] as? [String: Any] {
            var faceSearch = FaceSearch(wholeScale: number(search["whole"]), everyTile: integer(search["every_tile"]))
            if let tile = search["tile"] as? [String: Any], let index = integer(tile["index"]), let count = integer(tile["of"]) {
                faceSearch.tile = FaceSearch.Tile(index: index, count: count, box: try box(tile["box"]))
            }
            self.faceSearch = faceSearch
        }
        // A frame whose size is not the stream record's says its size.
        if let width = integer(o["width"]), let height = integer(o["height"]), width > 0, height > 0 {
            frameSize = FrameSize(width: width, height: height)
        }
    }
}


extension IdentitySample {
    /// A `sample` record (written by shard runs with `--identities on`).
    package init(json o: [String: Any]) throws {
        guard let frame = integer(o["index"]), let track = integer(o["track"]), let score = number(o["score"]) else {
            throw RecordShapeError("sample record without an integer index and track and a score")
        }
        guard let values = o["embedding"] as? [NSNumber], values.count == 128 else {
            throw RecordShapeError("sample record without an embedding of 128 numbers")
        }
        self.init(track: track, frame: frame, score: score, box: try SightlineRecords.box(o["box"]),
                  embedding: FaceEmbedding(normalized: values.map { Float($0.doubleValue) }))
    }
}

extension IdentityRecord {
    /// An `identity` record as written.
    package init(json o: [String: Any]) throws {
        func int(_ key: String) throws -> Int {
            guard let v = integer(o[key]) else { throw RecordShapeError("identity record without an integer \(key)") }
            return v
        }
        guard let tracks = o["tracks"] as? [NSNumber], let firstT = number(o["first_t"]), let lastT = number(o["last_t"]),
              let seconds = number(o["seconds"]) else {
            throw RecordShapeError("identity record without tracks, first_t, last_t or seconds")
        }
        var embedding: FaceEmbedding?
        if let values = o["embedding"] {
            guard let numbers = values as? [NSNumber], numbers.count == 128 else { throw RecordShapeError("identity embedding is not 128 numbers") }
            embedding = FaceEmbedding(normalized: numbers.map { Float($0.doubleValue) })
        }
        self.init(id: try int("id"), tracks: tracks.map(\.intValue), firstFrame: try int("first_frame"), lastFrame: try int("last_frame"),
                  firstT: firstT, lastT: lastT, frames: try int("frames"), seconds: seconds, bestFrame: try int("best_frame"),
                  bestBox: try box(o["best_box"]), embedding: embedding)
    }
}

// The decoders' typed entry points, for readers outside this layer.

extension FrameRecord {
    /// A `frame` or `warmup` record.
    public init(_ record: RecordFields) throws { try self.init(json: record.object) }
}

extension TrackRecord {
    public init(_ record: RecordFields) throws { try self.init(json: record.object) }
}

extension IdentitySample {
    public init(_ record: RecordFields) throws { try self.init(json: record.object) }
}

extension IdentityRecord {
    public init(_ record: RecordFields) throws { try self.init(json: record.object) }
}

extension SummaryRecord {
    public init(_ record: RecordFields) { self.init(json: record.object) }
}
