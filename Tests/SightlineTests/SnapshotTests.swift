import Foundation
import XCTest
@testable import Sightline

/// `sightline snapshot`: one frame with its overlays, as a PNG.
final class SnapshotTests: XCTestCase {
    private func printedRecord(_ run: ProcessResult) throws -> FrameRecord {
        let object = try XCTUnwrap(try jsonLines(run.stdout).first)
        return try FrameRecord(json: object)
    }

    private func assertOutlines(_ faces: [FaceObservation], in png: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let rgb = try Media.rgb(png)
        for face in faces {
            // The outline's stroke on the box's left edge, wherever the edge falls within its pixel.
            let x = Int(face.box.x.rounded())
            let p = (x - 1...x + 2).map { Media.pixel(rgb, width: 1280, x: $0, y: Int(face.box.center.y)) }
                .max { a, b in a.g - max(a.r, a.b) < b.g - max(b.r, b.b) }!
            XCTAssertGreaterThan(p.g, p.r + 60, "\(face.box): \(p)", file: file, line: line)
            XCTAssertGreaterThan(p.g, p.b + 60, "\(face.box): \(p)", file: file, line: line)
        }
    }

    func testSnapshotFromRecordsDrawsTheRecordedFacesOfThatFrame() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let png = dir.appendingPathComponent("still.png").path
        // 5.01 s lies between frame 150 (5.000 s) and frame 151 (5.033 s): the later one is taken.
        let run = sightline("snapshot", Fixtures.sample, "--at", "5.01", "--records", RenderFixture.records, "-o", png, "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let size = try Media.size(png)
        XCTAssertEqual(size.width, 1280)
        XCTAssertEqual(size.height, 720)
        let printed = try printedRecord(run)
        XCTAssertEqual(printed.index, 151)
        let recorded = try RecordFile(path: RenderFixture.records).frames[151]
        XCTAssertEqual(printed.faces.map(\.box), recorded.faces.map(\.box))
        XCTAssertEqual(recorded.faces.count, 2)
        try assertOutlines(recorded.faces, in: png)
        // The still is the frame itself away from the overlays.
        let still = try Media.rgb(png), frame = try Media.rgb(Fixtures.sample, frame: 151)
        let a = Media.mean(still, width: 1280, x: 800, y: 300, w: 100, h: 40), b = Media.mean(frame, width: 1280, x: 800, y: 300, w: 100, h: 40)
        XCTAssertEqual(a.g, b.g, accuracy: 2)
    }

    func testSnapshotWithoutRecordsFindsTheTruthFaces() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let png = dir.appendingPathComponent("still.png").path
        let run = sightline("snapshot", Fixtures.sample, "--at", "3", "-o", png, "--json", "--codes", "off")
        XCTAssertEqual(run.status, 0, run.stderr)
        let detected = try printedRecord(run)
        XCTAssertEqual(detected.t, 3, accuracy: 1e-6)
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames[90]
        XCTAssertEqual(detected.faces.count, truth.faces.count)
        for face in truth.faces {
            XCTAssertTrue(detected.faces.contains { $0.box.iou(face.box) >= 0.5 }, "truth face \(face.box) not found in \(detected.faces)")
        }
        try assertOutlines(detected.faces, in: png)
    }

    func testSnapshotPastTheEndOrWithRecordsOfAnotherVideoIsRefused() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let png = dir.appendingPathComponent("still.png").path
        assertRefused(sightline("snapshot", Fixtures.sample, "--at", "12", "-o", png), exit: 64,
                      mentions: [Fixtures.sample, "no frame at or after"])
        let other = try RenderFixture.otherVideoRecords(in: dir)
        assertRefused(sightline("snapshot", Fixtures.sample, "--at", "0.2", "--records", other, "-o", png), exit: 65,
                      mentions: [other, Fixtures.sample, "records do not match"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: png))
    }
}
