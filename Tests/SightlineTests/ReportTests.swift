import Foundation
import XCTest
@testable import Sightline

/// Records with identities, made once per suite run (`SharedOutputs`): the 16 shots of 7 people of
/// `IdentityTests`, analyzed with `--identities on`.
enum PeopleFixture {
    static var records: String { SharedOutputs.root.appendingPathComponent("people-records/people.jsonl").path }
    static var video: String { SharedOutputs.root.appendingPathComponent("people-video/people.mp4").path }
    /// The video in a folder of its own, made first: the records name the path it keeps. A
    /// failed run throws its error line.
    private static let made = Result<Void, Error> {
        _ = try SharedOutputs.folder("people-video") { dir in _ = try IdentityTests.makeVideo(in: dir) }
        _ = try SharedOutputs.folder("people-records") { dir in
            let run = sightline("analyze", video, "-q", "--codes", "off", "--identities", "on", "-o", dir.appendingPathComponent("people.jsonl").path)
            guard run.status == 0 else { throw run.stderr }
        }
    }

    /// Skips without the SFace model; fails the test unless the shared run succeeded.
    static func ready() throws {
        _ = try Fixtures.sharedModelOrSkip(.sface)
        try made.get()
    }

    /// The records' lines, parsed.
    static func lines() throws -> [[String: Any]] { try jsonLines(try Data(contentsOf: URL(fileURLWithPath: records))) }

