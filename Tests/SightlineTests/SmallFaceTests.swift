import Foundation
import XCTest
@testable import Sightline

/// The default finds faces from 16 px without the full-size frame on every frame: the whole
/// frame at the scale of 40 px faces, one full-scale tile per frame in turn, a region search
/// around every small face on every frame, and looking back to a face's first frame. Held to the
/// full-size run (`--face-width 0`, the whole frame at full size on every frame) on scenes whose
/// truth is exact and on real footage: every frame against the truth, a subset of the frames
/// against the full-size run (`fullSizeStride`).
final class SmallFaceTests: XCTestCase {
    // MARK: The tiles and their rotation

    func testTilesCoverTheFrameAndOverlapByMoreThanTheFacesTheWholePassMisses() throws {
        for (width, height) in [(1280, 720), (1920, 1080), (3840, 2160), (1080, 1920)] {
            let grid = try XCTUnwrap(FaceDetectorOptions().tileGrid(width: width, height: height), "\(width)x\(height)")
            XCTAssertEqual(grid.scale, 1, "16 px faces need the full-size frame")
            XCTAssertEqual(grid.inputWidth % 32, 0)
            XCTAssertEqual(grid.inputHeight % 32, 0)
            // Every pixel in some tile, and every face under the overlap whole in one.
            for x in stride(from: 0.0, to: Double(width), by: 7) {
                for y in stride(from: 0.0, to: Double(height), by: 7) {
                    let face = Box(x: min(x, Double(width) - TileGrid.overlap), y: min(y, Double(height) - TileGrid.overlap),
                                   w: TileGrid.overlap, h: TileGrid.overlap)
                    XCTAssertTrue(grid.tiles.contains { $0.x <= face.x && $0.y <= face.y && $0.x + $0.w >= face.x + face.w && $0.y + $0.h >= face.y + face.h },
                                  "\(width)x\(height): \(face) in no tile")
                }
            }
            // Each tile's input about a third to half of the whole-frame pass's.
            let whole = try XCTUnwrap(FaceDetectorOptions().networkInputSize(width: width, height: height))
            let share = Double(grid.inputWidth * grid.inputHeight) / Double(whole.width * whole.height)
            XCTAssertTrue((0.25...0.6).contains(share), "\(width)x\(height): a tile is \(share) of the whole pass")
        }
        // No tiles where the whole-frame pass already reaches the smallest face.
        XCTAssertNil(FaceDetectorOptions(minFace: 40).tileGrid(width: 1920, height: 1080))
        XCTAssertNil(FaceDetectorOptions(detectWidth: 0).tileGrid(width: 1920, height: 1080))
        XCTAssertNil(FaceDetectorOptions().tileGrid(width: 640, height: 360))
        XCTAssertNil(FaceDetectorOptions(backend: .yunet).tileGrid(width: 1920, height: 1080))
    }

    func testTheRotationIsCountedOnTheStreamSoAShardSearchesTheWholeRunsTiles() {
        for detectEvery in [1, 2, 5] {
            let schedule = Schedule(detectEvery: detectEvery, tiles: 15)
            var whole = schedule.planner(), shard = schedule.planner()
            var plans: [FramePlan] = []
            for position in 0..<100 {
                let plan = whole.plan(at: position)
                XCTAssertEqual(plan.fullDetection, position % detectEvery == 0)
                // The stream's first frame has every tile searched (plan without a tile).
                XCTAssertEqual(plan.tile, plan.fullDetection && position > 0 ? (position / detectEvery) % 15 : nil)
                whole.analyzed(at: position, plan)
                plans.append(plan)
            }
            for position in 37..<100 {
                let plan = shard.plan(at: position)
                XCTAssertEqual(plan, plans[position], "detect every \(detectEvery), frame \(position)")
                shard.analyzed(at: position, plan)
            }
        }
    }

    // MARK: Against the full-size run

