import ArgumentParser
import XCTest
@testable import sightline

/// The options several commands share are declared and validated once (SharedDetectionOptions):
/// each command gets its own defaults, and the same value is refused with the same message
/// everywhere. Parsed in-process, as swift-argument-parser's own tests do: no binary is started.
final class OptionValidationTests: XCTestCase {
    /// The commands that take `--min-face`, `--face-width`, `--detect-every` or `--max-gap`, with
    /// the arguments each needs besides.
    private let commands: [(name: String, arguments: [String], takesTrackOptions: Bool)] = [
        ("analyze", ["in.mp4"], true),
        ("anonymize", ["in.mp4", "-o", "out.mp4"], true),
        ("leaks", ["in.mp4", "out.mp4"], false),
        ("scan", ["in.mp4"], false),
        ("snapshot", ["in.mp4", "--at", "1", "-o", "still.png"], false),
    ]

    private func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try SightlineCommand.parseAsRoot(arguments)
            return nil
        } catch {
            XCTAssertEqual(SightlineCommand.exitCode(for: error), .validationFailure, "\(arguments)")
            return SightlineCommand.message(for: error)
        }
    }

    func testEachSharedOptionIsRefusedWithTheSameMessageByEveryCommand() {
        for command in commands {
            let base = [command.name] + command.arguments
            XCTAssertNil(refusal(base), "\(command.name) refused its plain arguments")
            XCTAssertEqual(refusal(base + ["--min-face", "0"]), "--min-face must be between 1 and 100000 pixels, not 0.", command.name)
            XCTAssertEqual(refusal(base + ["--face-width", "16"]), "--face-width must be 0 (full size) or between 32 and 16384, not 16.",
                           command.name)
            guard command.takesTrackOptions else { continue }
            XCTAssertEqual(refusal(base + ["--detect-every", "0"]), "--detect-every must be between 1 and 1000, not 0.", command.name)
            XCTAssertNil(refusal(base + ["--detect-every", "1000"]), command.name)
            XCTAssertEqual(refusal(base + ["--max-gap=-1"]), "--max-gap must be between 0 and 100000 frames, not -1.", command.name)
        }
    }

    func testBadValuesOfAnalyzeOptionsAreRefused() {
        for (arguments, fragment) in [(["--faces", "eigen"], "eigen"), (["--symbologies", "qr,bogus"], "bogus"),
                                      (["--codes", "zbar", "--symbologies", "aztec"], "aztec"), (["--duration=-1"], "--duration"),
                                      (["--threads", "0"], "--threads")] {
            let message = refusal(["analyze", "in.mp4"] + arguments)
            XCTAssertTrue(message?.contains(fragment) == true, "\(arguments): \(message ?? "accepted")")
        }
    }

    func testEachCommandKeepsItsOwnDefaults() throws {
        let analyze = try Analyze.parse(["in.mp4"])
        // centerface from 16 px (small faces on tiles), the other detectors from 40.
        XCTAssertEqual(analyze.detection.detectors.face.size.minFace(for: .centerface), 16)
        XCTAssertEqual(analyze.detection.detectors.face.size.minFace(for: .yunet), 40)
        XCTAssertEqual(try Analyze.parse(["in.mp4", "--min-face", "24"]).detection.detectors.face.size.minFace(for: .yunet), 24)
        XCTAssertEqual(analyze.detection.detectors.face.size.faceWidth, 640)
        XCTAssertEqual(analyze.detection.tracking.tracks.detectEvery, 1)
        XCTAssertEqual(analyze.detection.tracking.tracks.maxGap, 15)

        let anonymize = try Anonymize.parse(["in.mp4", "-o", "out.mp4"])
        XCTAssertEqual(anonymize.detector.size.minFace(for: .centerface), 16)
        XCTAssertEqual(anonymize.detector.size.faceWidth, 640)
        XCTAssertEqual(anonymize.tracks.detectEvery, 2)

        let leaks = try Leaks.parse(["in.mp4", "out.mp4"])
        XCTAssertEqual(leaks.detector.size.minFace(for: .centerface), 16)
        XCTAssertEqual(leaks.detector.size.faceWidth, 0)

        // What the user asks for still reaches the detector's options.
        let asked = try Anonymize.parse(["in.mp4", "-o", "out.mp4", "--min-face", "24", "--face-width", "960"])
        let options = asked.detector.options(threshold: nil, precision: .int8)
        XCTAssertEqual(options.minFace, 24)
        XCTAssertEqual(options.detectWidth, 960)
    }

    /// The precision in effect is known before anything is resolved: int8 becomes f32 where there
    /// is no INT8 network, and the threshold follows it.
    func testPrecisionInEffectFollowsTheNetworkThatRuns() throws {
        let int8 = try Analyze.parse(["in.mp4"]).detection.detectors.faceDetectorOptions()
        XCTAssertEqual(int8.precisionInEffect, .int8)
        let opencv = try Analyze.parse(["in.mp4", "--dnn-runtime", "opencv"]).detection.detectors.faceDetectorOptions()
        XCTAssertEqual(opencv.precisionInEffect, .f32)
        let yunet = try Analyze.parse(["in.mp4", "--faces", "yunet"]).detection.detectors.faceDetectorOptions()
        XCTAssertEqual(yunet.precisionInEffect, .f32)
        XCTAssertNotEqual(int8.effectiveThreshold, opencv.effectiveThreshold)
    }
}
