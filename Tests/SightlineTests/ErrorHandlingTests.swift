import XCTest
@testable import Sightline

/// Bad input and bad options: one line naming the file and the cause, a documented exit code,
/// and JSON Lines that stay valid for everything already written.
final class ErrorHandlingTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try Fixtures.temporaryDirectory(self)
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func assertFails(_ result: ProcessResult, exit code: Int32, mentions fragments: [String],
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, code, result.stderr, file: file, line: line)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertFalse(result.stderr.contains("Fatal error") || result.stderr.contains("Backtrac"), result.stderr, file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(result.stderr.contains(fragment), "'\(fragment)' not in: \(result.stderr)", file: file, line: line)
        }
        if code != 64 { XCTAssertEqual(lines.count, 1, "expected one line: \(result.stderr)", file: file, line: line) }
    }

    func testMissingFile() throws {
        assertFails(try sightlineBinary("analyze", path("nope.mp4")), exit: 66, mentions: [path("nope.mp4"), "No such file"])
    }

    func testDirectoryInput() throws {
        assertFails(try sightlineBinary("analyze", dir.path), exit: 66, mentions: [dir.path, "directory"])
    }

    func testEmptyFile() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path("empty.mp4"), contents: Data()))
        assertFails(try sightlineBinary("analyze", path("empty.mp4")), exit: 65, mentions: [path("empty.mp4"), "empty"])
    }

    func testNotAVideo() throws {
        try Data("just some text, not a video\n".utf8).write(to: URL(fileURLWithPath: path("notes.mp4")))
        assertFails(try sightlineBinary("analyze", path("notes.mp4")), exit: 65, mentions: [path("notes.mp4"), "not a video"])
    }

    func testNoVideoStream() throws {
        try ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", path("tone.m4a"))
        assertFails(try sightlineBinary("analyze", path("tone.m4a")), exit: 67, mentions: [path("tone.m4a"), "no video stream"])
        assertFails(try sightlineBinary("analyze", Fixtures.sample, "--stream", "3"), exit: 67, mentions: [Fixtures.sample, "stream 3"])
    }

    func testPlaylistsAreRefusedUnlessNetworkIsAllowed() throws {
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n\(Fixtures.sample)\n#EXT-X-ENDLIST\n"
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: path("list.m3u8")))
        assertFails(try sightlineBinary("analyze", path("list.m3u8")), exit: 65, mentions: [path("list.m3u8"), "refused"])
    }

    func testUnwritableOutput() throws {
        let target = path("missing-dir/out.jsonl")
        assertFails(try sightlineBinary("analyze", Fixtures.sample, "-o", target), exit: 73, mentions: [target])
    }

    /// A refused option ends the process with 64 and the reason (the other refusals are checked
    /// in-process by `OptionValidationTests`).
    func testBadOptionValues() throws {
        assertFails(try sightlineBinary("analyze", Fixtures.sample, "--threads", "0"), exit: 64, mentions: ["--threads"])
    }

    func testTruncatedFileKeepsEverythingThatDecoded() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample))
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: path("cut.mp4")))
        let run = try sightlineBinary("analyze", path("cut.mp4"), "-q", "--faces", "off", "-o", path("cut.jsonl"))
        assertFails(run, exit: 2, mentions: [path("cut.mp4"), "truncated"])
        let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path("cut.jsonl"))))
        let summary = try XCTUnwrap(lines.last)
        XCTAssertEqual(summary["type"] as? String, "summary")
        let frames = try XCTUnwrap(summary["frames"] as? Int)
        XCTAssertGreaterThan(frames, 100)
        XCTAssertLessThan(frames, 300)
        XCTAssertEqual(lines.filter { $0["type"] as? String == "frame" }.count, frames)
        XCTAssertTrue((summary["read_error"] as? String ?? "").contains("truncated"))
    }

    func testCorruptPacketsAreSkippedAndCounted() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample)))
        // 40 kB of garbage in the middle of the video data: enough to damage frames whatever the
        // decoder's threading (a few scattered bytes may be concealed without a trace).
        for i in 100_000..<140_000 { bytes[i] = UInt8(truncatingIfNeeded: i &* 7919) }
        try Data(bytes).write(to: URL(fileURLWithPath: path("corrupt.mp4")))
        // One decoder thread: with frame threading, FFmpeg flags concealed damage less reliably.
        let run = try sightlineBinary("analyze", path("corrupt.mp4"), "-q", "--faces", "off", "--decoder-threads", "1",
                                "-o", path("corrupt.jsonl"))
        assertFails(run, exit: 2, mentions: [path("corrupt.mp4"), "corrupt"])
        let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path("corrupt.jsonl"))))
        let summary = try XCTUnwrap(lines.last)
        XCTAssertGreaterThan(summary["corrupt_frames"] as? Int ?? 0, 0)
        XCTAssertEqual(summary["frames"] as? Int, lines.filter { $0["type"] as? String == "frame" }.count)
    }

    /// A network that loads and has CenterFace's outputs but cannot be compiled for a frame (an
    /// OpenVINO IR whose outputs are reshaped to 32x32 whatever the input): every frame's face
    /// status says error, the records are complete, and the run ends with exit code 1 and one
    /// line giving the count and the first error; `anonymize` says faces may be left uncovered.
    func testADetectorFailingOnEveryFrameEndsWithTheFirstErrorAndCompleteOutput() throws {
        let model = try brokenCenterFace()
        let run = try sightlineBinary("analyze", Fixtures.sample, "-q", "--duration", "0.2", "--codes", "off",
                                      "--dnn-precision", "f32", "--face-model", model, "-o", path("failed.jsonl"))
        let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path("failed.jsonl"))))
        let frames = lines.filter { $0["type"] as? String == "frame" }
        XCTAssertEqual(frames.count, 6)
        XCTAssertTrue(frames.allSatisfy { ($0["status"] as? [String: Any])?["faces"] as? String == "error" }, "\(frames)")
        // One a frame written: not those of the frames after the span, analyzed to look back.
        XCTAssertEqual(lines.last?["analyzer_errors"] as? Int, 6)
        assertFails(run, exit: 1, mentions: [Fixtures.sample, "analysis failed: 6 analyzer errors, the first: frame 0:",
                                             "broken.xml: it does not take a 640x352 colour image"])

        try ffmpeg("-i", Fixtures.sample, "-t", "0.2", "-c", "copy", path("short.mp4"))
        let anonymized = try sightlineBinary("anonymize", path("short.mp4"), "-o", path("failed.mp4"), "-q", "--face-model", model)
        assertFails(anonymized, exit: 1, mentions: [path("short.mp4"), "analysis failed", "may be left uncovered"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("failed.mp4")))
    }

    /// An OpenVINO IR with one image input and CenterFace's four outputs, each the input reshaped
    /// to 1x3x32x32: it reads, but compiles for no frame size the detector asks for.
    private func brokenCenterFace() throws -> String {
        var target = [Int64](arrayLiteral: 1, 3, 32, 32)
        try Data(bytes: &target, count: 32).write(to: URL(fileURLWithPath: path("broken.bin")))
        let dims = { (values: [Int]) in values.map { "<dim>\($0)</dim>" }.joined() }
        let outputs = ["537", "538", "539", "540"]
        let reshapes = outputs.enumerated().map { i, name in
            """
            <layer id="\(2 + i)" name="reshape\(name)" type="Reshape" version="opset1"><data special_zero="false"/>
            <input><port id="0" precision="FP32">\(dims([1, 3, -1, -1]))</port><port id="1" precision="I64">\(dims([4]))</port></input>
            <output><port id="2" precision="FP32" names="\(name)">\(dims([1, 3, 32, 32]))</port></output></layer>
            <layer id="\(6 + i)" name="out\(name)" type="Result" version="opset1">
            <input><port id="0" precision="FP32">\(dims([1, 3, 32, 32]))</port></input></layer>
            """
        }.joined(separator: "\n")
        let edges = outputs.indices.map { i in
            """
            <edge from-layer="0" from-port="0" to-layer="\(2 + i)" to-port="0"/>
            <edge from-layer="1" from-port="0" to-layer="\(2 + i)" to-port="1"/>
            <edge from-layer="\(2 + i)" from-port="2" to-layer="\(6 + i)" to-port="0"/>
            """
        }.joined(separator: "\n")
        let xml = """
            <?xml version="1.0"?>
            <net name="broken" version="11"><layers>
            <layer id="0" name="input.1" type="Parameter" version="opset1"><data shape="1,3,?,?" element_type="f32"/>
            <output><port id="0" precision="FP32" names="input.1">\(dims([1, 3, -1, -1]))</port></output></layer>
            <layer id="1" name="shape" type="Const" version="opset1"><data element_type="i64" shape="4" offset="0" size="32"/>
            <output><port id="0" precision="I64">\(dims([4]))</port></output></layer>
            \(reshapes)
            </layers><edges>
            \(edges)
            </edges></net>
            """
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path("broken.xml")))
        return path("broken.xml")
    }

    func testInterruptFinishesTheRecordsAndSaysSo() throws {
        let process = try startSightline(["analyze", Fixtures.sample, "-q", "--threads", "1", "-o", path("int.jsonl")])
        waitForLines(5, in: path("int.jsonl"), of: process, timeout: 60)   // frames are being written
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path("int.jsonl"))))
        let summary = try XCTUnwrap(lines.last)
        XCTAssertEqual(summary["type"] as? String, "summary")
        XCTAssertEqual(summary["interrupted"] as? Bool, true)
        let frames = try XCTUnwrap(summary["frames"] as? Int)
        XCTAssertLessThan(frames, 300)
        XCTAssertEqual(lines.filter { $0["type"] as? String == "frame" }.map { $0["index"] as? Int }, Array(0..<frames))
        // Tracks still open at the interruption are closed and written before the summary.
        XCTAssertEqual(lines.filter { $0["type"] as? String == "track" }.count, summary["tracks"] as? Int)
    }
}
