import XCTest
@testable import Sightline

/// `--dnn-precision`: CenterFace's INT8 network (the default), f32, or bf16 on OpenVINO.
final class DNNPrecisionTests: XCTestCase {

    /// bf16 is asked for, recorded, and still finds the sample's faces where the truth has them
    /// (on a CPU without bf16 the plugin computes in f32; either way the boxes must hold).
    func testBF16IsRecordedAndFindsTheSampleFaces() throws {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let run = sightline("analyze", Fixtures.sample, "-q", "--duration", "1", "--dnn-precision", "bf16", "--min-face", "40")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try faceSettings(run.stdout).string("precision"), "bf16")
        let report = try Auditor().audit(predicted: try RecordFile(jsonLines: run.stdout, path: "bf16"),
                                         truth: try RecordFile(path: Fixtures.sampleTruth))
        let faces = try XCTUnwrap(report.faces)
        XCTAssertGreaterThanOrEqual(faces.detection.recall ?? 0, 0.95)
        XCTAssertEqual(faces.detection.falsePositives, 0)

    }

    /// int8, the default, runs the INT8 network and names it; f32 runs the f32 file; where there
    /// is no INT8 network (OpenCV's runtime) int8 is f32, and the record says so.
    func testTheDefaultIsTheInt8NetworkAndTheRecordNamesIt() throws {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let int8 = sightline("analyze", Fixtures.sample, "-q", "--duration", "0.1")
        XCTAssertEqual(int8.status, 0, int8.stderr)
        let faces = try faceSettings(int8.stdout)
        XCTAssertEqual(faces.string("precision"), "int8")
        XCTAssertEqual(faces.string("sha256"), KnownModel.centerfaceInt8.sha256)
        XCTAssertTrue(faces.string("model")?.hasSuffix("/centerface-int8.onnx") == true, "\(faces)")
        XCTAssertEqual(faces.bool("verified"), true)

        let f32 = sightline("analyze", Fixtures.sample, "-q", "--duration", "0.1", "--dnn-precision", "f32")
        XCTAssertEqual(f32.status, 0, f32.stderr)
        XCTAssertEqual(try faceSettings(f32.stdout).string("precision"), "f32")
        XCTAssertEqual(try faceSettings(f32.stdout).string("sha256"), KnownModel.named("centerface")?.sha256)

        let opencv = sightline("analyze", Fixtures.sample, "-q", "--duration", "0.1", "--dnn-runtime", "opencv", "--min-face", "40")
        XCTAssertEqual(opencv.status, 0, opencv.stderr)
        XCTAssertEqual(try faceSettings(opencv.stdout).string("precision"), "f32")
    }

    /// The INT8 network is shipped, one file for every machine: the source tree's copy, the pin
    /// the runs check, and the one the install checks are the same bytes.
    /// Region searches run their crops through the network four at a time: each crop must give
    /// exactly the faces it gives alone, at both precisions, on this CPU's kernels (a shard, with
    /// other tracks live, batches the same crop with others).
    func testRegionSearchesInBatchesFindWhatEachFindsAlone() throws {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        let source = try VideoFileSource(path: Fixtures.sample)
        let frame = try XCTUnwrap(try source.nextFrame())
        let faces = try XCTUnwrap(truth.first { $0.index == frame.index }?.faces.map(\.box))
        XCTAssertGreaterThanOrEqual(faces.count, 2)
        // Around each face, as the region search crops it, then off-centre and empty places:
        // six crops, a batch of four and two alone.
        var regions = faces.map { Box(x: $0.center.x - $0.w, y: $0.center.y - $0.h, w: 2 * $0.w, h: 2 * $0.h) }
        regions += faces.map { Box(x: $0.x - 10, y: $0.y + 5, w: 1.6 * $0.w, h: 1.6 * $0.w) }
        regions += [Box(x: 0, y: 0, w: 150, h: 150), Box(x: 1100, y: 560, w: 180, h: 160)]
        regions = Array(regions.prefix(6))
        XCTAssertEqual(DNNFaceDetector.batches(of: regions.count), [0..<4, 4..<5, 5..<6])
        for precision in [DNNPrecision.int8, .f32] {
            var options = FaceDetectorOptions()
            options.precision = precision
            let detector = try DNNFaceDetector(options.resolve())
            let together = try detector.detect(frame, regions: regions)
            let alone = try regions.map { try detector.detect(frame, region: $0) }
            XCTAssertEqual(together, alone, "\(precision)")
            XCTAssertGreaterThanOrEqual(together.count { !$0.isEmpty }, faces.count, "\(precision): every face is found in its crop")
        }
    }

    func testTheShippedInt8NetworkIsThePinnedOne() throws {
        let shipped = Fixtures.repo.appendingPathComponent(try XCTUnwrap(KnownModel.centerfaceInt8.shippedAt)).path
        XCTAssertEqual(try SHA256.hex(ofFile: shipped), KnownModel.centerfaceInt8.sha256)
        let install = try String(contentsOfFile: Fixtures.repo.appendingPathComponent("Scripts/deps/build/centerface-int8.sh").path,
                                 encoding: .utf8)
        XCTAssertTrue(install.contains("int8_sha=\(KnownModel.centerfaceInt8.sha256)\n"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: shipped.replacingOccurrences(of: ".onnx", with: ".LICENSE.txt")))
    }

    /// Without the INT8 file the run stops before any output, saying how to make it or go on.
    func testAMissingInt8NetworkIsOneLineWithWhatToDo() throws {
        let empty = try Fixtures.temporaryDirectory(self)
        let run = sightline(["analyze", Fixtures.sample, "-q", "--duration", "0.1"],
                                 environment: ["SIGHTLINE_SYSTEM_MODELS": empty.path, "SIGHTLINE_MODELS": "",
                                               "XDG_CACHE_HOME": empty.path])
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertTrue(run.stderr.contains("centerface-int8.onnx is not installed"), run.stderr)
        XCTAssertTrue(run.stderr.contains("--dnn-precision f32"), run.stderr)
        XCTAssertEqual(run.stdout.count, 0)
    }

    func testPrecisionNeedsADNNBackendOnOpenVINO() throws {
        for options in [["--faces", "haar-alt2"], ["--dnn-runtime", "opencv"]] {
            let run = sightline(["analyze", Fixtures.sample, "-q", "--dnn-precision", "bf16"] + options)
            XCTAssertEqual(run.status, 64, run.stderr)
            XCTAssertTrue(run.stderr.contains("--dnn-precision bf16 needs a DNN backend run by OpenVINO"), run.stderr)
        }
        // int8 (the default) needs nothing: the cascades have no network.
        let haar = sightline(["analyze", Fixtures.sample, "-q", "--duration", "0.1", "--faces", "haar-alt2", "--dnn-precision", "int8"])
        XCTAssertEqual(haar.status, 0, haar.stderr)
    }
}
