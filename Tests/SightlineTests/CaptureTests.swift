import Foundation
import XCTest
@testable import Sightline

/// A fake V4L2 camera for the capture tests: Tests/FakeCamera/fake_v4l2.c, built once per run and
/// preloaded into `sightline`, answers for one device path the way a UVC camera driver would,
/// under libv4l2. Its picture is frame 0 of the sample video, whose truth is known.
enum FakeCamera {
    static let device = "/dev/video-sightline-fake"

    struct Build {
        let library: String
        let picture: String
    }

    private static let build = Result<Build, Error> {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-fake-camera-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let library = dir.appendingPathComponent("libfake_v4l2.so").path
        let source = Fixtures.repo.appendingPathComponent("Tests/FakeCamera/fake_v4l2.c").path
        // The Swift toolchain brings clang; a system C compiler will do as well.
        var errors: [String] = []
        for compiler in ["clang", "cc"] {
            let run = try runProcess("/usr/bin/env", [compiler, "-shared", "-fPIC", "-O2", "-o", library, source, "-ldl", "-lpthread"])
            if run.status == 0 { break }
            errors.append("\(compiler): \(run.stderr)")
        }
        guard FileManager.default.fileExists(atPath: library) else { throw "cannot build the fake camera: \(errors.joined(separator: "; "))" }
        let picture = dir.appendingPathComponent("frame0.yuyv").path
        try ffmpeg("-i", Fixtures.sample, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuyv422", picture)
        return Build(library: library, picture: picture)
    }

    /// The environment that makes `sightline` see the fake camera at `device`.
    static func environment(fps: Int = 30, fail: String? = nil) throws -> [String: String] {
        let build = try build.get()
        var env = ["LD_PRELOAD": build.library, "SLV_FAKE_DEVICE": device, "SLV_FAKE_FRAME": build.picture,
                   "SLV_FAKE_SIZE": "1280x720", "SLV_FAKE_FPS": String(fps)]
        env["SLV_FAKE_FAIL"] = fail
        return env
    }

    static func sightline(_ arguments: [String], fps: Int = 30, fail: String? = nil) throws -> ProcessResult {
        try runProcess(Fixtures.binary, arguments, environment: try environment(fps: fps, fail: fail))
    }
}

final class CaptureTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.temporaryDirectory(self) }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func records(_ name: String) throws -> [[String: Any]] {
        try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    private func frames(_ lines: [[String: Any]]) -> [[String: Any]] { lines.filter { $0["type"] as? String == "frame" } }

    private func status(_ frame: [String: Any]) -> String? { (frame["status"] as? [String: String])?["faces"] }

    private func assertValidRecords(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let validation = try runProcess("/usr/bin/python3", [Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path, path(name)])
        XCTAssertEqual(validation.status, 0, validation.stdoutText + validation.stderr, file: file, line: line)
    }

    func testCaptureFindsThePayloadsAndFacesOfTheCameraPicture() throws {
        let run = try FakeCamera.sightline(["capture", "--device", FakeCamera.device, "--frames", "20", "--no-drop",
                                            "-q", "-o", path("cap.jsonl")])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        try assertValidRecords("cap.jsonl")
        let lines = try records("cap.jsonl")
        let stream = try XCTUnwrap(lines.first)
        XCTAssertEqual(stream["container"] as? String, "v4l2")
        XCTAssertEqual(stream["width"] as? Int, 1280)
        XCTAssertEqual(stream["height"] as? Int, 720)
        XCTAssertEqual((stream["camera"] as? [String: Any])?["card"] as? String, "Sightline Test Camera")
        XCTAssertEqual(stream["time_base"] as? [Int], [1, 1_000_000])

        let captured = frames(lines)
        XCTAssertEqual(captured.map { $0["index"] as? Int }, Array(0..<20))
        // Timestamps from the driver, from the first frame: 0, then one frame period (1/30 s) apart.
        let pts = captured.compactMap { $0["pts"] as? Int }
        XCTAssertEqual(pts.first, 0)
        for (a, b) in zip(pts, pts.dropFirst()) {
            XCTAssertEqual(Double(b - a), 33_333, accuracy: 1, "pts \(a) then \(b)")
        }

        // Every frame shows frame 0 of the sample: its codes, and its faces where the truth has them.
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames[0]
        let file = try RecordFile(path: path("cap.jsonl"))
        XCTAssertEqual(file.frames.count, 20)
        for frame in file.frames {
            XCTAssertEqual(frame.faceStatus, .ok)
            XCTAssertEqual(Set(frame.codes.map(\.text)), Set(truth.codes.map(\.text)), "frame \(frame.index)")
            XCTAssertEqual(frame.faces.count, truth.faces.count, "frame \(frame.index)")
            for face in truth.faces {
                XCTAssertGreaterThan(frame.faces.map { $0.box.iou(face.box) }.max() ?? 0, 0.7, "frame \(frame.index)")
            }
        }
        let summary = try XCTUnwrap(lines.last)
        XCTAssertEqual(summary["frames"] as? Int, 20)
        XCTAssertEqual(summary["dropped_frames"] as? Int, 0)
        XCTAssertEqual(summary["lost_frames"] as? Int, 0)
    }

