import Foundation
import XCTest
@testable import Sightline

/// `sightline report`: what goes into the page, and the errors (one line, exit code, no page left
/// behind and an earlier page kept).
final class ReportTests: XCTestCase {
    /// The files of `dir` (a failed run must not leave a temporary page behind).
    private func files(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    /// The JSON the page embeds.
    private func pageData(_ page: String) throws -> [String: Any] {
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let start = try XCTUnwrap(html.range(of: "<script type=\"application/json\" id=\"report-data\">"))
        let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
    }

    func testPageHoldsTheRunWithoutVideoOrTruth() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let page = dir.appendingPathComponent("plain.html").path
        let run = try sightline("report", RenderFixture.records, "-o", page)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try files(dir), ["plain.html"])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertFalse(html.contains("<script src"), "no external script")
        XCTAssertFalse(html.contains("<link"), "no external style or font")
        XCTAssertTrue(html.contains("Content-Security-Policy"))
        let data = try pageData(page)
        XCTAssertEqual((data["stream"] as? [String: Any])?["source"] as? String, Fixtures.sample)
        XCTAssertEqual((data["summary"] as? [String: Any])?["frames"] as? Int, 300)
        XCTAssertTrue(data["audit"] is NSNull)
        XCTAssertEqual((data["thumbnails"] as? [String: Any])?.count, 0)
        let frames = try XCTUnwrap(data["frames"] as? [String: Any])
        XCTAssertEqual(frames["count"] as? Int, 300)
        XCTAssertEqual(frames["bin"] as? Int, 1)
        XCTAssertEqual((frames["faces"] as? [Int])?.reduce(0, +), 600)
        XCTAssertEqual((frames["codes"] as? [Int])?.reduce(0, +), 750)
        let tracks = try XCTUnwrap(data["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.compactMap { $0["id"] as? Int }, [1, 2, 3, 4, 5])
        // Track 5 (the second QR code) is seen, detected, from frame 150 to 299: one run of bins.
        let five = try XCTUnwrap(tracks.last)
        XCTAssertEqual(five["runs"] as? [Int], [150, 299, 3])
        XCTAssertEqual((five["samples"] as? [Double])?.count, 150 * 8)
        // The same page from the same records, byte for byte.
        let again = dir.appendingPathComponent("again.html").path
        XCTAssertEqual(try sightline("report", RenderFixture.records, "-o", again).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: page)), try Data(contentsOf: URL(fileURLWithPath: again)))
    }

    func testMissingAndMalformedRecordsAreOneLineAndLeaveNoPage() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let page = dir.appendingPathComponent("report.html").path

        let missing = try sightline("report", dir.appendingPathComponent("nope.jsonl").path, "-o", page)
        assertRefused(missing, exit: 66, mentions: ["nope.jsonl"])
        XCTAssertEqual(try files(dir), [])

        // An earlier page stays as it was when the new one fails.
        try Data("earlier page".utf8).write(to: URL(fileURLWithPath: page))
        var lines = try String(contentsOfFile: RenderFixture.records, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[41] = "{\"type\":\"frame\",\"index\":"
        let broken = dir.appendingPathComponent("broken.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let malformed = try sightline("report", broken, "-o", page)
        assertRefused(malformed, exit: 65, mentions: ["broken.jsonl:42:", "not valid JSON"])
        XCTAssertEqual(try String(contentsOfFile: page, encoding: .utf8), "earlier page")
        XCTAssertEqual(try files(dir), ["broken.jsonl", "report.html"])

        let truth = try sightline("report", RenderFixture.records, "--truth", broken, "-o", page)
        assertRefused(truth, exit: 65, mentions: ["broken.jsonl:42:"])
        XCTAssertEqual(try String(contentsOfFile: page, encoding: .utf8), "earlier page")
    }

    func testRecordsOfAnotherVideoAreRefused() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = try RenderFixture.otherVideoRecords(in: dir)
        let page = dir.appendingPathComponent("report.html").path
        let run = try sightline("report", records, "--video", Fixtures.sample, "-o", page)
        assertRefused(run, exit: 65, mentions: ["other.jsonl", "records do not match", Fixtures.sample])
        XCTAssertFalse(FileManager.default.fileExists(atPath: page))
        XCTAssertEqual(try files(dir).filter { $0.contains("report") }, [])
    }

    func testUnwritableOutputIsRefusedBeforeAnyWork() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let noDirectory = try sightline("report", RenderFixture.records, "-o", dir.appendingPathComponent("no/such/dir/r.html").path)
        assertRefused(noDirectory, exit: 73, mentions: ["r.html", "cannot create output"])
        let isDirectory = try sightline("report", RenderFixture.records, "-o", dir.path)
        assertRefused(isDirectory, exit: 73, mentions: ["it is a directory"])
        let toStdout = try sightline("report", RenderFixture.records, "-o", "-")
        XCTAssertEqual(toStdout.status, 64, toStdout.stderr)
        XCTAssertEqual(try files(dir), [])
    }

    /// The collector's bins: a long run is cut into at most `maxBins` bins, states merge into runs.
    func testCollectorBinsLongRuns() {
        let collector = ReportCollector(expectedFrames: 25_000)
        XCTAssertEqual(collector.binWidth, 3)
        for index in 0..<25_000 {
            let seen = index < 100 || (index >= 200 && index < 300)
            let face = FaceObservation(box: Box(x: 10, y: 10, w: 50, h: 50), score: 0.9, landmarks: nil, track: 7,
                                       source: index < 50 ? .detected : .refined, attributes: nil)
            collector.add(FrameRecord(index: index, pts: Int64(index), t: Double(index) / 30, faceStatus: .ok, codeStatus: .off,
                                      faces: seen ? [face] : [], codes: []))
        }
        collector.finish()
        XCTAssertEqual(collector.binTimes.count, 8334)
        let lane = try? XCTUnwrap(collector.lanes[7])
        // Frames 0–49 detected (bins 0–16, bin 16 holds frames 48–50: detected wins), 50–99
        // refined (bins 17–33), a gap, then 200–299 refined (bins 66–99).
        XCTAssertEqual(lane?.runs, [0, 16, 3, 17, 33, 2, 66, 99, 2])
        XCTAssertEqual(lane?.firstFrame, 0)
        XCTAssertEqual(lane?.lastFrame, 299)
    }
}
