import Foundation
@testable import Sightline
import XCTest

/// `sightline capture` of a network stream, against a real sender on the loopback interface:
/// ffmpeg sending the sample as MPEG-TS over UDP, stopped and started again mid-stream.
final class NetworkCaptureTests: XCTestCase {
    private let port = Int.random(in: 20_000..<60_000)
    private var url: String { "udp://127.0.0.1:\(port)" }

    /// ffmpeg sending `seconds` of the sample from `start` at its real rate (waits until done).
    private func send(from start: Double, seconds: Double) throws {
        let run = try runProcess("/usr/bin/ffmpeg", senderArguments(from: start, seconds: seconds))
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    private func senderArguments(from start: Double, seconds: Double) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-ss", String(start), "-t", String(seconds),
         "-i", Fixtures.sample, "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
         "-g", "15", "-threads", "1", "-f", "mpegts", url + "?pkt_size=1316"]
    }

    /// The frames a stream sends before the run asks for its first (while the networks are made
    /// ready) are read and passed over, not handed on later as a burst already late: they are
    /// counted, the first frame is the newest read, and the next ones follow it without a gap.
    func testFramesBeforeTheStartArePassedOverNotQueued() throws {
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        sender.arguments = senderArguments(from: 0, seconds: 6)
        try sender.run()
        defer { sender.terminate(); sender.waitUntilExit() }
        let source = try NetworkSource(options: NetworkOptions(url: url, maxFrames: 10))
        usleep(1_500_000)   // the stream goes on meanwhile: about 45 frames
        var frames: [VideoFrame] = []
        while let frame = try source.nextFrame() { frames.append(frame) }
        XCTAssertEqual(frames.map(\.index), Array(0..<10))
        XCTAssertGreaterThanOrEqual(source.framesBeforeStart, 20)
        // 30 frames a second on the MPEG-TS clock (90 kHz): 3000 ticks apart, none missing.
        XCTAssertEqual(zip(frames, frames.dropFirst()).map { $1.pts - $0.pts }, Array(repeating: 3000, count: 9))
        XCTAssertEqual(source.lostFrames, 0)
    }

    /// The sender stops for 2.5 s and starts again (a new clock). Capture goes on: records before
    /// and after, a discontinuity record saying it reconnected and how many frames the gap cost,
    /// the summary counting them in lost_frames, t increasing throughout, the codes found again,
    /// and a clean end on SIGINT.
    func testUDPStreamThatDropsIsOpenedAgainAndTheGapCounted() throws {
        let (lines, stderr) = try captureWithPause(2.5)
        XCTAssertTrue(stderr.contains("the stream dropped; opening it again"), stderr)
        XCTAssertTrue(stderr.contains("the stream is back after"), stderr)
        let frames = lines.filter { $0["type"] as? String == "frame" }
        let reconnects = lines.filter { $0["type"] as? String == "discontinuity" && $0["reconnect"] != nil }
        XCTAssertEqual(reconnects.count, 1, "\(lines.filter { $0["type"] as? String == "discontinuity" })")
        let at = try XCTUnwrap(reconnects.first?["index"] as? Int)
        let reconnect = try XCTUnwrap(reconnects.first?["reconnect"] as? [String: Any])
        let seconds = try XCTUnwrap((reconnect["seconds"] as? NSNumber)?.doubleValue)
        XCTAssertGreaterThan(seconds, 2.3, "the sender was away for 2.5 s")
        XCTAssertLessThan(seconds, 5)
        let lost = try XCTUnwrap(reconnect["lost_frames"] as? Int)
        XCTAssertEqual(Double(lost), seconds * 30, accuracy: 2)
        try checkGap(lines, frames: frames, at: at, seconds: seconds, lost: lost)
    }

    /// The sender is away for 0.8 s only: the connection stays (no reconnection), the new
    /// sender's clock restarts. A discontinuity record with the clock jump; the gap is on the
    /// timeline and its frames are counted as lost all the same.
    func testUDPSenderRestartingQuicklyIsAClockJumpAndTheGapCounted() throws {
        let (lines, stderr) = try captureWithPause(0.8)
        XCTAssertFalse(stderr.contains("opening it again"), stderr)
        let frames = lines.filter { $0["type"] as? String == "frame" }
        let discontinuities = lines.filter { $0["type"] as? String == "discontinuity" }
        XCTAssertEqual(discontinuities.count, 1, "\(discontinuities)")
        XCTAssertNotNil(discontinuities.first?["clock"])
        XCTAssertNil(discontinuities.first?["reconnect"])
        let at = try XCTUnwrap(discontinuities.first?["index"] as? Int)
        let gap = try XCTUnwrap((frames.first { $0["index"] as? Int == at }?["t"] as? NSNumber)?.doubleValue)
            - (try XCTUnwrap((frames.first { $0["index"] as? Int == at - 1 }?["t"] as? NSNumber)?.doubleValue))
        XCTAssertGreaterThan(gap, 0.7, "the sender was away for 0.8 s")
        XCTAssertLessThan(gap, 3)
        // The gap's frames, and any the new sender's first packets lacked a key frame for.
        let lost = try XCTUnwrap(lines.last?["lost_frames"] as? Int)
        XCTAssertGreaterThanOrEqual(lost, Int(gap * 30) - 3)
        XCTAssertLessThanOrEqual(lost, Int(gap * 30) + 15)
        try checkGap(lines, frames: frames, at: at, seconds: gap, lost: lost)
    }

    /// Records before and after the gap at frame `at`, t increasing with the gap on the
    /// timeline, the summary's counts, the QR code read on both sides, no track across.
    private func checkGap(_ lines: [[String: Any]], frames: [[String: Any]], at: Int, seconds: Double, lost: Int) throws {
        let before = frames.filter { ($0["index"] as? Int ?? 0) < at }, after = frames.filter { ($0["index"] as? Int ?? 0) >= at }
        // Each sender sends 60 frames; those read while a stream is probed (up to about a second
        // of them) are not kept.
        XCTAssertGreaterThanOrEqual(before.count, 15)
        XCTAssertGreaterThanOrEqual(after.count, 15)
        let t = frames.compactMap { ($0["t"] as? NSNumber)?.doubleValue }
        XCTAssertEqual(t.count, frames.count)
        XCTAssertTrue(zip(t, t.dropFirst()).allSatisfy { $0 < $1 }, "t not strictly increasing")
        let gap = try XCTUnwrap((after.first?["t"] as? NSNumber)?.doubleValue) - (try XCTUnwrap((before.last?["t"] as? NSNumber)?.doubleValue))
        XCTAssertEqual(gap, seconds, accuracy: 0.05)
        let summary = try XCTUnwrap(lines.last)
        XCTAssertEqual(summary["type"] as? String, "summary")
        XCTAssertEqual(summary["interrupted"] as? Bool, true)
        XCTAssertGreaterThanOrEqual(summary["lost_frames"] as? Int ?? 0, lost)
        XCTAssertEqual(summary["frames"] as? Int, frames.count)
        func readsQR(_ frames: [[String: Any]]) -> Bool {
            frames.contains { ($0["codes"] as? [[String: Any]] ?? []).contains { $0["text"] as? String == "https://example.org/sightline/qr-1" } }
        }
        XCTAssertTrue(readsQR(before))
        XCTAssertTrue(readsQR(after))
        for track in lines where track["type"] as? String == "track" {
            let first = try XCTUnwrap(track["first_frame"] as? Int), last = try XCTUnwrap(track["last_frame"] as? Int)
            XCTAssertTrue(last < at || first >= at, "\(track)")
        }
    }

    /// Captures while ffmpeg sends 2 s of the sample, stops for `pause` seconds, and sends 2 s
    /// more (a new process: a new clock); then SIGINT. The records (validated) and standard error.
    private func captureWithPause(_ pause: Double) throws -> (lines: [[String: Any]], stderr: String) {
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("live.jsonl").path
        let errPath = dir.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errPath.path, contents: nil)
        let capture = Process()
        capture.executableURL = URL(fileURLWithPath: Fixtures.binary)
        capture.arguments = ["capture", url, "-o", out, "--faces", "off"]
        capture.standardError = try FileHandle(forWritingTo: errPath)
        try capture.run()
        usleep(300_000)
        try send(from: 0, seconds: 2)
        usleep(useconds_t(pause * 1_000_000))
        try send(from: 5, seconds: 2)
        usleep(500_000)
        XCTAssertTrue(capture.isRunning, "capture ended by itself")
        kill(capture.processIdentifier, SIGINT)
        XCTAssertTrue(waitForExit(of: capture, timeout: 20), "capture did not stop on SIGINT")
        if capture.isRunning { capture.terminate() }
        capture.waitUntilExit()
        let stderr = String(decoding: try Data(contentsOf: errPath), as: UTF8.self)
        XCTAssertEqual(capture.terminationStatus, 0, stderr)
        let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: out)))
        let script = Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path
        let valid = try runProcess("/usr/bin/python3", ["-W", "ignore", script, out])
        XCTAssertEqual(valid.status, 0, valid.stdoutText + valid.stderr)
        XCTAssertEqual(lines.first?["source"] as? String, url)
        return (lines, stderr)
    }

    /// analyze keeps refusing network URLs; capture refuses other schemes, and a stream that
    /// never comes is a missing input: one line each, the documented codes.
    func testNetworkURLsAreOptInAndAMissingStreamIsOneLine() throws {
        let analyze = sightline("analyze", url, "-q", "-o", "/dev/null")
        XCTAssertEqual(analyze.status, 66, analyze.stderr)
        XCTAssertEqual(analyze.stderr.split(separator: "\n").count, 1, analyze.stderr)
        XCTAssertTrue(analyze.stderr.contains("network URLs are not opened here"), analyze.stderr)
        let http = sightline("capture", "http://127.0.0.1:\(port)/cam", "-q", "-o", "/dev/null")
        XCTAssertEqual(http.status, 64, http.stderr)
        let started = Date()
        let silent = sightline("capture", url, "-q", "-o", "/dev/null", "--faces", "off")
        XCTAssertEqual(silent.status, 66, silent.stderr)
        XCTAssertEqual(silent.stderr.split(separator: "\n").count, 1, silent.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
    }
}
