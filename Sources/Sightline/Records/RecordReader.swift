import Foundation

/// A JSON Lines file of Sightline records (an analyze run, or ground truth in the same shape).
public struct RecordFile {
    /// The `stream` record as parsed JSON, if the file has one.
    public var stream: [String: Any]?
    /// The `frame` records in file order.
    public var frames: [FrameRecord]
    /// The `track` records in file order.
    public var tracks: [TrackRecord] = []
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
        var tracks: [TrackRecord] = []
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
            case "track":
                do { tracks.append(try TrackRecord(json: object)) } catch let reason as String { throw fail(reason) }
            default: continue   // record types this reader does not know
            }
        }
        self.init(stream: stream, frames: frames, tracks: tracks, summary: summary)
    }
}

private func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

private func box(_ value: Any?) throws -> Box {
    guard let b = value as? [String: Any], let x = number(b["x"]), let y = number(b["y"]),
          let w = number(b["w"]), let h = number(b["h"]) else { throw "box needs numbers x, y, w, h" }
    return Box(x: x, y: y, w: w, h: h)
}

extension TrackRecord {
    init(json o: [String: Any]) throws {
        func int(_ key: String) throws -> Int {
            guard let v = (o[key] as? NSNumber)?.intValue else { throw "track record without an integer \(key)" }
            return v
        }
        guard let kind = (o["kind"] as? String).flatMap(TrackKind.init(rawValue:)) else { throw "track record with an unknown kind" }
        self.init(id: try int("id"), kind: kind, firstFrame: try int("first_frame"), lastFrame: try int("last_frame"),
                  firstT: number(o["first_t"]) ?? 0, lastT: number(o["last_t"]) ?? 0,
                  framesObserved: try int("frames_observed"), framesInterpolated: try int("frames_interpolated"),
                  meanScore: number(o["mean_score"]), symbology: (o["symbology"] as? String).flatMap(Symbology.init(rawValue:)),
                  text: o["text"] as? String,
                  bytes: (o["bytes"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? (o["text"] as? String).map { Array($0.utf8) },
                  bestBox: try box(o["best_box"]), bestFrame: try int("best_frame"))
    }
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

private func source(_ value: Any?) throws -> ObservationSource {
    guard let value else { return .detected }
    guard let name = value as? String, let source = ObservationSource(rawValue: name) else { throw "unknown observation source" }
    return source
}

extension FrameRecord {
    /// A frame record from its JSON object; truth files may leave out pts and status.
    init(json o: [String: Any]) throws {
        guard let index = (o["index"] as? NSNumber)?.intValue else { throw "frame record without an integer index" }
        let faces = try (o["faces"] as? [[String: Any]] ?? []).map { f in
            FaceObservation(box: try box(f["box"]), score: number(f["score"]) ?? 1, track: (f["track"] as? NSNumber)?.intValue,
                            source: try source(f["source"]), attributes: attributes(f))
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
                                   track: (c["track"] as? NSNumber)?.intValue, source: try source(c["source"]))
        }
        let status = o["status"] as? [String: Any]
        self.init(index: index, pts: (o["pts"] as? NSNumber)?.int64Value ?? 0, t: number(o["t"]) ?? 0,
                  faceStatus: AnalyzerStatus(rawValue: status?["faces"] as? String ?? "") ?? .ok,
                  codeStatus: AnalyzerStatus(rawValue: status?["codes"] as? String ?? "") ?? .ok,
                  faces: faces, codes: codes)
    }
}

extension String: @retroactive Error {}
