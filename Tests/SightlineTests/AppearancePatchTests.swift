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

    func testAFaceIsFoundFourFramesLaterWhereTheTruthHasItAndNowhereElse() throws {
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        let pictures = try frames([100, 104])
        let (then, now) = (try XCTUnwrap(pictures[100]), try XCTUnwrap(pictures[104]))
        XCTAssertEqual(truth[100].faces.count, 2)
        for face in truth[100].faces {
            let patch = try XCTUnwrap(AppearancePatch(box: face.box, score: 0.9, luma: then.luma, rotation: then.rotation))
            let target = try XCTUnwrap(truth[104].faces.first { $0.track == face.track }).box
            // Searched from where the face was four frames ago (no motion model): the patch finds
            // the face where the truth has it, to a pixel.
            let found = try XCTUnwrap(patch.find(near: face.box, margin: 0.5, luma: now.luma, rotation: now.rotation))
            XCTAssertGreaterThan(found.correlation, 0.9)
            XCTAssertEqual(found.box.x, target.x, accuracy: 1.0)
            XCTAssertEqual(found.box.y, target.y, accuracy: 1.0)
            XCTAssertEqual(found.box.w, face.box.w, accuracy: 1e-9)
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
        // The picture stored turned a quarter clockwise and tagged to be turned back for display:
        // the displayed frames are the original ones, so the original truth applies unchanged.
        let dir = try Fixtures.temporaryDirectory(self)
        let turned = dir.appendingPathComponent("turned.mp4").path
        let rotated = dir.appendingPathComponent("rotated.mp4").path
        try ffmpeg("-i", Fixtures.sample, "-t", "0.2", "-vf", "transpose=clock", "-c:v", "libx264", "-crf", "16", turned)
        try ffmpeg("-i", turned, "-c", "copy", "-metadata:s:v", "rotate=90", rotated)
        let pictures = try frames([0, 4], of: rotated)
        let (then, now) = (try XCTUnwrap(pictures[0]), try XCTUnwrap(pictures[4]))
        XCTAssertTrue(then.rotation.swapsAxes)
        let truth = try RecordFile(path: Fixtures.sampleTruth).frames
        for face in truth[0].faces {
            let patch = try XCTUnwrap(AppearancePatch(box: face.box, score: 1, luma: then.luma, rotation: then.rotation))
            let target = try XCTUnwrap(truth[4].faces.first { $0.track == face.track }).box
            let found = try XCTUnwrap(patch.find(near: face.box, margin: 0.5, luma: now.luma, rotation: now.rotation))
            XCTAssertGreaterThan(found.correlation, 0.9)
            XCTAssertEqual(found.box.x, target.x, accuracy: 1.0)
            XCTAssertEqual(found.box.y, target.y, accuracy: 1.0)
            XCTAssertEqual(found.box.w, face.box.w, accuracy: 1e-9)
        }
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
