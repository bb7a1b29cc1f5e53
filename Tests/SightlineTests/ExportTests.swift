import Foundation
import XCTest
@testable import Sightline

/// `sightline export`: each format loaded by Datumaro (installed by Scripts/deps/tests/datumaro.sh
/// into its own environment) finds the tracks and boxes of the records; the MOTChallenge export
/// audits exactly as the JSON Lines it came from; bad input and options get their exit codes.
final class ExportTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try Fixtures.temporaryDirectory(self)
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// The sample analyzed with default options (faces with landmarks, codes, track ids), once
    /// per test process.
    private func analyzedSample() throws -> String { try SharedRuns.analyzed(Fixtures.sample, []) }

    private func export(_ records: String, _ format: String, _ extra: String..., to name: String) throws -> String {
        let out = path(name)
        let run = sightline(["export", records, "--format", format, "-o", out] + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return out
    }

    /// What Datumaro finds in an exported file (Tests/Reference/datumaro_load.py).
    private func datumaro(_ format: String, _ file: String) throws -> [String: Any] {
        let python = try pythonWithPackagesOrSkip("/opt/sightline/venv-datumaro/bin/python", imports: "datumaro", installedBy: "datumaro.sh")
        let work = path("datumaro-\(format)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let script = Fixtures.repo.appendingPathComponent("Tests/Reference/datumaro_load.py").path
        let run = try runProcess(python, [script, format, file, work])
        XCTAssertEqual(run.status, 0, "\(format): \(run.stderr)")
        let last = try XCTUnwrap(run.stdoutText.split(separator: "\n").last, run.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    }

    func testEveryFormatLoadsInDatumaroWithTheTracksAndBoxesOfTheRecords() throws {
        let records = try analyzedSample()
        let file = try RecordFile(path: records)
        // What the records hold.
        let faces = file.frames.reduce(0) { $0 + $1.faces.count }, codes = file.frames.reduce(0) { $0 + $1.codes.count }
        let faceTracks = Set(file.frames.flatMap { $0.faces.compactMap(\.track) }).sorted()
        let codeTracks = Set(file.frames.flatMap { $0.codes.compactMap(\.track) }).sorted()
        let landmarks = file.frames.reduce(0) { $0 + $1.faces.filter { $0.landmarks != nil }.count }
        var payloads: [String: Set<String>] = [:]
        for code in file.frames.flatMap(\.codes) { payloads[code.symbology.rawValue, default: []].insert(code.text) }
        XCTAssertEqual(file.frames.count, 300)
        XCTAssertEqual(faces, 600)
        XCTAssertEqual(codes, 750)
        XCTAssertEqual(faceTracks.count, 2)
        XCTAssertEqual(codeTracks.count, 3)
        XCTAssertGreaterThan(landmarks, 0, "centerface faces carry landmarks")

        let motFaces = try datumaro("mot", try export(records, "mot", to: "faces.txt"))
        XCTAssertEqual(motFaces["boxes"] as? [String: Int], ["none": faces])
        XCTAssertEqual(motFaces["tracks"] as? [String: [Int]], ["none": faceTracks])
        XCTAssertEqual(motFaces["items"] as? Int, 300)
        let motCodes = try datumaro("mot", try export(records, "mot", "--kind", "code", to: "codes.txt"))
        XCTAssertEqual(motCodes["boxes"] as? [String: Int], ["none": codes])
        XCTAssertEqual(motCodes["tracks"] as? [String: [Int]], ["none": codeTracks])

        for (format, name) in [("cvat-video", "run.xml"), ("coco", "run.json")] {
            let found = try datumaro(format, try export(records, format, to: name))
            XCTAssertEqual(found["items"] as? Int, 300, format)
            XCTAssertEqual(found["boxes"] as? [String: Int], ["face": faces, "code": codes], format)
            XCTAssertEqual(found["tracks"] as? [String: [Int]], ["face": faceTracks, "code": codeTracks], format)
            XCTAssertEqual((found["payloads"] as? [String: [String]])?.mapValues(Set.init), payloads, format)
            // Every track runs to the last frame or ends there: no outside boxes in the sample.
            XCTAssertEqual(found["outside"] as? [String: Int], [:], format)
            if format == "coco" {
                XCTAssertEqual(found["keypoint_annotations"] as? Int, landmarks)
                XCTAssertEqual(found["visible_points"] as? Int, 5 * landmarks)
                XCTAssertEqual((found["keypoint_labels"] as? [[String]])?.first, ["left_eye", "right_eye", "nose", "mouth_left", "mouth_right"])
            }
        }
    }

    /// A track seen in frames 0–2 and 5–6 of a 10-frame file is closed by outside boxes at frames 3
    /// and 7; a track that reaches the last frame is not. A payload with a control character and a
    /// line break survives in payload_base64.
    func testCVATTracksAreClosedOnTheFrameAfterTheyEnd() throws {
        let stream = #"{"type":"stream","source":"clip.mp4","width":640,"height":360,"frame_rate":[25,1]}"#
        var lines = [stream]
        for i in 0..<10 {
            let face = [0, 1, 2, 5, 6].contains(i) ? #"{"track":7,"box":{"x":10,"y":20,"w":30,"h":40},"score":0.9}"# : nil
            let code = #"{"track":8,"symbology":"qr","text":"A\u001db\r\nc<&>","box":{"x":100,"y":100,"w":50,"h":50},"state":"confirmed"}"#
            lines.append(#"{"type":"frame","index":\#(i),"t":\#(Double(i) / 25),"faces":[\#(face ?? "")],"codes":[\#(code)]}"#)
        }
        let records = path("gaps.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: records))
        let xmlPath = try export(records, "cvat-video", to: "gaps.xml")
        let xml = try String(contentsOfFile: xmlPath, encoding: .utf8)
        XCTAssertTrue(xml.contains("<size>10</size>"), xml)
        XCTAssertTrue(xml.contains("<original_size>\n        <width>640</width>\n        <height>360</height>"), xml)
        XCTAssertTrue(xml.contains(#"<box frame="3" keyframe="1" outside="1""#), xml)
        XCTAssertTrue(xml.contains(#"<box frame="7" keyframe="1" outside="1""#), xml)
        XCTAssertFalse(xml.contains(#"<box frame="10""#), xml)
        XCTAssertTrue(xml.contains(#"<attribute name="payload_base64">\#(Data("A\u{1D}b\r\nc<&>".utf8).base64EncodedString())</attribute>"#), xml)

        let found = try datumaro("cvat-video", xmlPath)
        XCTAssertEqual(found["boxes"] as? [String: Int], ["face": 5, "code": 10])
        XCTAssertEqual(found["outside"] as? [String: Int], ["face": 2])
        XCTAssertEqual(found["tracks"] as? [String: [Int]], ["face": [7], "code": [8]])
        XCTAssertEqual(found["payloads"] as? [String: [String]], ["qr": ["A\u{FFFD}b\r\nc<&>"]])
    }

    /// The sample's run and its truth exported as MOTChallenge text (faces; codes with --kind code)
    /// audit to the same numbers as the JSON Lines they came from.
    func testMOTExportAuditsLikeTheJSONLines() throws {
        let records = try analyzedSample()
        let audit = sightline("audit", records, Fixtures.sampleTruth, "--format", "json")
        XCTAssertEqual(audit.status, 0, audit.stderr)
        let jsonl = try XCTUnwrap(JSONSerialization.jsonObject(with: audit.stdout) as? [String: Any])

        for (kind, section) in [("face", "faces"), ("code", "codes")] {
            let run = try export(records, "mot", "--kind", kind, to: "run-\(kind).txt")
            let truth = try export(Fixtures.sampleTruth, "mot", "--kind", kind, to: "truth-\(kind).txt")
            let motAudit = sightline("audit", run, truth, "--format", "json")
            XCTAssertEqual(motAudit.status, 0, motAudit.stderr)
            let mot = try XCTUnwrap(JSONSerialization.jsonObject(with: motAudit.stdout) as? [String: Any])
            // MOTChallenge text holds boxes only, read as faces.
            let expected = try XCTUnwrap(jsonl[section] as? [String: Any]), got = try XCTUnwrap(mot["faces"] as? [String: Any])
            let expectedTracking = try XCTUnwrap(expected["tracking"] as? [String: Any])
            XCTAssertEqual(expectedTracking["available"] as? Bool, true, section)
            XCTAssertNotNil(expectedTracking["hota"] as? Double, section)
            XCTAssertEqual(NSDictionary(dictionary: try XCTUnwrap(got["detection"] as? [String: Any])),
                           NSDictionary(dictionary: try XCTUnwrap(expected["detection"] as? [String: Any])), section)
            XCTAssertEqual(NSDictionary(dictionary: try XCTUnwrap(got["tracking"] as? [String: Any])),
                           NSDictionary(dictionary: expectedTracking), section)
            XCTAssertEqual(got["average_precision"] as? Double, expected["average_precision"] as? Double, section)
            XCTAssertEqual((mot["frames"] as? [String: Any])?["compared"] as? Int, 300)
        }
    }

    func testBadInputAndOptions() throws {
        func assertError(_ result: ProcessResult, exit code: Int32, mentions fragment: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(result.status, code, result.stderr, file: file, line: line)
            // Bad options (64) also get argument-parser's usage lines; file errors are one line.
            if code != 64 { XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr, file: file, line: line) }
            XCTAssertTrue(result.stderr.contains(fragment), "'\(fragment)' not in: \(result.stderr)", file: file, line: line)
        }
        let out = path("out.xml")
        assertError(sightline("export", path("missing.jsonl"), "--format", "coco", "-o", out), exit: 66,
                    mentions: "\(path("missing.jsonl")): cannot read the file")
        let malformed = path("bad.jsonl")
        try Data("{\"type\":\"stream\",\"width\":10,\"height\":10}\n{\"type\":\"frame\"}\n".utf8).write(to: URL(fileURLWithPath: malformed))
        assertError(sightline("export", malformed, "--format", "cvat-video", "-o", out), exit: 65, mentions: "\(malformed):2: ")
        // Without a stream record there is no frame size for CVAT and COCO; MOT needs none.
        let bare = path("bare.jsonl")
        try Data("{\"type\":\"frame\",\"index\":0,\"faces\":[{\"track\":1,\"box\":{\"x\":1,\"y\":2,\"w\":3,\"h\":4}}]}\n".utf8)
            .write(to: URL(fileURLWithPath: bare))
        assertError(sightline("export", bare, "--format", "coco", "-o", out), exit: 65, mentions: "\(bare): no stream record with the frame size")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "no file is left behind")
        let mot = sightline("export", bare, "--format", "mot", "-o", "-")
        XCTAssertEqual(mot.status, 0, mot.stderr)
        XCTAssertEqual(mot.stdoutText, "1,1,1.00,2.00,3.00,4.00,-1,-1,-1,-1\n")
        assertError(sightline("export", bare, "--format", "mot", "--kind", "all", "-o", out), exit: 64, mentions: "--kind face or --kind code")
        assertError(sightline("export", bare, "--format", "yaml", "-o", out), exit: 64, mentions: "yaml")
        assertError(sightline("export", bare, "--format", "mot", "-o", path("no-such-dir/out.txt")), exit: 73,
                    mentions: "\(path("no-such-dir/out.txt")): cannot create output")
    }
}
