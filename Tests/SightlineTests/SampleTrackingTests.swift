import XCTest
@testable import Sightline

/// Tracks on the bundled sample, held against the truth's object ids.
final class SampleTrackingTests: XCTestCase {
    /// Which predicted track ids each truth object was matched to, frame by frame (faces by
    /// IoU ≥ 0.5, codes by payload with the read's centre on the truth code).
    private func idsPerTruthObject(predicted: [FrameRecord], truth: [FrameRecord]) -> [Int: [Int: Int]] {
        var seen: [Int: [Int: Int]] = [:]   // truth id -> frame index -> predicted id
        let byIndex = Dictionary(uniqueKeysWithValues: predicted.map { ($0.index, $0) })
        for t in truth {
            guard let p = byIndex[t.index] else { continue }
            for face in t.faces {
                if let match = p.faces.max(by: { face.box.iou($0.box) < face.box.iou($1.box) }),
                   face.box.iou(match.box) >= 0.5, let id = match.track, let truthID = face.track {
                    seen[truthID, default: [:]][t.index] = id
                }
            }
            for code in t.codes {
                if let match = p.codes.first(where: { $0.bytes == code.bytes && code.box.contains($0.box.center) }),
                   let id = match.track, let truthID = code.track {
                    seen[truthID, default: [:]][t.index] = id
                }
            }
        }
        return seen
    }

    private func tracks(_ data: Data) throws -> [TrackRecord] {
        try RecordFile(jsonLines: data, path: "run").tracks
    }

    private func frames(_ data: Data) throws -> [FrameRecord] {
        try RecordFile(jsonLines: data, path: "run").frames
    }

    func testOneTrackPerObjectNoIdSwitchesAndTheRightSpan() throws {
        let records = try RenderFixture.defaultRecords()
        let truth = try RecordFile(path: Fixtures.sampleTruth)
        let objects = try XCTUnwrap(truth.stream?.fields.object["objects"] as? [[String: Any]])
        let trackRecords = try tracks(records)
        XCTAssertEqual(trackRecords.count, objects.count)

        let matches = idsPerTruthObject(predicted: try frames(records), truth: truth.frames)
        XCTAssertEqual(matches.count, objects.count)
        for (truthID, byFrame) in matches {
            // No ID switch: every matched frame of a truth object carries the same predicted id.
            XCTAssertEqual(Set(byFrame.values).count, 1, "truth object \(truthID) got ids \(Set(byFrame.values))")
            let truthFrames = truth.frames.filter { f in f.faces.contains { $0.track == truthID } || f.codes.contains { $0.track == truthID } }.map(\.index)
            let id = try XCTUnwrap(byFrame.values.first)
            let record = try XCTUnwrap(trackRecords.first { $0.id == id })
            XCTAssertLessThanOrEqual(abs(record.firstFrame - truthFrames.min()!), 2, "object \(truthID)")
            XCTAssertLessThanOrEqual(abs(record.lastFrame - truthFrames.max()!), 2, "object \(truthID)")
        }
    }

    func testDetectionStrideKeepsRecallWithRegionSearch() throws {
        // The run at the default thread count is the one several classes read (`SharedRuns`).
        let run = try Data(contentsOf: URL(fileURLWithPath: try SharedRuns.analyzed(Fixtures.sample, ["--detect-every", "5"])))
        let everyFrame = try frames(try RenderFixture.defaultRecords())
        let strided = try frames(run)
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        let matcher = TruthMatcher(faceIoU: 0.5)
        let full = matcher.faces(predicted: everyFrame, truth: truth), stride = matcher.faces(predicted: strided, truth: truth)
        XCTAssertGreaterThanOrEqual(stride.recall, full.recall - 0.02, "\(stride) vs \(full)")
        let fullCodes = matcher.codes(predicted: everyFrame, truth: truth), strideCodes = matcher.codes(predicted: strided, truth: truth)
        XCTAssertGreaterThanOrEqual(strideCodes.recall, fullCodes.recall - 0.02, "\(strideCodes) vs \(fullCodes)")
        XCTAssertEqual(strideCodes.wrongPayload, 0)
        // Full face detection on frames 0, 5, 10…, the full code search on 0, 15, 30…, both on the
        // last frame (299); region search on the others (every known code is read in its region),
        // and it says so.
        let last = try XCTUnwrap(strided.last?.index)
        func detected(_ index: Int) -> Bool { index % 5 == 0 || index == last }
        for record in strided {
            XCTAssertEqual(record.faceStatus, detected(record.index) ? .ok : .refined, "frame \(record.index)")
            XCTAssertEqual(record.codeStatus, record.index % 15 == 0 || record.index == last ? .ok : .refined, "frame \(record.index)")
            if detected(record.index) {
                XCTAssertTrue(record.faces.allSatisfy { $0.source == .detected })
            }
        }
        // Between detections the same network finds each face again on a crop around it: every
        // face of those frames has the network's score and landmarks.
        let between = strided.filter { !detected($0.index) }.flatMap(\.faces)
        XCTAssertEqual(between.count, 2 * strided.filter { !detected($0.index) }.count)
        for face in between {
            XCTAssertEqual(face.source, .refined)
            XCTAssertGreaterThanOrEqual(face.score, 0.4)
            XCTAssertNotNil(face.landmarks)
        }
        // The code entering at frame 150 (a detection frame) is found at once.
        let late = strided.first { $0.codes.contains { $0.text == "SIGHTLINE-QR-2 enters halfway" } }
        XCTAssertEqual(late?.index, 150)
        XCTAssertEqual(try tracks(run).count, 5)

        // The region searches of a frame run in parallel lanes (one per thread), but the output
        // is the same byte for byte with one thread.
        let serial = sightline("analyze", Fixtures.sample, "-q", "--detect-every", "5", "--threads", "1")
        XCTAssertEqual(serial.status, 0, serial.stderr)
        XCTAssertEqual(serial.stdout, run)
    }

    func testTracksCommandPrintsTheTimeline() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = dir.appendingPathComponent("run.jsonl")
        try RenderFixture.defaultRecords().write(to: records)
        let table = sightline("tracks", records.path)
        XCTAssertEqual(table.status, 0, table.stderr)
        let rows = table.stdoutText.split(separator: "\n").dropFirst()
        XCTAssertEqual(rows.count, 5)
        XCTAssertTrue(rows.contains { $0.contains("5.000") && $0.contains("SIGHTLINE-QR-2 enters halfway") }, table.stdoutText)
        let codes = sightline("tracks", records.path, "--json", "--kind", "code")
        XCTAssertEqual(try jsonLines(codes.stdout).map { $0["text"] as? String },
                       ["https://example.org/sightline/qr-1", "5901234123457", "SIGHTLINE-QR-2 enters halfway"])
        // A file cut in the middle of a line is an error naming the line.
        let data = try Data(contentsOf: records)
        try data.prefix(data.count - 40).write(to: records)
        let cut = sightline("tracks", records.path)
        XCTAssertEqual(cut.status, 65)
        XCTAssertTrue(cut.stderr.contains("\(records.path):307:"), cut.stderr)
        // A missing file: exit 66, one line naming it.
        let missing = dir.appendingPathComponent("none.jsonl").path
        let gone = sightline("tracks", missing)
        XCTAssertEqual(gone.status, 66)
        XCTAssertEqual(gone.stderr.split(separator: "\n").count, 1, gone.stderr)
        XCTAssertTrue(gone.stderr.contains(missing), gone.stderr)
    }
}
