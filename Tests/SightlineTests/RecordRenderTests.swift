import Foundation
import XCTest
@testable import Sightline

/// One analyze run over the whole sample, made once per suite run (`SharedOutputs`) and shared by
/// the render, snapshot and thumbnail tests: its records, its own `--render` video and its
/// `--thumbnails`.
enum RenderFixture {
    static let directory = SharedOutputs.root.appendingPathComponent("render-fixture")
    static var records: String { directory.appendingPathComponent("records.jsonl").path }
    static var video: String { directory.appendingPathComponent("analyzed.mp4").path }
    static var thumbnails: String { directory.appendingPathComponent("thumbs").path }

    /// Made once; a failed run throws its error line.
    private static let made = Result<Void, Error> {
        _ = try SharedOutputs.folder(directory.lastPathComponent) { dir in
            // Through the binary: its records are also the golden default run's (GoldenOutputTests).
            let run = try runProcess(Fixtures.binary, ["analyze", Fixtures.sample, "-q", "-o", dir.appendingPathComponent("records.jsonl").path,
                                                       "--render", dir.appendingPathComponent("analyzed.mp4").path,
                                                       "--thumbnails", dir.appendingPathComponent("thumbs").path])
            guard run.status == 0 else { throw run.stderr }
        }
    }

    /// Fails the test unless the shared run succeeded.
    static func ready() throws { try made.get() }

    /// The run's records (the sample at the default options: both analyzers on every frame).
    static func defaultRecords() throws -> Data {
        try ready()
        return try Data(contentsOf: URL(fileURLWithPath: records))
    }

    /// A short clip of another video (the sample scaled down) and its records.
    static func otherVideoRecords(in dir: URL) throws -> String {
        let clip = dir.appendingPathComponent("other.mp4").path
        try ffmpeg("-i", Fixtures.sample, "-t", "0.5", "-vf", "scale=640:360", "-c:v", "libx264", "-preset", "ultrafast", clip)
        let records = dir.appendingPathComponent("other.jsonl").path
        let run = sightline("analyze", clip, "-q", "--faces", "off", "--codes", "off", "-o", records)
        guard run.status == 0 else { throw "analyze of the other clip failed: \(run.stderr)" }
        return records
    }
}

/// Asserts a failed run: the exit code, one line on standard error naming each fragment.
func assertRefused(_ result: ProcessResult, exit code: Int32, mentions fragments: [String],
                   file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(result.status, code, result.stderr, file: file, line: line)
    XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "expected one line: \(result.stderr)", file: file, line: line)
    for fragment in fragments {
        XCTAssertTrue(result.stderr.contains(fragment), "'\(fragment)' not in: \(result.stderr)", file: file, line: line)
    }
}

/// `sightline render`: overlays drawn again from saved records.
final class RecordRenderTests: XCTestCase {
    private let width = 1280

