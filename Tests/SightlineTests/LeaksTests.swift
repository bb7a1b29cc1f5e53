import Foundation
import XCTest
@testable import Sightline

/// The identity check of `sightline leaks`, in-process on 10 frames of the sample (two faces of
/// 83 and 108 px): a video against itself leaks every face it compares, and a face blacked out
/// leaks nothing; inputs that are not the same frames are refused. (The three checks against
/// real anonymizations: `AnonymizeTests`.)
final class LeaksTests: XCTestCase {
    /// The sample's first 10 frames, and a copy whose faces are blacked out from frame 5 on (the
    /// truth's boxes with a margin), made once per test process.
    private static let clips: Result<(plain: String, covered: String, short: String), Error> = Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-leaks-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let plain = dir.appendingPathComponent("plain.mp4").path, covered = dir.appendingPathComponent("covered.mp4").path
        let short = dir.appendingPathComponent("short.mp4").path
        // Re-encoded once, losslessly afterwards: the clips differ only where the boxes are drawn.
        try ffmpeg("-i", Fixtures.sample, "-frames:v", "10", "-an", "-c:v", "libx264", "-qp", "0", plain)
        try ffmpeg("-i", plain, "-vf", "drawbox=x=40:y=520:w=190:h=180:c=black:t=fill:enable='gte(n,5)',"
                   + "drawbox=x=1060:y=50:w=170:h=150:c=black:t=fill:enable='gte(n,5)'", "-c:v", "libx264", "-qp", "0", covered)
        try ffmpeg("-i", plain, "-frames:v", "8", "-c:v", "libx264", "-qp", "0", short)
        return (plain, covered, short)
    }

    private func audit(_ original: String, _ anonymized: String) throws -> LeakReport {
        var faces = FaceDetectorOptions(backend: .centerface, minFace: 16, detectWidth: 0)
        faces.precision = .f32
        faces.threshold = 0.3
        var options = LeakAuditOptions(faces: try faces.resolve(), secondFaces: nil)
        options.checks = [.identity]
        options.threads = 2
        return try LeakAudit.run(original: original, anonymized: anonymized, options: options) { try VideoFileSource(path: $0) }
    }

    func testAVideoAgainstItselfLeaksEveryFaceAndABlackedOutFaceNone() throws {
        let clips = try Self.clips.get()
        let same = try audit(clips.plain, clips.plain)
        XCTAssertEqual(same.frames, 10)
        XCTAssertEqual(same.checks.map(\.check), [.identity])
        let check = try XCTUnwrap(same.checks.first)
        XCTAssertEqual(check.originalFaces, 20, "both faces on every frame, each over 24 px")
        XCTAssertEqual(check.leaks.count, 20)
        XCTAssertEqual(Set(check.leaks.map(\.frame)), Set(0..<10))
        for leak in check.leaks {
            XCTAssertGreaterThan(leak.score, 0.99, "the same pixels: the same embedding")
            XCTAssertNil(leak.original)
        }

        let covered = try XCTUnwrap(try audit(clips.plain, clips.covered).checks.first)
        XCTAssertEqual(covered.originalFaces, 20)
        XCTAssertEqual(Set(covered.leaks.map(\.frame)), Set(0..<5), "frames 0–4 are untouched, 5–9 blacked out")
        XCTAssertEqual(covered.leaks.count, 10)
        XCTAssertEqual(covered.leakedFrames, 5)
    }

    func testOtherFramesAreRefused() throws {
        let clips = try Self.clips.get()
        XCTAssertThrowsError(try audit(clips.plain, clips.short)) { error in
            XCTAssertEqual("\(error)", "\(clips.short): not the frames of the original: 8 frames, the original \(clips.plain) has 10")
        }
        XCTAssertThrowsError(try audit(clips.short, clips.plain)) { error in
            XCTAssertEqual("\(error)", "\(clips.plain): not the frames of the original: 10 frames, the original \(clips.short) has 8")
        }
        // Another size is refused before any frame is read.
        let small = try Fixtures.temporaryDirectory(self).appendingPathComponent("small.mp4").path
        try ffmpeg("-i", clips.plain, "-vf", "scale=640:360", small)
        XCTAssertThrowsError(try audit(clips.plain, small)) { error in
            XCTAssertTrue("\(error)".contains("frames of 640x360, the original \(clips.plain) has 1280x720"), "\(error)")
        }
    }

    func testChecksAreChosenAndAMissingSecondModelSaysWhatToDo() throws {
        let env = ["XDG_CACHE_HOME": try Fixtures.temporaryDirectory(self).path, "SIGHTLINE_MODELS": ""]
        guard ModelStore(environment: ProcessInfo.processInfo.environment.merging(env) { $1 }).installedPath(try XCTUnwrap(KnownModel.named("yunet"))) == nil else {
            throw XCTSkip("YuNet is installed in the system models folder")
        }
        let clips = try Self.clips.get()
        let missing = sightline(["leaks", clips.plain, clips.plain], environment: env)
        XCTAssertEqual(missing.status, 69)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("sightline models fetch yunet"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--checks detector,identity"), missing.stderr)
        for bad in [["--checks", "detector,faces"], ["--checks", ""], ["--second-faces", "centerface"], ["--checks", "identity", "--faces", "ultraface"],
                    ["--identity-threshold", "0"], ["--second-threshold", "1.5"]] {
            let run = sightline(["leaks", clips.plain, clips.plain] + bad, environment: env)
            XCTAssertEqual(run.status, 64, "\(bad): \(run.stderr)")
        }
    }
}