    /// The suite holds the default to the full-size run on every fourth frame, from frame 1 (the
    /// first frame searches every tile, as the full-size run does; frames 1, 5, 9, … fall on every
    /// tile of the 15 in turn, and on every phase of a face's entry). The same tests on every frame:
    /// `Scripts/small_faces_full_size.sh`, which sets `SIGHTLINE_FULL_SIZE_STRIDE=1`.
    static let fullSizeStride = Int(ProcessInfo.processInfo.environment["SIGHTLINE_FULL_SIZE_STRIDE"] ?? "") ?? 4

    /// What the default and the full-size run found on one video, matched to the truth (or,
    /// without truth, the default matched to the full-size run's faces).
    struct Comparison: CustomStringConvertible {
        /// The default's frames held to the truth (every frame), and those held to the full-size run.
        var frames = (truth: 0, full: 0)
        var truth = 0
        var recall = (found: 0, falsePositives: 0)
        /// On the frames held to the full-size run: the true faces each found (all the full-size
        /// run's faces, without truth), and their false positives.
        var found = (default: 0, full: 0)
        var falsePositives = (default: 0, full: 0)
        /// Faces the full-size run found (true ones, when there is truth) that the default did not, by frame.
        var lost: [Int: Int] = [:]
        /// The full-size run's faces that count (true ones, when there is truth).
        var reference = 0
        var searched: [FaceSearch] = []
        /// The default's faces given by the region search (`refined`).
        var followed = 0

        var lostCount: Int { lost.values.reduce(0, +) }
        var description: String {
            "every frame (\(frames.truth)): truth \(truth), found \(recall.found), false positives \(recall.falsePositives); "
                + "against the full-size run (\(frames.full) frames): found \(found.default) (full size \(found.full)), "
                + "false positives \(falsePositives.default) (full size \(falsePositives.full)), lost \(lostCount) on frames \(lost.keys.sorted())"
        }
    }