    /// The report of the records with their video, made in `dir`: the page's path.
    static func report(in dir: URL, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try ready()
        let page = dir.appendingPathComponent("people.html").path
        let run = sightline("report", records, "--video", video, "-q", "-o", page)
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        return page
    }
}

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
        let run = sightline("report", RenderFixture.records, "-o", page)
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
        XCTAssertEqual((data["people"] as? [Any])?.count, 0, "no identity records: no people")
        XCTAssertEqual((data["thumbnails"] as? [String: Any])?.count, 0)
        let frames = try XCTUnwrap(data["frames"] as? [String: Any])
        XCTAssertEqual(frames["count"] as? Int, 300)
        XCTAssertEqual(frames["bin"] as? Int, 1)
        XCTAssertEqual((frames["faces"] as? [Int])?.reduce(0, +), 600)
        XCTAssertEqual((frames["codes"] as? [Int])?.reduce(0, +), 750)
        let tracks = try XCTUnwrap(data["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.compactMap { $0["id"] as? Int }, [1, 2, 3, 4, 5])
        // Track 5 (the second QR code) is seen from frame 150 to 299: detected by the full search on
        // every 15th frame and on the last, read in its region (refined) on the frames between.
        let five = try XCTUnwrap(tracks.last)
        XCTAssertEqual(five["runs"] as? [Int], stride(from: 150, to: 300, by: 15).flatMap { [$0, $0, 3, $0 + 1, min($0 + 14, 298), 2] } + [299, 299, 3])
        XCTAssertEqual((five["samples"] as? [Double])?.count, 150 * 8)
        // The same page from the same records, byte for byte.
        let again = dir.appendingPathComponent("again.html").path
        XCTAssertEqual(sightline("report", RenderFixture.records, "-o", again).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: page)), try Data(contentsOf: URL(fileURLWithPath: again)))
    }

    /// Records with identities: the page holds one person per identity record, with its tracks,
    /// time on screen, and as picture the thumbnail of the track that holds its best frame.
    func testPageHoldsThePeopleOfIdentityRecords() throws {
        let page = try PeopleFixture.report(in: try Fixtures.temporaryDirectory(self))
        XCTAssertTrue(try String(contentsOfFile: page, encoding: .utf8).contains("<section id=\"people-section\" hidden>"))
        let data = try pageData(page)
        let records = try PeopleFixture.lines()
        let identities = records.filter { $0["type"] as? String == "identity" }
        let tracks = Dictionary(uniqueKeysWithValues: records.filter { $0["type"] as? String == "track" }.map { (($0["id"] as? Int) ?? -1, $0) })
        let people = try XCTUnwrap(data["people"] as? [[String: Any]])
        let thumbnails = try XCTUnwrap(data["thumbnails"] as? [String: Any])
        XCTAssertEqual(people.count, Set(IdentityTests.shots).count)
        XCTAssertEqual(people.count, identities.count)
        for (person, identity) in zip(people, identities) {
            let id = try XCTUnwrap(identity["id"] as? Int)
            XCTAssertEqual(person["id"] as? Int, id)
            XCTAssertEqual(person["tracks"] as? [Int], identity["tracks"] as? [Int], "person \(id)")
            XCTAssertEqual(try XCTUnwrap(person["seconds"] as? Double), try XCTUnwrap(identity["seconds"] as? Double), accuracy: 1e-6)
            XCTAssertEqual(person["first_t"] as? Double, identity["first_t"] as? Double, "person \(id)")
            // The picture: a track of the person's whose frames hold the best frame, with a thumbnail.
            let picture = try XCTUnwrap(person["picture"] as? Int, "person \(id)")
            XCTAssertTrue((identity["tracks"] as? [Int] ?? []).contains(picture))
            let best = try XCTUnwrap(identity["best_frame"] as? Int)
            let track = try XCTUnwrap(tracks[picture])
            XCTAssertTrue((track["first_frame"] as? Int ?? .max) <= best && best <= (track["last_frame"] as? Int ?? -1), "person \(id)")
            XCTAssertNotNil(thumbnails[String(picture)], "person \(id)")
        }
        XCTAssertTrue(people.contains { ($0["tracks"] as? [Int] ?? []).count == 3 }, "people in three shots")
    }

    func testMissingAndMalformedRecordsAreOneLineAndLeaveNoPage() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let page = dir.appendingPathComponent("report.html").path

        let missing = sightline("report", dir.appendingPathComponent("nope.jsonl").path, "-o", page)
        assertRefused(missing, exit: 66, mentions: ["nope.jsonl"])
        XCTAssertEqual(try files(dir), [])

        // An earlier page stays as it was when the new one fails.
        try Data("earlier page".utf8).write(to: URL(fileURLWithPath: page))
        var lines = try String(contentsOfFile: RenderFixture.records, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[41] = "{\"type\":\"frame\",\"index\":"
        let broken = dir.appendingPathComponent("broken.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let malformed = sightline("report", broken, "-o", page)
        assertRefused(malformed, exit: 65, mentions: ["broken.jsonl:42:", "not valid JSON"])
        XCTAssertEqual(try String(contentsOfFile: page, encoding: .utf8), "earlier page")
        XCTAssertEqual(try files(dir), ["broken.jsonl", "report.html"])

        let truth = sightline("report", RenderFixture.records, "--truth", broken, "-o", page)
        assertRefused(truth, exit: 65, mentions: ["broken.jsonl:42:"])
        XCTAssertEqual(try String(contentsOfFile: page, encoding: .utf8), "earlier page")
    }

    func testRecordsOfAnotherVideoAreRefused() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = try RenderFixture.otherVideoRecords(in: dir)
        let page = dir.appendingPathComponent("report.html").path
        let run = sightline("report", records, "--video", Fixtures.sample, "-o", page)
        assertRefused(run, exit: 65, mentions: ["other.jsonl", "records do not match", Fixtures.sample])
        XCTAssertFalse(FileManager.default.fileExists(atPath: page))
        XCTAssertEqual(try files(dir).filter { $0.contains("report") }, [])
    }

    func testUnwritableOutputIsRefusedBeforeAnyWork() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let noDirectory = sightline("report", RenderFixture.records, "-o", dir.appendingPathComponent("no/such/dir/r.html").path)
        assertRefused(noDirectory, exit: 73, mentions: ["r.html", "cannot create output"])
        let isDirectory = sightline("report", RenderFixture.records, "-o", dir.path)
        assertRefused(isDirectory, exit: 73, mentions: ["it is a directory"])
        let toStdout = sightline("report", RenderFixture.records, "-o", "-")
        XCTAssertEqual(toStdout.status, 64, toStdout.stderr)
        XCTAssertEqual(try files(dir), [])
    }

    /// The records are read once, from start to end, also with --video and --truth: they can come
    /// from a pipe, and the page is the one the file gives. Before: the records were read four
    /// times (their first and last lines, a line count, the frames, the audit), and a pipe failed.
    func testRecordsAreReadOnceSoTheyCanComeFromAPipe() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        for options in [["--truth", Fixtures.sampleTruth], ["--video", Fixtures.sample, "--truth", Fixtures.sampleTruth]] {
            let fromFile = dir.appendingPathComponent("file.html").path, fromPipe = dir.appendingPathComponent("pipe.html").path
            let file = sightline(["report", RenderFixture.records, "-q", "-o", fromFile] + options)
            XCTAssertEqual(file.status, 0, file.stderr)
            let quoted = ([Fixtures.binary, "report", "/dev/stdin", "-q", "-o", fromPipe] + options).map { "'\($0)'" }.joined(separator: " ")
            let pipe = try runProcess("/bin/bash", ["-c", "cat '\(RenderFixture.records)' | " + quoted])
            XCTAssertEqual(pipe.status, 0, "\(options): \(pipe.stderr)")
            // The same page but for the records' name (path and title).
            let a = try String(contentsOfFile: fromFile, encoding: .utf8).replacingOccurrences(of: RenderFixture.records, with: "/dev/stdin")
                .replacingOccurrences(of: "report: records.jsonl<", with: "report: stdin<")
            let b = try String(contentsOfFile: fromPipe, encoding: .utf8)
            XCTAssertTrue(a == b, "\(options): the pages differ")
            let audit = try XCTUnwrap(try pageData(fromPipe)["audit"] as? [String: Any], "\(options)")
            XCTAssertEqual((audit["frames"] as? [String: Any])?["compared"] as? Int, 300)
            XCTAssertNotNil(try pageData(fromPipe)["summary"] as? [String: Any])
        }
    }

    /// Bins grow as the frames come: a collector that expected no frames, fed 25 000, ends with
    /// the bins of one that expected 40 000 (width 4): the same bins, runs and hover samples.
    func testCollectorWidensItsBinsAsFramesCome() {
        let grown = ReportCollector(expectedFrames: 0), sized = ReportCollector(expectedFrames: 40_000)
        XCTAssertEqual(grown.binWidth, 1)
        XCTAssertEqual(sized.binWidth, 4)
        for index in 0..<25_000 {
            let sources: [ObservationSource] = [.detected, .refined, .interpolated]
            let face = FaceObservation(box: Box(x: 10, y: 10, w: 50, h: 50), score: 0.9, landmarks: nil, track: 7,
                                       source: sources[(index / 3 + index / 7) % 3], attributes: nil)
            let other = FaceObservation(box: Box(x: 90, y: 10, w: 50, h: 50), score: 0.8, landmarks: nil, track: 8,
                                        source: .detected, attributes: nil)
            let faces = (index % 5 == 0 ? [] : [face]) + (index % 11 < 4 ? [other] : [])
            let record = FrameRecord(index: 100 + index, pts: Int64(index), t: Double(index) / 30, faceStatus: .ok, codeStatus: .off,
                                     faces: faces, codes: [])
            grown.add(record)
            sized.add(record)
        }
        grown.finish()
        sized.finish()
        XCTAssertEqual(grown.binWidth, 4)
        XCTAssertEqual(grown.binTimes, sized.binTimes)
        XCTAssertEqual(grown.binFrames, sized.binFrames)
        XCTAssertEqual(grown.binFaces, sized.binFaces)
        for id in [7, 8] {
            XCTAssertEqual(grown.lanes[id]?.runs, sized.lanes[id]?.runs, "track \(id)")
            XCTAssertEqual(grown.lanes[id]?.samples, sized.lanes[id]?.samples, "track \(id)")
            XCTAssertGreaterThan(sized.lanes[id]?.runs.count ?? 0, 30, "track \(id)")
        }
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
