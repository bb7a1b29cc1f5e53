import Foundation
import XCTest
@testable import Sightline

/// The INT8 CenterFace network (`--dnn-precision int8`, the default) held to f32 on the scenes
/// whose truth is exact: every face f32 finds is found, no false positive where f32 has none,
/// and the boxes agree (mean IoU ≥ 0.85). In process, both networks on the same decoded frames.
final class Int8AccuracyTests: XCTestCase {
    /// What one set gave at both precisions.
    struct Comparison: CustomStringConvertible {
        var truth = 0
        var found: [DNNPrecision: Int] = [:]
        var falsePositives: [DNNPrecision: Int] = [:]
        /// f32 faces (matched to the truth) with no INT8 face at IoU ≥ 0.5.
        var lost: [String] = []
        var ious: [Double] = []
        var largestLandmarkShift = 0.0

        var meanIoU: Double { ious.isEmpty ? 0 : ious.reduce(0, +) / Double(ious.count) }
        func recall(_ p: DNNPrecision) -> Double { truth == 0 ? 1 : Double(found[p] ?? 0) / Double(truth) }

        var description: String {
            String(format: "truth %d; f32 recall %.3f FP %d; int8 recall %.3f FP %d; lost %d; mean IoU %.3f; largest landmark shift %.1f px",
                   truth, recall(.f32), falsePositives[.f32] ?? 0, recall(.int8), falsePositives[.int8] ?? 0, lost.count,
                   meanIoU, largestLandmarkShift) + (lost.isEmpty ? "" : "; lost: " + lost.joined(separator: ", "))
        }
    }

    private func detector(_ precision: DNNPrecision, minFace: Int, width: Int) throws -> DNNFaceDetector {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        var options = FaceDetectorOptions(backend: .centerface, minFace: minFace, detectWidth: width)
        options.precision = precision
        let resolved = try options.resolve()
        XCTAssertEqual(resolved.precision, precision)
        return try DNNFaceDetector(resolved)
    }

    /// Both networks on every `stride`-th frame of `video`, matched to `truth` at `truthIoU`
    /// (without a truth file, f32's faces of `minFace` and more are the truth: INT8's extras count
    /// as false positives).
    private func compare(_ video: String, truth path: String?, stride: Int, minFace: Int = 40, width: Int = 640,
                         truthIoU: Double = 0.5) throws -> Comparison {
        let truth = try path.map { Dictionary(try RecordFile(path: $0).frames.map { ($0.index, $0.faces) }, uniquingKeysWith: { a, _ in a }) }
        let detectors = [DNNPrecision.f32: try detector(.f32, minFace: minFace, width: width),
                         .int8: try detector(.int8, minFace: minFace, width: width)]
        var result = Comparison()
        let source = try VideoFileSource(path: video)
        var index = 0
        while let frame = try source.nextFrame() {
            defer { index += 1 }
            guard index % stride == 0 else { continue }
            let all = try detectors.mapValues { try $0.detect(frame) }
            // Without truth: f32's faces from `minFace` up, the smallest the run promises to find.
            let expected = truth.map { $0[index] ?? [] }
                ?? (all[.f32] ?? []).filter { max($0.box.w, $0.box.h) >= Double(minFace) }
            result.truth += expected.count
            var found: [DNNPrecision: [FaceObservation]] = [:]
            for (precision, faces) in all {
                let matched = ObservationMatcher(minIoU: truthIoU).match(truth: expected.map(\.box), predicted: faces.map(\.box))
                result.found[precision, default: 0] += matched.pairs.count
                result.falsePositives[precision, default: 0] += matched.extra.count
                found[precision] = matched.pairs.map { faces[$0.predicted] }
            }
            // Each f32 face that is a true face, against the INT8 face nearest to it.
            let int8 = found[.int8] ?? []
            for face in found[.f32] ?? [] {
                guard let best = int8.max(by: { $0.box.iou(face.box) < $1.box.iou(face.box) }), best.box.iou(face.box) >= 0.5 else {
                    result.lost.append(String(format: "frame %d: %.0fx%.0f at %.0f,%.0f (f32 score %.2f)", index,
                                              face.box.w, face.box.h, face.box.x, face.box.y, face.score))
                    continue
                }
                result.ious.append(best.box.iou(face.box))
                if let a = face.landmarks, let b = best.landmarks {
                    for (p, q) in zip([a.leftEye, a.rightEye, a.nose, a.mouthLeft, a.mouthRight],
                                      [b.leftEye, b.rightEye, b.nose, b.mouthLeft, b.mouthRight]) {
                        result.largestLandmarkShift = max(result.largestLandmarkShift, hypot(p.x - q.x, p.y - q.y))
                    }
                }
            }
        }
        return result
    }

