import XCTest
@testable import Sightline

/// `--dnn-precision`: the arithmetic OpenVINO computes CenterFace in.
final class DNNPrecisionTests: XCTestCase {
    private func streamFaces(_ data: Data) throws -> [String: Any] {
        let stream = try XCTUnwrap(try jsonLines(data).first)
        let analyzers = try XCTUnwrap(stream["analyzers"] as? [String: Any])
        return try XCTUnwrap(analyzers["faces"] as? [String: Any])
    }

    /// bf16 is asked for, recorded, and still finds the sample's faces where the truth has them
    /// (on a CPU without bf16 the plugin computes in f32; either way the boxes must hold).
    func testBF16IsRecordedAndFindsTheSampleFaces() throws {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let run = try sightline("analyze", Fixtures.sample, "-q", "--duration", "1", "--dnn-precision", "bf16")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try streamFaces(run.stdout)["precision"] as? String, "bf16")
        let report = try Auditor().audit(predicted: try RecordFile(jsonLines: run.stdout, path: "bf16"),
                                         truth: try RecordFile(path: Fixtures.sampleTruth))
        let faces = try XCTUnwrap(report.faces)
        XCTAssertGreaterThanOrEqual(faces.detection.recall ?? 0, 0.95)
        XCTAssertEqual(faces.detection.falsePositives, 0)

        // f32, the default, is what every record without the member means.
        let plain = try sightline("analyze", Fixtures.sample, "-q", "--duration", "0.1")
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertNil(try streamFaces(plain.stdout)["precision"])
    }

    func testPrecisionNeedsADNNBackendOnOpenVINO() throws {
        for options in [["--faces", "haar-alt2"], ["--dnn-runtime", "opencv"]] {
            let run = try runProcess(Fixtures.binary, ["analyze", Fixtures.sample, "-q", "--dnn-precision", "bf16"] + options)
            XCTAssertEqual(run.status, 64, run.stderr)
            XCTAssertTrue(run.stderr.contains("--dnn-precision bf16 needs a DNN backend run by OpenVINO"), run.stderr)
        }
    }
}