    /// `video` analyzed by the default (with codes off, through `SharedRuns`: the small-face
    /// scene's default run is also the whole run `TimelineShardTests` cuts into shards), and by
    /// the full-size run's detector (`--face-width 0`: the whole frame at full size, down to 16 px)
    /// on every `stride`-th frame from frame 1 (every frame at stride 1), in process.
    private func compare(_ video: String, truth path: String?, stride: Int = fullSizeStride) throws -> Comparison {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let records = try RecordFile(path: try SharedRuns.analyzed(video, ["--codes", "off"])).frames
        let tiled = Dictionary(records.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        let fullSize = try DNNFaceDetector(try FaceDetectorOptions(detectWidth: 0).resolve())
        let truth = try path.map { Dictionary(try RecordFile(path: $0).frames.map { ($0.index, $0.faces) }, uniquingKeysWith: { a, _ in a }) }
        let matcher = ObservationMatcher(minIoU: 0.3)
        var result = Comparison()
        let source = try VideoFileSource(path: video)
        var index = 0
        while let frame = try source.nextFrame() {
            defer { index += 1 }
            let a = try XCTUnwrap(tiled[index], "frame \(index) has no record")
            let found = a.faces.map(\.box)
            result.searched.append(a.faceSearch ?? FaceSearch())
            result.followed += a.faces.count { $0.source == .refined }
            let expected = truth?[index]?.map(\.box)
            if let expected {
                let match = matcher.match(truth: expected, predicted: found)
                result.frames.truth += 1
                result.truth += expected.count
                result.recall.found += match.pairs.count
                result.recall.falsePositives += match.extra.count
            }
            guard index % stride == 1 % stride else { continue }
            // The full-size run's faces that count: the true ones (all of them without truth).
            var reference = try fullSize.detect(frame).map(\.box)
            result.frames.full += 1
            if let expected {
                let tiledMatch = matcher.match(truth: expected, predicted: found)
                let fullMatch = matcher.match(truth: expected, predicted: reference)
                result.found.default += tiledMatch.pairs.count
                result.found.full += fullMatch.pairs.count
                result.falsePositives.default += tiledMatch.extra.count
                result.falsePositives.full += fullMatch.extra.count
                reference = fullMatch.pairs.map { reference[$0.predicted] }
            }
            result.reference += reference.count
            let missed = reference.count - matcher.match(truth: reference, predicted: found).pairs.count
            if missed > 0 { result.lost[index] = missed }
        }
        XCTAssertEqual(index, records.count, "one record per frame")
        return result
    }

    func testTheCrowdSceneIsFoundAsAtFullSize() throws {
        let scene = try CrowdScene.paths()
        let c = try compare(scene.video, truth: scene.truth)
        print("crowd scene: \(c)")
        XCTAssertGreaterThanOrEqual(Double(c.found.default), 0.98 * Double(c.found.full), "\(c)")
        XCTAssertLessThanOrEqual(c.falsePositives.default, c.falsePositives.full, "\(c)")
        // Lost faces are spread thin: no frame loses more than two of the full-size run's.
        XCTAssertLessThanOrEqual(c.lost.values.max() ?? 0, 2, "\(c)")
        // The rotation: every tile on the first frame, then tile i on frame i (mod 15), every tile
        // again on the last, and the whole-frame pass at half size on each.
        for (index, search) in c.searched.enumerated() {
            XCTAssertEqual(search.tile?.index, index == 0 || index == c.searched.count - 1 ? nil : index % 15)
            XCTAssertEqual(search.tile?.count ?? search.everyTile, 15)
            XCTAssertEqual(search.wholeScale, 0.5)
        }
        XCTAssertGreaterThan(c.followed, 100, "small faces are followed by region search")
    }

    /// Small faces in every tile and on the overlaps, each appearing 2–9 frames after its tile
    /// was searched: the tile finds it up to 13 frames late, looking back gives it its first frame.
    func testSmallFacesAppearingOffTheRotationAreFoundOnEveryFrameTheyShow() throws {
        let scene = try SmallFacesScene.paths()
        let c = try compare(scene.video, truth: scene.truth)
        print("small-face scene: \(c)")
        XCTAssertGreaterThanOrEqual(Double(c.found.default), 0.98 * Double(c.found.full), "\(c)")
        XCTAssertGreaterThanOrEqual(Double(c.recall.found), 0.85 * Double(c.truth), "\(c)")
        // One face walking out of the frame is followed a frame past the truth's 60 % rule.
        XCTAssertLessThanOrEqual(c.falsePositives.default, c.falsePositives.full + 1, "\(c)")
        XCTAssertLessThanOrEqual(c.lostCount, c.found.full / 50, "\(c)")
    }

    func testRealFootageOfSmallFacesInAFullHDFrameIsFoundAsAtFullSize() throws {
        let folder = try Fixtures.sharedDataOrSkip("intel-sample-videos")
        let dir = try Fixtures.temporaryDirectory(self)
        var lost = 0, reference = 0
        // The 480x270 clips keep their faces' sizes (14-60 px) in a 1920x1080 frame, placed off
        // the tiles' grid: the whole-frame pass at half size cannot see most of them.
        for (clip, x, y) in [("classroom", 713, 391), ("face-demographics-walking", 1301, 47)] {
            let video = dir.appendingPathComponent(clip + ".mp4").path
            let made = try runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", folder.appendingPathComponent(clip + ".gif").path,
                                                          "-vf", "pad=1920:1080:\(x):\(y):color=0x606060,format=yuv420p",
                                                          "-c:v", "libx264", "-crf", "16", "-frames:v", "20", video])
            XCTAssertEqual(made.status, 0, made.stderr)
            let c = try compare(video, truth: nil, stride: min(2, Self.fullSizeStride))
            print("\(clip): full size \(c.reference) faces, lost \(c.lostCount) on frames \(c.lost.keys.sorted())")
            lost += c.lostCount
            reference += c.reference
        }
        XCTAssertGreaterThan(reference, 30)
        XCTAssertLessThanOrEqual(Double(lost), 0.02 * Double(reference), "lost \(lost) of the full-size run's \(reference) faces")
    }
}
