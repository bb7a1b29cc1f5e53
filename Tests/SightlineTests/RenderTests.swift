import Foundation
import XCTest
@testable import Sightline

/// `analyze --render`: the video with overlays, held against the input and the truth.
final class RenderTests: XCTestCase {
    /// Frame `index` of a video as 8-bit planes: gray (luma) or packed RGB.
    private func picture(_ path: String, frame index: Int, format: String) throws -> Data {
        let run = try runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
                                                    "-f", "rawvideo", "-pix_fmt", format, "-"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout
    }

    /// Variance of the 4-neighbour Laplacian over a box of a 1280-wide gray picture: detail.
    private func laplacianVariance(_ gray: Data, width: Int, box: Box) -> Double {
        let px = [UInt8](gray)
        var values: [Double] = []
        for y in Int(box.y) + 1..<Int(box.y + box.h) - 1 {
            for x in Int(box.x) + 1..<Int(box.x + box.w) - 1 {
                let c = Double(px[y * width + x]) * 4
                let n = Double(px[(y - 1) * width + x]) + Double(px[(y + 1) * width + x]) + Double(px[y * width + x - 1]) + Double(px[y * width + x + 1])
                values.append(n - c)
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        return values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
    }

    func testRenderKeepsFramesAndTimestamps() throws {
        try RenderFixture.ready()
        let out = RenderFixture.video
        XCTAssertEqual(try Media.ptsList(out), try Media.ptsList(Fixtures.sample))
        // The colour description is the input's (BT.709, video range), so players show the same colours.
        func colorTags(_ path: String) throws -> String {
            try runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                "stream=color_range,color_space,color_transfer,color_primaries", "-of", "csv=p=0", path]).stdoutText
        }
        XCTAssertEqual(try colorTags(out), "tv,bt709,bt709,bt709\n")
        XCTAssertEqual(try colorTags(out), try colorTags(Fixtures.sample))

        // Box outlines are drawn in the face colour (green): the middle of each face's left edge.
        // The line is 3 px wide on the edge's pixel, and its colour (chroma) covers 2 columns
        // from the even one: on the edge's own pixel, whether its x is even or odd.
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames[30]
        let rgb = [UInt8](try picture(out, frame: 30, format: "rgb24"))
        let records = try RecordFile(path: RenderFixture.records).frames[30]
        for face in records.faces {
            let x = Int(face.box.x.rounded()), y = Int(face.box.center.y)
            let i = (y * 1280 + x) * 3
            let (r, g, b) = (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
            XCTAssertGreaterThan(g, r + 60, "pixel (\(x), \(y)) is \(r),\(g),\(b)")
            XCTAssertGreaterThan(g, b + 60, "pixel (\(x), \(y)) is \(r),\(g),\(b)")
        }
        XCTAssertEqual(records.faces.count, truth.faces.count)
    }

    func testBlurHidesFacesAndLeavesTheRestAlone() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("blur.mp4").path
        let run = sightline("analyze", Fixtures.sample, "-q", "--duration", "1", "--render", out, "--style", "blur",
                                "--crf", "18", "-o", "/dev/null")
        XCTAssertEqual(run.status, 0, run.stderr)
        let input = try picture(Fixtures.sample, frame: 15, format: "gray")
        let output = try picture(out, frame: 15, format: "gray")
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames[15]
        for face in truth.faces {
            let before = laplacianVariance(input, width: 1280, box: face.box)
            let after = laplacianVariance(output, width: 1280, box: face.box)
            XCTAssertGreaterThan(before, 5 * after, "face detail \(before) -> \(after)")
        }
        // Far from every object (the plain wall, top middle), only encoder noise.
        let a = [UInt8](input), b = [UInt8](output)
        var diff = 0.0, n = 0.0
        for y in 300..<340 { for x in 800..<900 { diff += abs(Double(a[y * 1280 + x]) - Double(b[y * 1280 + x])); n += 1 } }
        XCTAssertLessThan(diff / n, 2.0)
    }

    func testRotationIsKept() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let rotated = dir.appendingPathComponent("rotated.mp4").path
        try ffmpeg("-i", Fixtures.sample, "-t", "0.5", "-c", "copy", "-metadata:s:v", "rotate=90", rotated)
        let out = dir.appendingPathComponent("out.mp4").path
        let run = sightline("analyze", rotated, "-q", "--render", out, "-o", "/dev/null")
        XCTAssertEqual(run.status, 0, run.stderr)
        let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", out])
        let original = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", rotated])
        XCTAssertEqual(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines),
                       original.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertFalse(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    func testKilledRunLeavesAPlayableFile() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("killed.mp4").path
        let records = dir.appendingPathComponent("killed.jsonl").path
        // What is checked is the file a kill leaves: the sample's large faces, without the tiles.
        let process = try startSightline(["analyze", Fixtures.sample, "-q", "--threads", "1", "--min-face", "40", "--render", out, "-o", records])
        waitForLines(150, in: records, of: process)   // about half the frames through: kill
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let decode = try runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", out, "-f", "null", "-"])
        XCTAssertEqual(decode.status, 0, decode.stderr)
        XCTAssertTrue(decode.stderr.isEmpty, decode.stderr)
        XCTAssertGreaterThanOrEqual(try Media.ptsList(out).count, 30, "at least a second of frames survives")
    }

    func testInterruptFinishesTheVideo() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("int.mp4").path
        let records = dir.appendingPathComponent("int.jsonl").path
        let process = try startSightline(["analyze", Fixtures.sample, "-q", "--threads", "1", "--min-face", "40", "--render", out, "-o", records])
        waitForLines(60, in: records, of: process)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let summary = try XCTUnwrap(try RecordFile(path: records).summary)
        XCTAssertTrue(summary.interrupted)
        XCTAssertEqual(try Media.ptsList(out).count, summary.frames)
    }

    func testAudioIsCopiedUnchanged() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let input = try Media.sampleWithAudio(in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        let run = sightline("analyze", input, "-q", "--faces", "off", "--render", out, "-o", "/dev/null")
        XCTAssertEqual(run.status, 0, run.stderr)
        let original = try Media.audioPacketHashes(input), copied = try Media.audioPacketHashes(out)
        XCTAssertGreaterThan(original.count, 50)
        XCTAssertEqual(copied, original, "audio packets must be byte-identical")
    }
}
