import Foundation
import XCTest
@testable import Sightline

/// `--thumbnails DIR`: the best picture of every track.
final class ThumbnailTests: XCTestCase {
    /// The best observation of each track by the documented rule: highest score among detected
    /// ones, then the larger box, then the earlier frame.
    private func bestObservations(_ frames: [FrameRecord]) -> [Int: (kind: String, frame: Int, box: Box)] {
        var best: [Int: (kind: String, frame: Int, box: Box, score: Double)] = [:]
        for frame in frames {
            let faces = frame.faces.filter { $0.source != .interpolated }.compactMap { f in f.track.map { ($0, "face", f.score, f.box) } }
            let codes = frame.codes.filter { $0.source != .interpolated }.compactMap { c in c.track.map { ($0, "code", 0.0, c.box) } }
            for (id, kind, score, box) in faces + codes {
                if let b = best[id], !(score > b.score || (score == b.score && box.area > b.box.area)) { continue }
                best[id] = (kind, frame.index, box, score)
            }
        }
        return best.mapValues { ($0.kind, $0.frame, $0.box) }
    }

    /// The box grown by a tenth of its longer side (at least 4 px) on every side, to whole pixels, clipped.
    private func expectedSize(_ box: Box, frameWidth: Int, frameHeight: Int) -> (width: Int, height: Int) {
        let m = max(4, 0.1 * max(box.w, box.h))
        let x0 = max(0, Int((box.x - m).rounded(.down))), y0 = max(0, Int((box.y - m).rounded(.down)))
        let x1 = min(frameWidth, Int((box.x + box.w + m).rounded(.up))), y1 = min(frameHeight, Int((box.y + box.h + m).rounded(.up)))
        return (x1 - x0, y1 - y0)
    }

    func testOneThumbnailPerTruthTrackSizedLikeItsBestBox() throws {
        try RenderFixture.ready()
        let files = try FileManager.default.contentsOfDirectory(atPath: RenderFixture.thumbnails).sorted()
        let truthFile = try RecordFile(path: Fixtures.sampleTruth)
        let truthTracks = Set(truthFile.frames.flatMap { $0.faces.compactMap(\.track) + $0.codes.compactMap(\.track) })
        XCTAssertEqual(files.count, truthTracks.count, "\(files)")
        XCTAssertEqual(files.filter { $0.hasPrefix("face-") }.count, 2)
        XCTAssertEqual(files.filter { $0.hasPrefix("code-") }.count, 3)

        let best = bestObservations(try RecordFile(path: RenderFixture.records).frames)
        var covered = Set<Int>()
        for file in files {
            let name = (file as NSString).deletingPathExtension
            let parts = name.split(separator: "-")
            let id = try XCTUnwrap(Int(parts[1]), file)
            let b = try XCTUnwrap(best[id], "no observation of track \(id)")
            XCTAssertEqual(String(parts[0]), b.kind)
            let size = try Media.size((RenderFixture.thumbnails as NSString).appendingPathComponent(file))
            let expected = expectedSize(b.box, frameWidth: 1280, frameHeight: 720)
            XCTAssertEqual(size.width, expected.width, file)
            XCTAssertEqual(size.height, expected.height, file)
            // The picture is of a truth object of that kind, in the frame it was taken from.
            let truth = truthFile.frames[b.frame]
            let objects = b.kind == "face" ? truth.faces.map { ($0.track, $0.box) } : truth.codes.map { ($0.track, $0.box) }
            let match = try XCTUnwrap(objects.first { $0.1.iou(b.box) >= 0.5 }, "\(file): no truth object at \(b.box)")
            covered.insert(try XCTUnwrap(match.0))
        }
        XCTAssertEqual(covered, truthTracks, "every truth track has its picture")
    }

    func testRenderWritesTheSameThumbnailsAsAnalyze() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let thumbs = dir.appendingPathComponent("thumbs").path
        let run = sightline("render", Fixtures.sample, RenderFixture.records, "-o", dir.appendingPathComponent("r.mp4").path,
                                "-q", "--thumbnails", thumbs)
        XCTAssertEqual(run.status, 0, run.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: thumbs).sorted()
        XCTAssertEqual(names, try FileManager.default.contentsOfDirectory(atPath: RenderFixture.thumbnails).sorted())
        for name in names {
            let a = try Data(contentsOf: URL(fileURLWithPath: thumbs).appendingPathComponent(name))
            let b = try Data(contentsOf: URL(fileURLWithPath: RenderFixture.thumbnails).appendingPathComponent(name))
            XCTAssertEqual(a, b, name)
        }
    }

    func testThumbnailsAndStillsOfARotatedVideoAreUpright() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let rotated = dir.appendingPathComponent("rotated.mp4").path
        try ffmpeg("-i", Fixtures.sample, "-t", "0.5", "-c", "copy", "-metadata:s:v", "rotate=90", rotated)
        let records = dir.appendingPathComponent("r.jsonl").path
        let thumbs = dir.appendingPathComponent("thumbs").path
        let run = sightline("analyze", rotated, "-q", "--faces", "off", "-o", records, "--thumbnails", thumbs)
        XCTAssertEqual(run.status, 0, run.stderr)
        let file = try RecordFile(path: records)
        let width = try XCTUnwrap(file.stream?.width), height = try XCTUnwrap(file.stream?.height)
        XCTAssertEqual(width, 720)
        let best = bestObservations(file.frames)
        XCTAssertEqual(best.count, 2, "the QR code and the EAN-13 code")
        for (id, b) in best {
            let size = try Media.size(dir.appendingPathComponent("thumbs/code-\(id).png").path)
            let expected = expectedSize(b.box, frameWidth: width, frameHeight: height)
            XCTAssertEqual(size.width, expected.width)
            XCTAssertEqual(size.height, expected.height)
        }
        // The EAN-13 code is taller than wide as displayed: so is its picture.
        let ean = try XCTUnwrap(best.first { $0.value.box.h > $0.value.box.w * 2 })
        let eanSize = try Media.size(dir.appendingPathComponent("thumbs/code-\(ean.key).png").path)
        XCTAssertGreaterThan(eanSize.height, eanSize.width * 2)

        let png = dir.appendingPathComponent("still.png").path
        let still = sightline("snapshot", rotated, "--at", "0.2", "--records", records, "-o", png)
        XCTAssertEqual(still.status, 0, still.stderr)
        let size = try Media.size(png)
        XCTAssertEqual(size.width, 720)
        XCTAssertEqual(size.height, 1280)
    }
}
