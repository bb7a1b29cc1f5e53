import XCTest
@testable import Sightline

/// The analyze command on the bundled sample, held against its exact ground truth and ffprobe.
final class SampleTruthTests: XCTestCase {
    private func frames(_ data: Data) throws -> [FrameRecord] {
        try RecordFile(jsonLines: data, path: "run").frames
    }

    func testOneFrameRecordPerDecodedFrameWithFFprobesPTS() throws {
        let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                       "frame=pts", "-of", "csv=p=0", Fixtures.sample])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let expected = probe.stdoutText.split(separator: "\n").map { Int64($0.trimmingCharacters(in: .whitespaces).split(separator: ",")[0])! }
        let count = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                       "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", Fixtures.sample])
        XCTAssertEqual(Int(count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)), expected.count)

        let records = try frames(RenderFixture.defaultRecords())
        XCTAssertEqual(records.count, expected.count)
        XCTAssertEqual(records.map(\.pts), expected)
        XCTAssertEqual(records.map(\.index), Array(0..<records.count))
        // t is pts in seconds from the stream start (time base 1/15360 here).
        for r in records { XCTAssertEqual(r.t, Double(r.pts) / 15360, accuracy: 1e-6) }
    }

    /// The default run's records as a record file.
    private func defaultRecords() throws -> RecordFile {
        try RecordFile(jsonLines: RenderFixture.defaultRecords(), path: "analyze output")
    }

    func testFacesAndCodesMatchTheTruth() throws {
        let predicted = try defaultRecords()
        let report = try Auditor().audit(predicted: predicted, truth: RecordFile(path: Fixtures.sampleTruth))
        let faces = try XCTUnwrap(report.faces?.detection)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(faces.recall), 0.9, "\(faces)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(faces.falsePositivesPer100Frames), 1, "\(faces)")
        let codes = try XCTUnwrap(report.codes?.payloads)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(codes.total.accuracy), 0.99, "\(codes.total)")
        XCTAssertEqual(codes.total.wrongPayload, 0, "\(codes.total)")
        XCTAssertEqual(codes.total.extra, 0, "\(codes.total)")
        // The second QR code enters at frame 150: not read before, read from then on.
        let late = "SIGHTLINE-QR-2 enters halfway"
        XCTAssertFalse(predicted.frames[..<150].contains { $0.codes.contains { $0.text == late } })
        XCTAssertTrue(predicted.frames[150...].allSatisfy { $0.codes.contains { $0.text == late } })
        let firstRead = try XCTUnwrap(codes.firstReads.first { $0.text == late })
        XCTAssertEqual(firstRead.firstFrame, 150)
        XCTAssertEqual(firstRead.latencyFrames, 0)
    }

    /// `sightline audit` on the default run against the truth gives the analyzer's current results:
    /// every face found and nothing else (recall and precision 1), all 750 code instances read.
    func testAuditCommandReproducesTheAnalyzerResults() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = dir.appendingPathComponent("sample.jsonl").path
        try RenderFixture.defaultRecords().write(to: URL(fileURLWithPath: records))
        let result = sightline("audit", records, Fixtures.sampleTruth, "--format", "json",
                                   "--min-recall", "1", "--min-precision", "1")
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        XCTAssertEqual((report["frames"] as? [String: Any])?["compared"] as? Int, 300)
        let faces = try XCTUnwrap((report["faces"] as? [String: Any])?["detection"] as? [String: Any])
        XCTAssertEqual(faces["recall"] as? Double, 1)
        XCTAssertEqual(faces["precision"] as? Double, 1)
        XCTAssertEqual(faces["true_positives"] as? Int, 600)
        let payloads = try XCTUnwrap((report["codes"] as? [String: Any])?["payloads"] as? [String: Any])
        XCTAssertEqual(payloads["correct"] as? Int, 750)
        XCTAssertEqual(payloads["expected"] as? Int, 750)
        XCTAssertEqual(payloads["wrong_payload"] as? Int, 0)
        // Tracking metrics are reported exactly when the run carries track ids (the truth does).
        let hasTrackIds = try defaultRecords().frames.contains { $0.faces.contains { $0.track != nil } }
        let tracking = try XCTUnwrap((report["faces"] as? [String: Any])?["tracking"] as? [String: Any])
        XCTAssertEqual(tracking["available"] as? Bool, hasTrackIds, "\(tracking)")
        if !hasTrackIds { XCTAssertEqual(tracking["reason"] as? String, "the prediction has no track ids") }
        // A run compared with itself has no differences.
        XCTAssertEqual(sightline("diff", records, records).status, 0)
    }

    func testStreamHeaderAndSummary() throws {
        let lines = try jsonLines(RenderFixture.defaultRecords())
        let stream = try XCTUnwrap(lines.first)
        XCTAssertEqual(stream["type"] as? String, "stream")
        XCTAssertEqual(stream["width"] as? Int, 1280)
        XCTAssertEqual(stream["height"] as? Int, 720)
        XCTAssertEqual(stream["rotation"] as? Int, 0)
        XCTAssertEqual(stream["codec"] as? String, "h264")
        XCTAssertEqual(stream["frame_rate"] as? [Int], [30, 1])
        let summary = try XCTUnwrap(lines.last)
        XCTAssertEqual(summary["type"] as? String, "summary")
        XCTAssertEqual(summary["frames"] as? Int, 300)
        XCTAssertEqual(summary["distinct_codes"] as? Int, 3)
        XCTAssertEqual(summary["corrupt_frames"] as? Int, 0)
        XCTAssertEqual(summary["interrupted"] as? Bool, false)
        XCTAssertNil(summary["wall_seconds"], "timing is opt-in so output stays deterministic")
    }

    /// 1.5 s: 45 frames, three rounds of the code search, two and a half of the 18 tiles' rotation.
    func testOutputIsByteIdenticalForAnyThreadCount() throws {
        let one = sightline("analyze", Fixtures.sample, "-q", "--threads", "1", "--duration", "1.5")
        XCTAssertEqual(one.status, 0, one.stderr)
        let three = sightline("analyze", Fixtures.sample, "-q", "--threads", "3", "--duration", "1.5")
        XCTAssertEqual(three.status, 0, three.stderr)
        XCTAssertEqual(one.stdout, three.stdout, "--threads 1 differs from --threads 3")
        let reference = try RenderFixture.defaultRecords()
        // The first 1.5 s equal the first 45 frames of the full run (the default thread count).
        let head = try RecordFile(jsonLines: three.stdout, path: "3 threads").frames.count
        XCTAssertEqual(head, 45)
        let referenceLines = reference.split(separator: UInt8(ascii: "\n"))
        let threeLines = three.stdout.split(separator: UInt8(ascii: "\n"))
        XCTAssertEqual(Array(threeLines[1...45]), Array(referenceLines[1...45]))
    }

    func testZbarBackendReadsTheSameCodes() throws {
        let run = sightline("analyze", Fixtures.sample, "-q", "--faces", "off", "--codes", "zbar")
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try Auditor(options: AuditOptions(kinds: [.codes]))
            .audit(predicted: RecordFile(jsonLines: run.stdout, path: "zbar run"), truth: RecordFile(path: Fixtures.sampleTruth))
        let codes = try XCTUnwrap(report.codes?.payloads?.total)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(codes.accuracy), 0.99, "\(codes)")
        XCTAssertEqual(codes.wrongPayload, 0)
    }

    func testSymbologyFilterAndStartDuration() throws {
        let run = sightline("analyze", Fixtures.sample, "-q", "--faces", "off", "--symbologies", "ean13",
                                "--start", "5", "--duration", "1")
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = try frames(run.stdout)
        XCTAssertEqual(records.count, 30)
        XCTAssertEqual(try XCTUnwrap(records.first).t, 5, accuracy: 1e-6)
        XCTAssertTrue(records.allSatisfy { $0.codes.map(\.symbology) == [.ean13] && $0.faceStatus == .off })
    }

    func testRotatedVideoGeometryIsInTheDisplayedFrame() throws {
        // Displayed frames are the sample's, so the sample's truth applies unchanged.
        let rotated = try Media.sampleTurnedForDisplay(seconds: 1, in: try Fixtures.temporaryDirectory(self))
        let run = sightline("analyze", rotated, "-q")
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = try jsonLines(run.stdout)
        XCTAssertEqual(lines[0]["rotation"] as? Int, 270)
        XCTAssertEqual(lines[0]["width"] as? Int, 1280)
        XCTAssertEqual(lines[0]["coded_width"] as? Int, 720)
        let predicted = try RecordFile(jsonLines: run.stdout, path: "rotated run")
        XCTAssertEqual(predicted.frames.count, 30)
        var truth = try RecordFile(path: Fixtures.sampleTruth)
        truth.frames = Array(truth.frames.prefix(30))
        let report = try Auditor().audit(predicted: predicted, truth: truth)
        let faces = try XCTUnwrap(report.faces?.detection)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(faces.recall), 0.9, "\(faces)")
        let codes = try XCTUnwrap(report.codes?.payloads?.total)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(codes.accuracy), 0.99, "\(codes)")
    }

    func testInputFromStandardInput() throws {
        let run = try runProcess(Fixtures.binary, ["analyze", "-", "-q", "--faces", "off", "--duration", "0.5"],
                                 stdin: URL(fileURLWithPath: Fixtures.sample))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try frames(run.stdout).count, 15)
    }
}
