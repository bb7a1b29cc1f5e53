import XCTest
@testable import Sightline

/// `sightline audit` and `sightline diff` as a user runs them: formats, options, gates, exit codes
/// and malformed input. Records are small hand-made files, plus the sample's truth.
final class AuditCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try Fixtures.temporaryDirectory(self)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func json(_ result: ProcessResult) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.stdoutText)
    }

    private func assertError(_ result: ProcessResult, exit code: Int32, prefix: String, mentions fragment: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, code, result.stderr, file: file, line: line)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "expected one line: \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("sightline: \(prefix)"), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(fragment), "'\(fragment)' not in: \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stdout.isEmpty, result.stdoutText, file: file, line: line)
    }

    private static let stream = #"{"type":"stream","frame_rate":[30,1]}"#

    /// A frame record line with the given faces (x, track) and codes (text, x), boxes 100×100.
    private func frameLine(_ index: Int, t: Double? = nil, faces: [(Double, Int?)] = [], codes: [(String, Double)] = []) -> String {
        let f = faces.map { x, track in
            (track.map { #"{"track":\#($0),"# } ?? "{") + #""box":{"x":\#(x),"y":0,"w":100,"h":100},"score":1}"#
        }
        let c = codes.map { text, x in
            #"{"symbology":"qr","text":"\#(text)","box":{"x":\#(x),"y":300,"w":100,"h":100}}"#
        }
        return #"{"type":"frame","index":\#(index),"t":\#(t ?? Double(index) / 30),"faces":[\#(f.joined(separator: ","))],"codes":[\#(c.joined(separator: ","))]}"#
    }

    private func records(_ lines: [String]) -> String { ([Self.stream] + lines).joined(separator: "\n") + "\n" }

    // MARK: - audit

    func testTableAndJSONOnHandMadeRecords() throws {
        // Truth: 3 frames, face track 1 at x 0 and a QR "A" at x 0 in each.
        // Prediction: frame 0 right; frame 1 misses the face and reads "B"; frame 2 adds a face at
        // x 500. Faces TP 2, FP 1, FN 1; codes correct 2/3, wrong payload 1.
        let truth = try write("truth.jsonl", records((0..<3).map { frameLine($0, faces: [(0, 1)], codes: [("A", 0)]) }))
        let run = try write("run.jsonl", records([frameLine(0, faces: [(0, nil)], codes: [("A", 0)]),
                                                  frameLine(1, codes: [("B", 0)]),
                                                  frameLine(2, faces: [(0, nil), (500, nil)], codes: [("A", 0)])]))
        let table = sightline("audit", run, truth, "--per-frame")
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdoutText.contains("TP 2  FP 1  FN 1   precision 0.6667  recall 0.6667"), table.stdoutText)
        XCTAssertTrue(table.stdoutText.contains("correct 2/3 (0.6667)  wrong payload 1"), table.stdoutText)
        XCTAssertTrue(table.stdoutText.contains("not available: the prediction has no track ids"), table.stdoutText)
        XCTAssertTrue(table.stdoutText.contains(#"frame 1 (0.033333 s)  code wrong     qr "A" read as qr "B""#), table.stdoutText)
        XCTAssertTrue(table.stdoutText.contains("frame 2 (0.066667 s)  face extra     x 500.00 y 0.00 w 100.00 h 100.00"), table.stdoutText)

        let result = sightline("audit", run, truth, "--format", "json", "--per-frame")
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try json(result)
        let faces = try XCTUnwrap(report["faces"] as? [String: Any])
        let detection = try XCTUnwrap(faces["detection"] as? [String: Any])
        XCTAssertEqual(detection["false_negatives"] as? Int, 1)
        XCTAssertEqual((faces["tracking"] as? [String: Any])?["available"] as? Bool, false)
        let perFrame = try XCTUnwrap(report["per_frame"] as? [[String: Any]])
        XCTAssertEqual(perFrame.map { $0["index"] as? Int }, [1, 2])
        let missed = (perFrame[0]["faces"] as? [String: Any])?["missed"] as? [[String: Any]]
        XCTAssertEqual(missed?.first?["track"] as? Int, 1)

        // --kind faces leaves codes out.
        let facesOnly = try json(sightline("audit", run, truth, "--format", "json", "--kind", "faces"))
        XCTAssertNotNil(facesOnly["faces"])
        XCTAssertNil(facesOnly["codes"])
    }

    func testGates() throws {
        let truth = try write("truth.jsonl", records((0..<4).map { frameLine($0, faces: [(0, 1)], codes: [("A", 0)]) }))
        // Faces found in 3 of 4 frames (recall 0.75, precision 1); codes all right; no track ids.
        let run = try write("run.jsonl", records((0..<4).map { frameLine($0, faces: $0 == 3 ? [] : [(0, nil)], codes: [("A", 0)]) }))
        XCTAssertEqual(sightline("audit", run, truth, "--min-recall", "0.75", "--min-precision", "1").status, 0)
        let recall = sightline("audit", run, truth, "--min-recall", "0.8")
        XCTAssertEqual(recall.status, 3)
        XCTAssertEqual(recall.stderr, "sightline: --min-recall not met: faces 0.7500 < 0.8000\n")
        XCTAssertFalse(recall.stdout.isEmpty, "the report is still written")
        // The per-kind gates of the first audit command still work.
        XCTAssertEqual(sightline("audit", run, truth, "--min-face-recall", "0.8").status, 3)
        XCTAssertEqual(sightline("audit", run, truth, "--min-code-recall", "1").status, 0)
        XCTAssertEqual(sightline("audit", run, truth, "--kind", "codes", "--min-recall", "1").status, 0)
        // ID switches cannot be counted without track ids: the gate is not met.
        let switches = sightline("audit", run, truth, "--kind", "faces", "--max-id-switches", "0")
        XCTAssertEqual(switches.status, 3)
        XCTAssertTrue(switches.stderr.contains("ID switches not available: the prediction has no track ids"), switches.stderr)
        // With ids: track 7, then 8 in frames 2–3: one switch.
        let tracked = try write("tracked.jsonl", records((0..<4).map { frameLine($0, faces: [(0, $0 < 2 ? 7 : 8)]) }))
        XCTAssertEqual(sightline("audit", tracked, truth, "--kind", "faces", "--max-id-switches", "1").status, 0)
        XCTAssertEqual(sightline("audit", tracked, truth, "--kind", "faces", "--max-id-switches", "0").status, 3)
        // Bad gate values are command-line errors.
        XCTAssertEqual(sightline("audit", run, truth, "--min-recall", "1.5").status, 64)
        XCTAssertEqual(sightline("audit", run, truth, "--kind", "codes", "--min-face-recall", "0.5").status, 64)
    }

    func testMatchByTime() throws {
        // The prediction numbers its frames from 100 but has the truth's times (+4 ms): by index
        // no truth frame is within the prediction's frames 100–102, by time every frame pairs.
        let truth = try write("truth.jsonl", records((0..<3).map { frameLine($0, faces: [(0, 1)]) }))
        let run = try write("run.jsonl", records((0..<3).map { frameLine($0 + 100, t: Double($0) / 30 + 0.004, faces: [(0, nil)]) }))
        let byIndex = try json(sightline("audit", run, truth, "--format", "json", "--kind", "faces"))
        XCTAssertEqual((byIndex["frames"] as? [String: Any])?["compared"] as? Int, 0)
        XCTAssertEqual((byIndex["frames"] as? [String: Any])?["truth_outside_prediction"] as? Int, 3)
        let byTime = try json(sightline("audit", run, truth, "--format", "json", "--kind", "faces", "--match", "time"))
        let detection = (byTime["faces"] as? [String: Any])?["detection"] as? [String: Any]
        XCTAssertEqual(detection?["true_positives"] as? Int, 3)
        // Frames 0.02 s late: truth frame 0 (t 0) is more than half a frame interval (1/60 s) from
        // the nearest one (0.02), so outside the prediction; truth frames 1 and 2 pair with the late
        // frames 0 and 1, 0.0133 s before them.
        let late = try write("late.jsonl", records((0..<3).map { frameLine($0, t: Double($0) / 30 + 0.02, faces: [(0, nil)]) }))
        let lateReport = try json(sightline("audit", late, truth, "--format", "json", "--kind", "faces", "--match", "time"))
        XCTAssertEqual((lateReport["frames"] as? [String: Any])?["truth_outside_prediction"] as? Int, 1)
        XCTAssertEqual((lateReport["frames"] as? [String: Any])?["compared"] as? Int, 2)
        XCTAssertEqual(((lateReport["faces"] as? [String: Any])?["detection"] as? [String: Any])?["true_positives"] as? Int, 2)
        // Without a frame rate on either side, time matching is refused.
        let bare = try write("bare.jsonl", frameLine(0, faces: [(0, 1)]) + "\n")
        assertError(sightline("audit", bare, bare, "--match", "time"), exit: 64, prefix: "--match time", mentions: "frame_rate")
    }

    func testRunOverPartOfTheVideo() throws {
        // Truth frames 0–4. The run read frames 1–3 only (--start, --duration) and lost frame 2:
        // truth frames 0 and 4 are outside the run and left out; frame 2 is in its span, so its face
        // counts as missed. Compared 3 frames: TP 2, FN 1.
        let truth = try write("truth.jsonl", records((0..<5).map { frameLine($0, faces: [(0, 1)]) }))
        let run = try write("run.jsonl", records([1, 3].map { frameLine($0, faces: [(0, nil)]) }))
        let report = try json(sightline("audit", run, truth, "--format", "json", "--kind", "faces"))
        let frames = try XCTUnwrap(report["frames"] as? [String: Any])
        XCTAssertEqual(frames["compared"] as? Int, 3)
        XCTAssertEqual(frames["truth_outside_prediction"] as? Int, 2)
        XCTAssertEqual(frames["truth_without_prediction"] as? Int, 1)
        let detection = (report["faces"] as? [String: Any])?["detection"] as? [String: Any]
        XCTAssertEqual(detection?["true_positives"] as? Int, 2)
        XCTAssertEqual(detection?["false_negatives"] as? Int, 1)
    }

    func testMOTChallengePredictionAgainstSightlineTruth() throws {
        // The sample truth's faces written as MOTChallenge text and audited against the truth:
        // everything matches, tracking is available (ids on both sides), codes are skipped.
        let truth = try RecordFile(path: Fixtures.sampleTruth)
        let mot = try write("faces.txt", MOTChallengeText.text(of: truth.frames))
        let result = sightline("audit", mot, Fixtures.sampleTruth, "--format", "json", "--min-recall", "1", "--max-id-switches", "0")
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try json(result)
        let faces = try XCTUnwrap(report["faces"] as? [String: Any])
        XCTAssertEqual((faces["detection"] as? [String: Any])?["true_positives"] as? Int, 600)
        let tracking = try XCTUnwrap(faces["tracking"] as? [String: Any])
        XCTAssertEqual(tracking["mota"] as? Double, 1)
        XCTAssertEqual(tracking["idf1"] as? Double, 1)
        XCTAssertEqual(tracking["mostly_tracked"] as? Int, 2)
        XCTAssertNotNil((report["codes"] as? [String: Any])?["skipped"])
        // MOTChallenge on both sides.
        XCTAssertEqual(sightline("audit", mot, mot, "--min-recall", "1", "--max-id-switches", "0").status, 0)
    }

    // MARK: - malformed input

    func testMalformedRecordFiles() throws {
        let good = try write("good.jsonl", records([frameLine(0, faces: [(0, 1)])]))
        let notJSON = try write("notjson.jsonl", records([frameLine(0), "this is not json", frameLine(1)]))
        assertError(sightline("audit", notJSON, good), exit: 65, prefix: "\(notJSON):3: ", mentions: "not valid JSON")
        let notObject = try write("array.jsonl", "[1,2,3]\n")
        assertError(sightline("audit", good, notObject), exit: 65, prefix: "\(notObject):1: ", mentions: "not a JSON object")
        let noIndex = try write("noindex.jsonl", records([#"{"type":"frame","faces":[]}"#]))
        assertError(sightline("audit", noIndex, good), exit: 65, prefix: "\(noIndex):2: ", mentions: "index")
        let facesNotArray = try write("faces.jsonl", records([#"{"type":"frame","index":0,"faces":{"x":1}}"#]))
        assertError(sightline("audit", facesNotArray, good), exit: 65, prefix: "\(facesNotArray):2: ", mentions: "\"faces\" is not an array")
        let badBox = try write("box.jsonl", records([#"{"type":"frame","index":0,"faces":[{"box":{"x":1}}]}"#]))
        assertError(sightline("audit", badBox, good), exit: 65, prefix: "\(badBox):2: ", mentions: "box needs numbers")
        let noType = try write("notype.jsonl", #"{"index":0}"# + "\n")
        assertError(sightline("audit", noType, good), exit: 65, prefix: "\(noType):1: ", mentions: "type")
        let twice = try write("twice.jsonl", records([frameLine(4), frameLine(4)]))
        assertError(sightline("audit", twice, good), exit: 65, prefix: "\(twice):3: ", mentions: "already appears on line 2")
        let unknownMOT = try write("results.txt", "1,1,10,20,30,40,0.9,-1,-1,-1,7\n")
        assertError(sightline("audit", unknownMOT, good), exit: 65, prefix: "\(unknownMOT):1: ", mentions: "11 columns")
        assertError(sightline("diff", good, unknownMOT), exit: 65, prefix: "\(unknownMOT):1: ", mentions: "11 columns")
        let missing = dir.appendingPathComponent("missing.jsonl").path
        assertError(sightline("audit", missing, good), exit: 66, prefix: "\(missing): ", mentions: "No such file")
    }

    func testTruncatedLastLineIsReportedNotDropped() throws {
        // The sample truth cut in the middle of its last frame record.
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sampleTruth))
        let cut = dir.appendingPathComponent("cut.jsonl").path
        try whole.prefix(whole.count - 100).write(to: URL(fileURLWithPath: cut))
        assertError(sightline("audit", cut, Fixtures.sampleTruth), exit: 65, prefix: "\(cut):301: ", mentions: "truncated last line")
        assertError(sightline("audit", Fixtures.sampleTruth, cut), exit: 65, prefix: "\(cut):301: ", mentions: "truncated last line")
        // A complete last line that only lacks its newline is read.
        let noNewline = dir.appendingPathComponent("nonewline.jsonl").path
        try whole.dropLast().write(to: URL(fileURLWithPath: noNewline))
        XCTAssertEqual(sightline("audit", noNewline, Fixtures.sampleTruth, "--min-recall", "1").status, 0)
    }

    // MARK: - diff

    func testDiffOfIdenticalAndChangedRuns() throws {
        let a = try write("a.jsonl", records([frameLine(0, faces: [(0, 1), (300, 2)], codes: [("A", 0)]),
                                              frameLine(1, faces: [(0, 1), (300, 2)], codes: [("A", 0)])]))
        let same = sightline("diff", a, a)
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertTrue(same.stdoutText.hasSuffix("no differences\n"), same.stdoutText)
        // B: frame 0 face 2 moved to x 360 (IoU 40/160 = 0.25 < 0.5) and the code reads "Z";
        // frame 1 lost face 2, gained a face at x 900, and track 1 became track 5 — which is a
        // renumbering, not a track change, as 1 and 5 correspond throughout.
        let b = try write("b.jsonl", records([frameLine(0, faces: [(0, 5), (360, 2)], codes: [("Z", 0)]),
                                              frameLine(1, faces: [(0, 5), (900, 3)], codes: [("A", 0)])]))
        let table = sightline("diff", a, b)
        XCTAssertEqual(table.status, 3, table.stderr)
        XCTAssertTrue(table.stdoutText.contains("faces  same 2 (2 identical)  moved 1  new 1  lost 1  track changes 0"), table.stdoutText)
        XCTAssertTrue(table.stdoutText.contains("codes  same 1 (1 identical)  moved 0  new 0  lost 0  payload changed 1"), table.stdoutText)
        XCTAssertTrue(table.stdoutText.contains("IoU 0.2500"), table.stdoutText)
        let result = sightline("diff", a, b, "--format", "json")
        XCTAssertEqual(result.status, 3)
        let diff = try json(result)
        XCTAssertEqual(diff["identical"] as? Bool, false)
        let changes = try XCTUnwrap(diff["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { "\($0["frame"] ?? "")/\($0["kind"] ?? "")/\($0["change"] ?? "")" },
                       ["0/face/moved", "0/code/payload", "1/face/lost", "1/face/new"])
        // Track changes: in frame 1, A's tracks 1 and 2 swap places while B's keep theirs: both pairs
        // contradict frame 0's correspondence.
        let c = try write("c.jsonl", records([frameLine(0, faces: [(0, 1), (300, 2)]), frameLine(1, faces: [(0, 2), (300, 1)])]))
        let d = try write("d.jsonl", records([frameLine(0, faces: [(0, 1), (300, 2)]), frameLine(1, faces: [(0, 1), (300, 2)])]))
        let tracks = try json(sightline("diff", c, d, "--format", "json", "--kind", "faces"))
        XCTAssertEqual((tracks["faces"] as? [String: Any])?["track_changes"] as? Int, 2)
    }
}