    func testFramesTheAnalyzersCannotKeepUpWithAreSearchedAroundTheirObjectsOrDropped() throws {
        // 240 frames a second into one analysis thread: most frames find the analyzer busy. Those
        // right behind an analyzed frame are searched around its faces and codes; the rest, too
        // late for that, are dropped, and every frame stays on the timeline.
        let run = try FakeCamera.sightline(["capture", "--device", FakeCamera.device, "--frames", "120", "--threads", "1",
                                            "-q", "-o", path("fast.jsonl")], fps: 240)
        XCTAssertEqual(run.status, 0, run.stderr)
        try assertValidRecords("fast.jsonl")
        let lines = try records("fast.jsonl")
        let captured = frames(lines)
        XCTAssertEqual(captured.map { $0["index"] as? Int }, Array(0..<120))
        let pts = captured.compactMap { $0["pts"] as? Int }
        XCTAssertEqual(pts, pts.sorted())
        XCTAssertEqual(Set(pts).count, 120)

        let dropped = captured.filter { status($0) == "dropped" }
        let analyzed = captured.filter { status($0) == "ok" }
        let searched = captured.filter { status($0) == "refined" }
        XCTAssertGreaterThan(dropped.count, 0)
        XCTAssertGreaterThan(analyzed.count, 0)
        XCTAssertGreaterThan(searched.count, 0)
        XCTAssertEqual(dropped.count + analyzed.count + searched.count, 120)
        for frame in dropped {
            XCTAssertEqual((frame["faces"] as? [Any])?.count, 0)
            XCTAssertEqual((frame["codes"] as? [Any])?.count, 0)
        }
        // The camera shows one picture: a searched frame finds what the analyzed frames found.
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames[0]
        for frame in analyzed + searched {
            XCTAssertEqual((frame["codes"] as? [[String: Any]])?.compactMap { $0["text"] as? String }.sorted(),
                           ["5901234123457", "https://example.org/sightline/qr-1"], "frame \(frame["index"] ?? "")")
            XCTAssertEqual((frame["faces"] as? [Any])?.count, truth.faces.count, "frame \(frame["index"] ?? "")")
        }
        XCTAssertEqual(lines.last?["dropped_frames"] as? Int, dropped.count)

        // --no-drop: the same camera, every frame analyzed.
        let all = try FakeCamera.sightline(["capture", "--device", FakeCamera.device, "--frames", "60", "--threads", "1",
                                            "--no-drop", "-q", "-o", path("all.jsonl")], fps: 240)
        XCTAssertEqual(all.status, 0, all.stderr)
        let allFrames = frames(try records("all.jsonl"))
        XCTAssertEqual(allFrames.count, 60)
        XCTAssertTrue(allFrames.allSatisfy { status($0) == "ok" })

        // With a detection stride, a detection frame that finds the analyzer busy passes the full
        // detection on to the next frame it takes: full detections stay at least 5 frames apart.
        let strided = try FakeCamera.sightline(["capture", "--device", FakeCamera.device, "--frames", "120", "--threads", "1",
                                                "--detect-every", "5", "-q", "-o", path("stride.jsonl")], fps: 240)
        XCTAssertEqual(strided.status, 0, strided.stderr)
        let stridedFrames = frames(try records("stride.jsonl"))
        XCTAssertEqual(stridedFrames.first.flatMap(status), "ok")
        let detections = stridedFrames.filter { status($0) == "ok" }.compactMap { $0["index"] as? Int }
        XCTAssertGreaterThan(detections.count, 1)
        for (a, b) in zip(detections, detections.dropFirst()) { XCTAssertGreaterThanOrEqual(b - a, 5, "\(detections)") }
        XCTAssertTrue(stridedFrames.contains { status($0) == "refined" })
    }