    func testRenderFromRecordsKeepsEveryFrameAndDrawsTheRecordedFaces() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("render.mp4").path
        let run = sightline("render", Fixtures.sample, RenderFixture.records, "-o", out, "-q")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try Media.ptsList(out), try Media.ptsList(Fixtures.sample))
        // The same overlays as analyze --render drew while detecting: identical pictures.
        XCTAssertEqual(try Media.frameHashes(out), try Media.frameHashes(RenderFixture.video))

        let records = try RecordFile(path: RenderFixture.records).frames
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        for index in [30, 200] {
            let rgb = try Media.rgb(out, frame: index)
            XCTAssertEqual(records[index].faces.count, truth[index].faces.count)
            for face in records[index].faces {
                XCTAssertTrue(truth[index].faces.contains { $0.box.iou(face.box) >= 0.5 }, "frame \(index): \(face.box) is no truth face")
                // The box outline in the face colour (green): the middle of its left edge (the
                // greenest of the pixels next to it: the line's pixels depend on the rounding).
                let x = Int(face.box.x.rounded()), y = Int(face.box.center.y)
                let p = (x - 1...x + 1).map { Media.pixel(rgb, width: width, x: $0, y: y) }
                    .max { $0.g - max($0.r, $0.b) < $1.g - max($1.r, $1.b) }!
                XCTAssertGreaterThan(p.g, p.r + 60, "frame \(index) \(face.box): \(p)")
                XCTAssertGreaterThan(p.g, p.b + 60, "frame \(index) \(face.box): \(p)")
            }
        }
    }

    func testRecordsOfAStartDurationRunRenderThatSpan() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = dir.appendingPathComponent("span.jsonl").path
        let analyzed = dir.appendingPathComponent("analyzed.mp4").path
        let analyze = sightline("analyze", Fixtures.sample, "-q", "--start", "4", "--duration", "1", "-o", records, "--render", analyzed)
        XCTAssertEqual(analyze.status, 0, analyze.stderr)
        let out = dir.appendingPathComponent("span.mp4").path
        let run = sightline("render", Fixtures.sample, records, "-o", out, "-q")
        XCTAssertEqual(run.status, 0, run.stderr)
        let recorded = try RecordFile(path: records).frames
        XCTAssertEqual(recorded.count, 30)
        XCTAssertEqual(recorded.first?.index, 120)   // the frame's position in the stream
        XCTAssertEqual(recorded.first?.t ?? 0, 4, accuracy: 1e-6)
        // The fragmented MP4 starts at 0: the span's timestamps, shifted by its first one.
        let pts = try Media.ptsList(out)
        XCTAssertEqual(pts, recorded.map { $0.pts - recorded[0].pts })
        XCTAssertEqual(try Media.frameHashes(out), try Media.frameHashes(analyzed))
    }

    func testAudioIsCopiedAsWithAnalyzeRender() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let input = try Media.sampleWithAudio(in: dir)
        let records = dir.appendingPathComponent("r.jsonl").path
        let analyze = sightline("analyze", input, "-q", "--faces", "off", "-o", records)
        XCTAssertEqual(analyze.status, 0, analyze.stderr)
        let out = dir.appendingPathComponent("out.mp4").path
        let run = sightline("render", input, records, "-o", out, "-q")
        XCTAssertEqual(run.status, 0, run.stderr)
        let original = try Media.audioPacketHashes(input)
        XCTAssertGreaterThan(original.count, 50)
        XCTAssertEqual(try Media.audioPacketHashes(out), original, "audio packets must be byte-identical")
    }

    func testRecordsOfAnotherVideoAreRefused() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let other = try RenderFixture.otherVideoRecords(in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        let run = sightline("render", Fixtures.sample, other, "-o", out, "-q")
        assertRefused(run, exit: 65, mentions: [other, Fixtures.sample, "coded size 640x360 in the records, 1280x720 in the video"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing is written for records of another video")

        // Records without a stream record (the truth file) identify no stream.
        let truth = sightline("render", Fixtures.sample, Fixtures.sampleTruth, "-o", out, "-q")
        assertRefused(truth, exit: 65, mentions: [Fixtures.sampleTruth, Fixtures.sample, "stream record"])
    }

    func testAFrameWithoutARecordOrARecordWithoutAFrameIsRefused() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let lines = try String(contentsOfFile: RenderFixture.records, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)

        let removed = dir.appendingPathComponent("removed.jsonl").path
        try lines.filter { !$0.contains(#""type":"frame","index":100,"#) }.joined(separator: "\n")
            .write(toFile: removed, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.mp4").path
        let thumbs = dir.appendingPathComponent("thumbs").path
        let run = sightline("render", Fixtures.sample, removed, "-o", out, "-q", "--thumbnails", thumbs)
        assertRefused(run, exit: 65, mentions: [removed, Fixtures.sample, "frame 100 of the video", "has no record"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "a refused render leaves no video")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: thumbs), [], "nor thumbnails")

        // One frame record more than the video has frames.
        let last = try XCTUnwrap(try RecordFile(path: RenderFixture.records).frames.last)
        let extra = dir.appendingPathComponent("extra.jsonl").path
        let extraRecord = #"{"type":"frame","index":\#(last.index + 1),"pts":\#(last.pts + 512),"t":10.0,"faces":[],"codes":[]}"#
        try (lines.filter { !$0.isEmpty }.map(String.init) + [extraRecord]).joined(separator: "\n").appending("\n")
            .write(toFile: extra, atomically: true, encoding: .utf8)
        let more = sightline("render", Fixtures.sample, extra, "-o", out, "-q")
        assertRefused(more, exit: 65, mentions: [extra, Fixtures.sample, "record of frame 300", "has no frame in the video"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testMaskBlendsTheImageIntoEveryFaceByItsAlpha() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        // A pure red mask at half opacity (alpha 127 of 255).
        let mask = dir.appendingPathComponent("mask.png").path
        try ffmpeg("-f", "lavfi", "-i", "color=c=red@0.5:s=16x16,format=rgba", "-frames:v", "1", mask)
        let out = dir.appendingPathComponent("mask.mp4").path
        let run = sightline("render", Fixtures.sample, RenderFixture.records, "-o", out, "-q", "--style", "mask:\(mask)", "--crf", "12")
        XCTAssertEqual(run.status, 0, run.stderr)
        let alpha = 127.0 / 255
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        for index in [30, 160] {
            // The sample is BT.709, so the mask is turned into Y'CbCr with that matrix: read it so.
            let input = try Media.rgb(Fixtures.sample, frame: index, bt709: true), output = try Media.rgb(out, frame: index, bt709: true)
            XCTAssertEqual(truth[index].faces.count, 2)
            for face in truth[index].faces {
                // The middle of the truth box (the recorded box covers it).
                let b = face.box
                let (x, y, w, h) = (Int(b.x + b.w * 0.3), Int(b.y + b.h * 0.3), Int(b.w * 0.4), Int(b.h * 0.4))
                let before = Media.mean(input, width: width, x: x, y: y, w: w, h: h)
                let after = Media.mean(output, width: width, x: x, y: y, w: w, h: h)
                let expected = (r: alpha * 255 + (1 - alpha) * before.r, g: (1 - alpha) * before.g, b: (1 - alpha) * before.b)
                let message = "frame \(index) face \(b): before \(before), after \(after), expected \(expected)"
                XCTAssertEqual(after.r, expected.r, accuracy: 12, message)
                XCTAssertEqual(after.g, expected.g, accuracy: 12, message)
                XCTAssertEqual(after.b, expected.b, accuracy: 12, message)
            }
            // Away from every object, the picture is left alone.
            let wallBefore = Media.mean(input, width: width, x: 800, y: 300, w: 100, h: 40)
            let wallAfter = Media.mean(output, width: width, x: 800, y: 300, w: 100, h: 40)
            XCTAssertEqual(wallAfter.r, wallBefore.r, accuracy: 3)
        }
    }

    func testABadMaskIsRefusedBeforeAnyOutput() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("out.mp4").path
        let missing = dir.appendingPathComponent("missing.png").path
        assertRefused(sightline("render", Fixtures.sample, RenderFixture.records, "-o", out, "-q", "--style", "mask:\(missing)"),
                      exit: 66, mentions: [missing, "No such file"])
        let text = dir.appendingPathComponent("notes.png").path
        try "not a picture\n".write(toFile: text, atomically: true, encoding: .utf8)
        assertRefused(sightline("render", Fixtures.sample, RenderFixture.records, "-o", out, "-q", "--style", "mask:\(text)"),
                      exit: 65, mentions: [text, "not an image"])
        let records = dir.appendingPathComponent("r.jsonl").path
        assertRefused(sightline("analyze", Fixtures.sample, "-q", "-o", records, "--render", out, "--style", "mask:\(Fixtures.sample)"),
                      exit: 65, mentions: [Fixtures.sample, "not an image"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertFalse(FileManager.default.fileExists(atPath: records))
    }

    func testLandmarksAreDotsAndTheTimestampSitsInACorner() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        // Records with five landmarks on the first face of frame 30, at known places in its box.
        var lines = try String(contentsOfFile: RenderFixture.records, encoding: .utf8).split(separator: "\n").map(String.init)
        let lineIndex = try XCTUnwrap(lines.firstIndex { $0.contains(#""type":"frame","index":30,"#) })
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[lineIndex].utf8)) as? [String: Any])
        var faces = try XCTUnwrap(object["faces"] as? [[String: Any]])
        let box = try XCTUnwrap(try FrameRecord(json: object).faces.first?.box)
        func at(_ fx: Double, _ fy: Double) -> [Double] { [(box.x + fx * box.w).rounded(), (box.y + fy * box.h).rounded()] }
        let points = ["left_eye": at(0.3, 0.35), "right_eye": at(0.7, 0.35), "nose": at(0.5, 0.55),
                      "mouth_left": at(0.35, 0.75), "mouth_right": at(0.65, 0.75)]
        faces[0]["landmarks"] = points
        object["faces"] = faces
        lines[lineIndex] = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let edited = dir.appendingPathComponent("landmarks.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: edited, atomically: true, encoding: .utf8)

        let out = dir.appendingPathComponent("out.mp4").path
        let run = sightline("render", Fixtures.sample, edited, "-o", out, "-q", "--timestamp", "--crf", "12")
        XCTAssertEqual(run.status, 0, run.stderr)
        let rgb = try Media.rgb(out, frame: 30), input = try Media.rgb(Fixtures.sample, frame: 30)
        for (name, p) in points {
            let c = Media.pixel(rgb, width: width, x: Int(p[0]), y: Int(p[1]))
            XCTAssertGreaterThan(c.r, c.g + 60, "\(name) at \(p): \(c)")
            XCTAssertGreaterThan(c.r, c.b + 60, "\(name) at \(p): \(c)")
        }
        // The clock: a dark box with white text in the bottom right corner, where the floor was.
        let corner = (x: 1140, y: 688, w: 120, h: 18)
        let before = Media.mean(input, width: width, x: corner.x, y: corner.y, w: corner.w, h: corner.h)
        let after = Media.mean(rgb, width: width, x: corner.x, y: corner.y, w: corner.w, h: corner.h)
        XCTAssertGreaterThan(before.g, 80)
        XCTAssertLessThan(after.g, before.g - 30, "the label box darkens the corner: \(before) -> \(after)")
        var bright = 0
        for y in corner.y..<corner.y + corner.h {
            for x in corner.x..<corner.x + corner.w where Media.pixel(rgb, width: width, x: x, y: y).g > 200 { bright += 1 }
        }
        XCTAssertGreaterThan(bright, 50, "white text in the corner")
    }
}
