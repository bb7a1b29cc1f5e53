import CVision
import XCTest
@testable import Sightline

/// Following a face between detections by its appearance patch, on the sample whose boxes are known.
final class AppearancePatchTests: XCTestCase {
    private func frames(_ indices: Set<Int>, of path: String = Fixtures.sample) throws -> [Int: VideoFrame] {
        let source = try VideoFileSource(path: path)
        var found: [Int: VideoFrame] = [:]
        while found.count < indices.count, let frame = try source.nextFrame() {
            if indices.contains(frame.index) { found[frame.index] = frame }
        }
        return found
    }

    /// Makes each truth face's patch in frame `from` of `path` (whose displayed frames are the
    /// sample's) and searches frame `to` from where the face was (no motion model): the patch
    /// must find the face where the truth has it, to a pixel. `check` looks further.
    private func followTruthFaces(in path: String = Fixtures.sample, from: Int, to: Int,
                                  check: (AppearancePatch, FaceObservation, VideoFrame) throws -> Void = { _, _, _ in }) throws {
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        let pictures = try frames([from, to], of: path)
        let (then, now) = (try XCTUnwrap(pictures[from]), try XCTUnwrap(pictures[to]))
        XCTAssertEqual(truth[from].faces.count, 2)
        for face in truth[from].faces {
            let patch = try XCTUnwrap(AppearancePatch(box: face.box, score: 1, luma: then.luma, rotation: then.rotation))
            let target = try XCTUnwrap(truth[to].faces.first { $0.track == face.track }).box
            let found = try XCTUnwrap(patch.find(near: face.box, margin: 0.5, luma: now.luma, rotation: now.rotation))
            XCTAssertGreaterThan(found.correlation, 0.9)
            XCTAssertEqual(found.box.x, target.x, accuracy: 1.0)
            XCTAssertEqual(found.box.y, target.y, accuracy: 1.0)
            XCTAssertEqual(found.box.w, face.box.w, accuracy: 1e-9)
            try check(patch, face, now)
        }
    }

    func testAFaceIsFoundFourFramesLaterWhereTheTruthHasItAndNowhereElse() throws {
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        try followTruthFaces(from: 100, to: 104) { patch, face, now in
            // The other face, and a code, do not pass for this one.
            let other = try XCTUnwrap(truth[104].faces.first { $0.track != face.track }).box
            let elsewhere = try XCTUnwrap(patch.find(near: other, margin: 0.5, luma: now.luma, rotation: now.rotation))
            XCTAssertLessThan(elsewhere.correlation, RegionSearcher.patchCorrelation)
            let code = Box(bounding: try XCTUnwrap(truth[104].codes.first).polygon)
            let onCode = try XCTUnwrap(patch.find(near: code, margin: 0.5, luma: now.luma, rotation: now.rotation))
            XCTAssertLessThan(onCode.correlation, RegionSearcher.patchCorrelation)
        }
    }

    func testRotatedVideoIsFollowedInDisplayedCoordinates() throws {
        let rotated = try Media.sampleTurnedForDisplay(seconds: 0.2, in: try Fixtures.temporaryDirectory(self))
        try followTruthFaces(in: rotated, from: 0, to: 4) { _, _, now in XCTAssertTrue(now.rotation.swapsAxes) }
    }

    func testThePatchIsOnlyFoundWhereThePictureShowsAllOfIt() throws {
        // Noise, and the same noise moved 60 px to the left: the patch taken at x = 40 is then
        // half out of the picture. It must not be "found" at x = -20 (where the picture shows
        // only half of it); inside the picture, nothing else matches it.
        var seed: UInt32 = 12345
        let width = 200, height = 100
        let noise = (0..<(width * height)).map { _ -> UInt8 in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: seed >> 24)
        }
        var moved = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for col in 0..<(width - 60) { moved[row * width + col] = noise[row * width + col + 60] }
        }
        let rotation = Rotation(degrees: 0, codedWidth: width, codedHeight: height)
        func gray(_ pixels: UnsafeBufferPointer<UInt8>) -> GrayImage {
            GrayImage(image: slv_gray_image(data: pixels.baseAddress, width: Int32(width), height: Int32(height), stride: Int32(width)))
        }
        let box = Box(x: 40, y: 30, w: 40, h: 40)
        try noise.withUnsafeBufferPointer { original in
            let patch = try XCTUnwrap(AppearancePatch(box: box, score: 1, luma: gray(original), rotation: rotation))
            let same = try XCTUnwrap(patch.find(near: box, margin: 0.5, luma: gray(original), rotation: rotation))
            XCTAssertGreaterThan(same.correlation, 0.99)
            XCTAssertEqual(same.box.x, 40, accuracy: 0.5)
            try moved.withUnsafeBufferPointer { shifted in
                let predicted = Box(x: -20, y: 30, w: 40, h: 40)
                let found = try XCTUnwrap(patch.find(near: predicted, margin: 0.5, luma: gray(shifted), rotation: rotation))
                XCTAssertGreaterThanOrEqual(found.box.x, 0)
                XCTAssertLessThan(found.correlation, RegionSearcher.patchCorrelation)
            }
        }
    }

    func testFlatOrOutsideBoxesMakeNoPatch() throws {
        let frame = try XCTUnwrap(try frames([0])[0])
        XCTAssertNil(AppearancePatch(box: Box(x: 2000, y: 10, w: 50, h: 50), score: 1, luma: frame.luma, rotation: frame.rotation))
        XCTAssertNil(AppearancePatch(box: Box(x: 10, y: 10, w: 2, h: 2), score: 1, luma: frame.luma, rotation: frame.rotation))
    }
}