    func testMirrorTurnsTheGeometryLeftToRight() throws {
        let run = try FakeCamera.sightline(["capture", "--device", FakeCamera.device, "--frames", "3", "--mirror", "--no-drop",
                                            "-q", "-o", path("mirror.jsonl")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames[0]
        let frame = try XCTUnwrap(RecordFile(path: path("mirror.jsonl")).frames.first)
        XCTAssertEqual(frame.faces.count, truth.faces.count)
        for face in truth.faces {
            let b = face.box
            let mirrored = Box(x: 1280 - b.x - b.w, y: b.y, w: b.w, h: b.h)
            XCTAssertGreaterThan(frame.faces.map { $0.box.iou(mirrored) }.max() ?? 0, 0.7)
        }
        for code in frame.codes {
            let original = try XCTUnwrap(truth.codes.first { $0.text == code.text })
            XCTAssertEqual(code.box.x, 1280 - original.box.x - original.box.w, accuracy: 3)
            XCTAssertEqual(code.box.y, original.box.y, accuracy: 3)
        }
        XCTAssertEqual((try records("mirror.jsonl").first?["camera"] as? [String: Any])?["mirror"] as? Bool, true)
    }

    func testDeviceErrorsGiveOneLineAndTheirExitCode() throws {
        let cases: [(fail: String?, device: String, extra: [String], code: Int32, fragments: [String])] = [
            ("open:EACCES", FakeCamera.device, [], 77, ["permission denied"]),
            ("open:EBUSY", FakeCamera.device, [], 75, ["busy"]),
            ("S_FMT:EBUSY", FakeCamera.device, [], 75, ["busy", "set the format"]),
            ("S_FMT:EINVAL", FakeCamera.device, [], 69, ["set the format", "Invalid argument"]),
            ("STREAMON:EBUSY", FakeCamera.device, [], 75, ["busy", "start streaming"]),
            (nil, FakeCamera.device, ["--size", "640x480"], 69, ["640x480", "1280x720"]),
            (nil, FakeCamera.device, ["--fps", "60"], 69, ["60 fps"]),
            (nil, "/dev/video-sightline-missing", [], 66, ["no such camera device"]),
            (nil, "/dev/null", [], 67, ["not a V4L2 device"]),
        ]
        for c in cases {
            let output = path("err.jsonl")
            let run = try FakeCamera.sightline(["capture", "--device", c.device, "--frames", "5", "-q", "-o", output] + c.extra,
                                               fail: c.fail)
            let label = c.fail ?? c.extra.joined(separator: " ")
            XCTAssertEqual(run.status, c.code, "\(label): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(label): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(c.device), "\(label): \(run.stderr)")
            for fragment in c.fragments { XCTAssertTrue(run.stderr.contains(fragment), "\(label): \(run.stderr)") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "\(label): no output for a camera that never started")
        }
    }

    func testACameraThatDisappearsLeavesCompleteRecordsAndVideo() throws {
        let run = try FakeCamera.sightline(["capture", "--device", FakeCamera.device, "--no-drop", "-q",
                                            "-o", path("gone.jsonl"), "--record", path("gone.mp4")], fail: "DQBUF:ENODEV@10")
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("capture stopped"), run.stderr)
        try assertValidRecords("gone.jsonl")
        let lines = try records("gone.jsonl")
        XCTAssertEqual(frames(lines).count, 10)
        XCTAssertNotNil(lines.last?["read_error"] as? String)
        let video = try Media.decodedFrames(path("gone.mp4"))
        XCTAssertEqual(video.pts.count, 10)
        XCTAssertEqual(video.errors, "")

        // Frames libv4l2 cannot convert are skipped and counted; a camera sending only those ends the run.
        let garbage = try FakeCamera.sightline(["capture", "--device", FakeCamera.device, "--no-drop", "-q", "-o", path("bad.jsonl")],
                                               fail: "DQBUF:EAGAIN@5")
        XCTAssertEqual(garbage.status, 2, garbage.stderr)
        XCTAssertTrue(garbage.stderr.contains("could not convert"), garbage.stderr)
        let summary = try XCTUnwrap(try records("bad.jsonl").last)
        XCTAssertEqual(summary["frames"] as? Int, 5)
        XCTAssertEqual(summary["corrupt_frames"] as? Int, 100)
    }

    func testInterruptFinishesRecordsAndRecordingAndPauseLeavesFramesOut() throws {
        let jsonl = path("live.jsonl"), mp4 = path("live.mp4")
        let process = try startSightline(["capture", "--device", FakeCamera.device, "--no-drop", "-q", "-o", jsonl, "--record", mp4],
                                         environment: try FakeCamera.environment())
        waitForLines(16, in: jsonl, of: process, timeout: 60)
        kill(process.processIdentifier, SIGUSR1)   // pause the recording
        waitForLines(31, in: jsonl, of: process, timeout: 60)
        kill(process.processIdentifier, SIGUSR1)   // resume
        waitForLines(46, in: jsonl, of: process, timeout: 60)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)

        try assertValidRecords("live.jsonl")
        let lines = try records("live.jsonl")
        let summary = try XCTUnwrap(lines.last)
        XCTAssertEqual(summary["type"] as? String, "summary")
        XCTAssertEqual(summary["interrupted"] as? Bool, true)
        let captured = frames(lines)
        XCTAssertGreaterThanOrEqual(captured.count, 45)

        // The recording decodes cleanly; the paused stretch is missing from it, and every frame it
        // has is a captured frame, at the captured frame's time.
        let video = try Media.decodedFrames(mp4)
        XCTAssertEqual(video.errors, "")
        XCTAssertGreaterThan(video.pts.count, 10)
        XCTAssertLessThan(video.pts.count, captured.count - 10)
        let capturedPTS = Set(captured.compactMap { $0["pts"] as? Int }.map(Int64.init))
        XCTAssertTrue(Set(video.pts).isSubset(of: capturedPTS))
    }

    func testDevicesListsTheCameraAndSaysSoWhenThereIsNone() throws {
        let listed = try FakeCamera.sightline(["devices", "--device", FakeCamera.device])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdoutText.contains("Sightline Test Camera"), listed.stdoutText)
        XCTAssertTrue(listed.stdoutText.contains("YUYV"), listed.stdoutText)
        XCTAssertTrue(listed.stdoutText.contains("1280x720  30 fps"), listed.stdoutText)

        let json = try FakeCamera.sightline(["devices", "--device", FakeCamera.device, "--json"])
        let camera = try XCTUnwrap(try jsonLines(json.stdout).first)
        let formats = try XCTUnwrap(camera["formats"] as? [[String: Any]])
        XCTAssertEqual(formats.map { $0["fourcc"] as? String }, ["YUYV"])
        XCTAssertTrue((camera["converted_formats"] as? [String] ?? []).contains("YU12"))

        guard CameraCatalog.devicePaths().isEmpty else { throw XCTSkip("this machine has video devices") }
        let none = sightline("devices")
        XCTAssertEqual(none.status, 0)
        XCTAssertTrue(none.stdoutText.hasPrefix("No cameras found"), none.stdoutText)
    }
}