    private func assertHeld(_ c: Comparison, _ set: String) {
        print("int8 against f32, \(set): \(c)")
        XCTAssertGreaterThan(c.found[.f32] ?? 0, 0, set)
        XCTAssertGreaterThanOrEqual(c.recall(.int8), c.recall(.f32), "\(set): \(c)")
        XCTAssertEqual(c.lost, [], "\(set): \(c)")
        if c.falsePositives[.f32] == 0 { XCTAssertEqual(c.falsePositives[.int8], 0, "\(set): \(c)") }
        XCTAssertGreaterThanOrEqual(c.meanIoU, 0.85, "\(set): \(c)")
    }

    func testTheSampleFacesAreFoundAsAtF32() throws {
        assertHeld(try compare(Fixtures.sample, truth: Fixtures.sampleTruth, stride: 10), "sample")
    }

    func testTheTrackingSceneFacesAreFoundAsAtF32() throws {
        let scene = try TrackingScene.paths()
        assertHeld(try compare(scene.video, truth: scene.truth, stride: 10), "tracking scene")
    }

    /// The crowd at full size from 16 px, as anonymize covers it. The truth boxes are dlib's
    /// (brow to chin), tighter than CenterFace's: IoU 0.3, as for the dlib photos.
    func testTheCrowdSceneFacesAreFoundAsAtF32() throws {
        let scene = try CrowdScene.paths()
        assertHeld(try compare(scene.video, truth: scene.truth, stride: 6, minFace: 16, width: 0, truthIoU: 0.3), "crowd scene")
    }

    /// The anonymization scene (real faces entering, turning to profile, covered, motion-blurred,
    /// small, a cut; no truth file): at full size from 16 px, as anonymize covers it.
    func testTheAnonymizationSceneFacesAreFoundAsAtF32() throws {
        let scene = try AnonymizationScene.video()
        let c = try compare(scene, truth: nil, stride: 3, minFace: 16, width: 0)
        print("int8 against f32, anonymization scene: \(c)")
        XCTAssertGreaterThan(c.found[.f32] ?? 0, 0)
        XCTAssertEqual(c.lost, [], "\(c)")
        XCTAssertGreaterThanOrEqual(c.meanIoU, 0.85, "\(c)")
    }

    /// Real footage of people (../shared/data/intel-sample-videos, 480x270: a classroom, people
    /// walking toward the camera, heads turning; no truth: f32's faces are the reference), every
    /// 2nd frame at full size from 16 px, as anonymize looks for them. At the floor INT8 is not
    /// held to f32 face for face: it misses one classroom face of 14x18 px that f32 finds at 0.46
    /// (docs/models.md). Every face of 20 px and more is found.
    func testTheRealFootageFacesAreFoundAsAtF32() throws {
        let folder = try Fixtures.sharedDataOrSkip("intel-sample-videos")
        var faces = 0, lost: [String] = []
        for clip in ["classroom", "face-demographics-walking-and-pause", "face-demographics-walking",
                     "head-pose-face-detection-female-and-male"] {
            let c = try compare(folder.appendingPathComponent(clip + ".gif").path, truth: nil, stride: 2, minFace: 16, width: 0)
            print("int8 against f32, \(clip): \(c)")
            XCTAssertGreaterThan(c.found[.f32] ?? 0, 0, clip)
            XCTAssertGreaterThanOrEqual(c.meanIoU, 0.85, "\(clip): \(c)")
            faces += c.truth
            lost += c.lost.map { "\(clip) \($0)" }
        }
        XCTAssertLessThanOrEqual(lost.count, faces / 100, "\(lost)")
        let sizes = lost.compactMap { $0.firstMatch(of: /: (\d+)x(\d+) at/).map { max(Int($0.1)!, Int($0.2)!) } }
        XCTAssertEqual(sizes.count, lost.count)
        XCTAssertTrue(sizes.allSatisfy { $0 < 20 }, "\(lost)")
    }

    /// Without the INT8 file (another backend, a --face-model file, OpenCV) int8 is f32.
    func testInt8FallsBackToF32WhereThereIsNoInt8Network() throws {
        var options = FaceDetectorOptions(backend: .centerface)
        options.runtime = .opencv
        options.modelPath = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let resolved = try options.resolve()
        XCTAssertEqual(resolved.precision, .f32)
        XCTAssertEqual(resolved.model?.path, options.modelPath)
    }
}
