import Foundation
import SightlineFrames
import SightlineRecords

/// MOTChallenge text, the format of the MOT benchmarks' ground truth and tracker results: one line per
/// box, comma-separated,
///
///     frame,id,bb_left,bb_top,bb_width,bb_height[,conf[,x,y,z]]
///
/// with 1-based frame numbers, pixel boxes and id -1 for a box without identity. MOT16/17 ground truth
/// puts a "consider" flag, a class and a visibility in columns 7–9; as in the MOTChallenge devkit,
/// a truth row whose column 7 is 0 is left out. The format carries boxes only, so its rows are read
/// as faces; frames without boxes simply do not appear.
public enum MOTChallengeText {
    static let columnNames = ["frame", "id", "bb_left", "bb_top", "bb_width", "bb_height", "conf", "x", "y", "z"]

    /// True when the file is to be read as MOTChallenge text: its name ends in .txt, or its first
    /// non-blank character starts a number (Sightline records start with "{").
    public static func isMOTChallenge(path: String, data: Data) -> Bool {
        if path.lowercased().hasSuffix(".txt") { return true }
        guard let first = data.first(where: { ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n")].contains($0) }) else {
            return false
        }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || first == UInt8(ascii: "-")
    }

    /// Parses MOTChallenge text. `truth`: leave out rows whose column 7 is 0 (not to be considered).
    public static func parse(_ data: Data, path: String, truth: Bool) throws -> RecordFile {
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var columnCount: Int?
        var faces: [Int: [FaceObservation]] = [:]
        var allConfidencesUnset = true
        for (offset, raw) in lines.enumerated() {
            let lineNumber = offset + 1
            let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            let isLast = offset == lines.count - 1
            func fail(_ reason: String) -> RecordFileError {
                RecordFileError(path: path, line: lineNumber, reason: isLast ? "truncated last line (no newline at the end of the file): \(reason)" : reason)
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard (6...10).contains(fields.count) else {
                throw fail("\(fields.count) columns; MOTChallenge text has 6 to 10: frame,id,bb_left,bb_top,bb_width,bb_height[,conf[,x,y,z]]")
            }
            if let expected = columnCount, fields.count != expected {
                throw fail("\(fields.count) columns where the lines before have \(expected)")
            }
            columnCount = fields.count
            var values: [Double] = []
            for (i, field) in fields.enumerated() {
                guard let value = Double(field), value.isFinite else {
                    throw fail("column \(i + 1) (\(columnNames[i])) is not a number: \"\(field.prefix(40))\"")
                }
                values.append(value)
            }
            guard values[0] >= 1, values[0] == values[0].rounded(), values[0] < 1e9 else {
                throw fail("column 1 (frame) must be a whole number from 1, not \(fields[0])")
            }
            guard values[1] == values[1].rounded(), abs(values[1]) < 1e15 else {
                throw fail("column 2 (id) must be a whole number, not \(fields[1])")
            }
            guard values[4] >= 0, values[5] >= 0 else { throw fail("negative box size \(fields[4])x\(fields[5])") }
            let confidence = values.count > 6 ? values[6] : nil
            if let confidence, confidence != -1 { allConfidencesUnset = false }
            if truth, confidence == 0 { continue }
            let id = Int(values[1])
            faces[Int(values[0]) - 1, default: []].append(
                FaceObservation(box: Box(x: values[2], y: values[3], w: values[4], h: values[5]),
                                score: confidence ?? 1, track: id >= 0 ? id : nil))
        }
        let frames = faces.keys.sorted().map { index in
            FrameRecord(index: index, pts: 0, t: 0, faceStatus: .ok, codeStatus: .off, faces: faces[index] ?? [], codes: [])
        }
        var file = RecordFile(stream: nil, frames: frames, summary: nil)
        file.path = path
        file.format = .motChallenge
        file.facesHaveScores = (columnCount ?? 0) >= 7 && !allConfidencesUnset && !faces.isEmpty
        return file
    }

    /// The faces (or the codes) of `frames` as MOTChallenge text (10 columns, the results format:
    /// world coordinates -1), one line per object, frames 1-based, id -1 for an object without a
    /// track. Column 7 is the face's score, or -1 (no score) for codes and when `scores` is false
    /// (truth files), so the file reads back as it was: as truth, only a 0 there leaves a row out.
    public static func text(of frames: [FrameRecord], kind: AuditKind = .faces, scores: Bool = true) -> String {
        var out = ""
        for frame in frames.sorted(by: { $0.index < $1.index }) {
            let objects: [(box: Box, track: Int?, score: Double?)] = kind == .faces
                ? frame.faces.map { ($0.box, $0.track, scores ? $0.score : nil) }
                : frame.codes.map { ($0.box, $0.track, nil) }
            for object in objects {
                let b = object.box
                let fields = ["\(frame.index + 1)", "\(object.track ?? -1)",
                              JSON.format(b.x, digits: Precision.pixels), JSON.format(b.y, digits: Precision.pixels),
                              JSON.format(b.w, digits: Precision.pixels), JSON.format(b.h, digits: Precision.pixels),
                              object.score.map { JSON.format($0, digits: Precision.score) } ?? "-1", "-1", "-1", "-1"]
                out += fields.joined(separator: ",") + "\n"
            }
        }
        return out
    }
}

extension RecordFile {
    /// Reads Sightline JSON Lines or MOTChallenge text, whichever the file is (see
    /// `MOTChallengeText.isMOTChallenge`). `truth`: the file is ground truth (matters for MOT text).
    public init(auditInput path: String, truth: Bool) throws {
        let data = try RecordFile.contents(of: path)
        if MOTChallengeText.isMOTChallenge(path: path, data: data) {
            self = try MOTChallengeText.parse(data, path: path, truth: truth)
        } else {
            try self.init(jsonLines: data, path: path)
        }
    }
}
