import Foundation
import Synchronization
import XCTest
@testable import Sightline

/// Shot cuts on a video made of six scenes with hard cuts: the sample's footage (as it is, then
/// darkened and desaturated with its faces in the same places, mirrored, zoomed in) and two of
/// the dlib photos as stills. Every cut is found at its frame and no other, no track runs across
/// one, PySceneDetect 0.7.2 finds the same frames, and shards merge into the whole run.
final class ShotCutTests: XCTestCase {
    /// The first frame of each scene after the first (scene lengths 40, 40, 36, 40, 36, 40).
    static let cuts = [40, 80, 116, 156, 192]

    /// A folder of this class's own for the files made once per test process below.
    private static let fixtureDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("sightline-cuts-\(getpid())")

    override class func tearDown() {
        try? FileManager.default.removeItem(at: fixtureDirectory)
        super.tearDown()
    }

    /// The test video (232 frames, 640×360, 30 fps), made with ffmpeg once per test process.
    static func makeVideo() throws -> String { try made.get() }
    private static let made: Result<String, Error> = Result {
        try FileManager.default.createDirectory(at: fixtureDirectory, withIntermediateDirectories: true)
        let photos = try Fixtures.sharedDataOrSkip("dlib-faces")
        let out = fixtureDirectory.appendingPathComponent("cuts.mp4").path
        func sample(_ first: Int, _ label: String, _ filters: String) -> String {
            "[\(label)]trim=start_frame=\(first):end_frame=\(first + 40),setpts=PTS-STARTPTS,\(filters)scale=640:360,setsar=1"
        }
        let still = "trim=end_frame=36,setpts=PTS-STARTPTS,scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,setsar=1"
        let graph = [
            "[0:v]split=4[s1][s2][s3][s4]",
            sample(0, "s1", "") + "[a]",
            // The footage goes on, darker and nearly gray: faces where they were a frame before.
            sample(40, "s2", "eq=brightness=-0.3:saturation=0.2,") + "[b]",
            "[1:v]" + still + "[c]",
            sample(100, "s3", "hflip,") + "[d]",
            "[2:v]" + still + "[e]",
            sample(200, "s4", "crop=iw/2:ih/2:iw/4:ih/4,") + "[f]",
            "[a][b][c][d][e][f]concat=n=6:v=1:a=0,format=yuv420p[out]",
        ].joined(separator: ";")
        try ffmpeg("-i", Fixtures.sample,
                   "-framerate", "30", "-loop", "1", "-i", photos.appendingPathComponent("2008_001009.jpg").path,
                   "-framerate", "30", "-loop", "1", "-i", photos.appendingPathComponent("2008_001322.jpg").path,
                   "-filter_complex", graph, "-map", "[out]", "-r", "30", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", out)
        return out
    }

    /// The video analyzed whole with `options`, once per test process (two tests read the
    /// default run).
    private static func wholeRun(_ options: [String]) throws -> String {
        try wholeRuns.withLock { runs in
            let key = options.joined(separator: " ")
            if let path = runs[key] { return path }
            let path = fixtureDirectory.appendingPathComponent("whole-\(runs.count).jsonl").path
            let run = sightline(["analyze", try makeVideo(), "-q", "-o", path] + options)
            guard run.status == 0 else { throw "analyze \(options): \(run.stderr)" }
            runs[key] = path
            return path
        }
    }
    private static let wholeRuns = Mutex<[String: String]>([:])

    private func cutIndexes(_ records: [[String: Any]]) -> [Int] {
        records.filter { $0["type"] as? String == "cut" }.compactMap { ($0["index"] as? NSNumber)?.intValue }
    }

    func testCutsAreFoundAtTheirFramesAndEndEveryTrack() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let video = try Self.makeVideo()
        let out = try Self.wholeRun([])
        let records = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: out)))
        XCTAssertEqual(cutIndexes(records), Self.cuts)

        // No track runs across a cut, and both sides of the cut at 40 have faces in the same
        // places (without the cut they would be one track).
        let tracks = records.filter { $0["type"] as? String == "track" }
        XCTAssertGreaterThan(tracks.count, 6)
        for track in tracks {
            let first = try XCTUnwrap((track["first_frame"] as? NSNumber)?.intValue)
            let last = try XCTUnwrap((track["last_frame"] as? NSNumber)?.intValue)
            XCTAssertFalse(Self.cuts.contains { first < $0 && $0 <= last }, "track \(track["id"] ?? "?") runs \(first)–\(last)")
        }
        let frames = records.filter { $0["type"] as? String == "frame" }
        let before = try FrameRecord(json: frames[39]), after = try FrameRecord(json: frames[40])
        XCTAssertFalse(before.faces.isEmpty)
        XCTAssertTrue(before.faces.contains { face in after.faces.contains { $0.box.iou(face.box) > 0.5 } })
        XCTAssertTrue(Set(before.faces.compactMap(\.track)).isDisjoint(with: after.faces.compactMap(\.track)))

        let validation = try runProcess("/usr/bin/python3", [Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path, out])
        XCTAssertEqual(validation.status, 0, validation.stdoutText + validation.stderr)

        // Off: no cut records, and the same footage at 39/40 continues one track (the first 1.5 s
        // hold that cut).
        let off = dir.appendingPathComponent("off.jsonl").path
        XCTAssertEqual(sightline("analyze", video, "-q", "--cuts", "off", "--duration", "1.5", "-o", off).status, 0)
        let offRecords = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: off)))
        XCTAssertEqual(cutIndexes(offRecords), [])
        let offFrames = offRecords.filter { $0["type"] as? String == "frame" }
        let offBefore = try FrameRecord(json: offFrames[39]), offAfter = try FrameRecord(json: offFrames[40])
        XCTAssertFalse(Set(offBefore.faces.compactMap(\.track)).isDisjoint(with: offAfter.faces.compactMap(\.track)))
    }

    func testCutsAgreeWithPySceneDetect() throws {
        let python = try pythonWithPackagesOrSkip("/usr/bin/python3", imports: "scenedetect", installedBy: "scenedetect.sh")
        let dir = try Fixtures.temporaryDirectory(self)
        let video = try Self.makeVideo()
        let script = Fixtures.repo.appendingPathComponent("Tests/Reference/scene_cuts.py").path
        // The defaults, and a threshold only the cuts into and out of the stills reach.
        for (threshold, minShot) in [(27, 15), (70, 15)] {
            let reference = try runProcess(python, [script, video, "\(threshold)", "\(minShot)"])
            XCTAssertEqual(reference.status, 0, reference.stderr)
            let theirs = reference.stdoutText.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            let out = dir.appendingPathComponent("out-\(threshold).jsonl").path
            let run = sightline("analyze", video, "-q", "--faces", "off", "--codes", "off",
                                    "--cut-threshold", "\(threshold)", "--min-shot", "\(minShot)", "-o", out)
            XCTAssertEqual(run.status, 0, run.stderr)
            let ours = cutIndexes(try jsonLines(try Data(contentsOf: URL(fileURLWithPath: out))))
            XCTAssertEqual(ours, theirs, "threshold \(threshold), min shot \(minShot)")
            XCTAssertEqual(theirs, threshold == 27 ? Self.cuts : [116, 156, 192])
        }
    }

    /// Shards of 2.6 s (78 frames): the third starts on the cut at 156, the second 2 frames
    /// before the cut at 80. With a 1 s warm-up, merge gives the whole run byte for byte.
    func testShardsMergeIntoTheWholeRunWithItsCuts() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let video = try Self.makeVideo()
        for options in [[], ["--detect-every", "5"]] {
            let tag = options.isEmpty ? "every" : "stride"
            let whole = try Self.wholeRun(options)
            let out = dir.appendingPathComponent(tag).path
            let plan = dir.appendingPathComponent("plan-\(tag).jsonl").path
            let planned = sightline("plan", video, "--shard-length", "2.6", "--warmup", "1", "--output-dir", out, "-o", plan)
            XCTAssertEqual(planned.status, 0, planned.stderr)
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            for shard in try jsonLines(try Data(contentsOf: URL(fileURLWithPath: plan))) {
                let run = sightline(try XCTUnwrap(shard["args"] as? [String]) + options)
                XCTAssertEqual(run.status, 0, run.stderr)
            }
            let merge = sightline("merge", plan, "-q")
            XCTAssertEqual(merge.status, 0, merge.stderr)
            let merged = URL(fileURLWithPath: out).appendingPathComponent("cuts.jsonl")
            let mergedData = try Data(contentsOf: merged)
            XCTAssertEqual(cutIndexes(try jsonLines(mergedData)), Self.cuts, tag)
            XCTAssertEqual(String(decoding: mergedData, as: UTF8.self),
                           String(decoding: try Data(contentsOf: URL(fileURLWithPath: whole)), as: UTF8.self), tag)
        }
    }

    /// Shards without warm-up (2.6 s: the third starts on the cut at 156): each shard compares its
    /// first frame with the frame before it, so the merged cuts are the whole run's, score and all.
    func testShardsWithoutWarmupKeepTheCutOnTheirFirstFrame() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let video = try Self.makeVideo()
        let options = ["--faces", "off", "--codes", "off"]
        let whole = dir.appendingPathComponent("whole.jsonl").path
        XCTAssertEqual(sightline(["analyze", video, "-q", "-o", whole] + options).status, 0)
        let out = dir.appendingPathComponent("shards").path
        let plan = dir.appendingPathComponent("plan.jsonl").path
        XCTAssertEqual(sightline("plan", video, "--shard-length", "2.6", "--warmup", "0", "--output-dir", out, "-o", plan).status, 0)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for shard in try jsonLines(try Data(contentsOf: URL(fileURLWithPath: plan))) {
            let run = sightline(try XCTUnwrap(shard["args"] as? [String]) + options)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let merge = sightline("merge", plan, "-q")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        func cutLines(_ path: String) throws -> [Substring] {
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self).split(separator: "\n")
                .filter { $0.hasPrefix("{\"type\":\"cut\"") }
        }
        let merged = URL(fileURLWithPath: out).appendingPathComponent("cuts.jsonl").path
        XCTAssertEqual(try cutLines(merged), try cutLines(whole))
        XCTAssertEqual(try cutLines(whole).count, Self.cuts.count)
    }
}
