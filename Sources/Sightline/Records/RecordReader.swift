import Foundation

/// A JSON Lines file of Sightline records (an analyze run, or ground truth in the same shape).
public struct RecordFile {
    /// The `stream` record as parsed JSON, if the file has one.
    public var stream: [String: Any]?
    /// The `frame` records in file order.
    public var frames: [FrameRecord]
    /// The `summary` record as parsed JSON, if the file has one.
    public var summary: [String: Any]?
}

/// A record file that cannot be read, with the line at fault.
public struct RecordFileError: Error, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var reason: String
    public var description: String { line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)" }
}

extension RecordFile {
    /// Reads every line; any malformed line (including a truncated last line) is an error.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RecordFileError(path: path, line: 0, reason: "cannot read the file")
        }
        var stream: [String: Any]?, summary: [String: Any]?
        var frames: [FrameRecord] = []
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.isEmpty { continue }
            func fail(_ reason: String) -> RecordFileError { RecordFileError(path: path, line: lineNumber, reason: reason) }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] else {
                throw fail("not a JSON object (truncated or malformed line)")
            }
            switch object["type"] as? String {
            case "stream": stream = object
            case "summary": summary = object
            case "frame":
                do { frames.append(try FrameRecord(json: object)) } catch let reason as String { throw fail(reason) }
            default: continue   // record types this reader does not need (tracks, …)
            }
        }
        self.init(stream: stream, frames: frames, summary: summary)
    }
}

private func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

private func box(_ value: Any?) throws -> Box {
    guard let b = value as? [String: Any], let x = number(b["x"]), let y = number(b["y"]),
          let w = number(b["w"]), let h = number(b["h"]) else { throw "box needs numbers x, y, w, h" }
    return Box(x: x, y: y, w: w, h: h)
}

private func landmarks(_ l: [String: Any]) throws -> FaceLandmarks {
    func point(_ key: String) throws -> Point {
        guard let p = l[key] as? [NSNumber], p.count == 2 else { throw "landmarks need \(key) as [x, y]" }
        return Point(x: p[0].doubleValue, y: p[1].doubleValue)
    }
    return FaceLandmarks(leftEye: try point("left_eye"), rightEye: try point("right_eye"), nose: try point("nose"),
                         mouthLeft: try point("mouth_left"), mouthRight: try point("mouth_right"))
}

extension FrameRecord {
    /// A frame record from its JSON object; truth files may leave out pts and status.
    init(json o: [String: Any]) throws {
        guard let index = (o["index"] as? NSNumber)?.intValue else { throw "frame record without an integer index" }
        let faces = try (o["faces"] as? [[String: Any]] ?? []).map { f in
            FaceObservation(box: try box(f["box"]), score: number(f["score"]) ?? 1,
                            landmarks: try (f["landmarks"] as? [String: Any]).map(landmarks),
                            track: (f["track"] as? NSNumber)?.intValue)
        }
        let codes = try (o["codes"] as? [[String: Any]] ?? []).map { c -> CodeObservation in
            guard let name = c["symbology"] as? String, let symbology = Symbology(rawValue: name) else {
                throw "code with an unknown symbology"
            }
            guard let text = c["text"] as? String else { throw "code without text" }
            let bytes = (c["bytes"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? Array(text.utf8)
            var polygon = (c["polygon"] as? [[NSNumber]] ?? []).filter { $0.count == 2 }
                .map { Point(x: $0[0].doubleValue, y: $0[1].doubleValue) }
            if polygon.isEmpty {
                let b = try box(c["box"])
                polygon = [Point(x: b.x, y: b.y), Point(x: b.x + b.w, y: b.y), Point(x: b.x + b.w, y: b.y + b.h), Point(x: b.x, y: b.y + b.h)]
            }
            return CodeObservation(symbology: symbology, text: text, bytes: bytes, polygon: polygon,
                                   track: (c["track"] as? NSNumber)?.intValue)
        }
        let status = o["status"] as? [String: Any]
        self.init(index: index, pts: (o["pts"] as? NSNumber)?.int64Value ?? 0, t: number(o["t"]) ?? 0,
                  faceStatus: AnalyzerStatus(rawValue: status?["faces"] as? String ?? "") ?? .ok,
                  codeStatus: AnalyzerStatus(rawValue: status?["codes"] as? String ?? "") ?? .ok,
                  faces: faces, codes: codes)
    }
}

extension String: @retroactive Error {}
