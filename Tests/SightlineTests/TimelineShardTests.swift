import Foundation
import XCTest
@testable import Sightline

/// One timeline: `t` on the file's presentation timeline, `index` as the stream position; shard
/// runs that together are the whole run, and `merge` making one file of them.
final class TimelineShardTests: XCTestCase {
    /// A 4 s video (25 fps, a keyframe every second) that starts 0.85 s after its 5 s of audio,
    /// as camera MP4s often do.
    private func videoAfterAudio(in dir: URL) throws -> String {
        let video = dir.appendingPathComponent("v.mp4").path, audio = dir.appendingPathComponent("a.m4a").path
        let out = dir.appendingPathComponent("video-after-audio.mp4").path
        try ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-g", "25",
                   "-pix_fmt", "yuv420p", video)
        try ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=5", "-c:a", "aac", audio)
        try ffmpeg("-itsoffset", "0.85", "-i", video, "-i", audio, "-map", "0:v", "-map", "1:a", "-c", "copy", out)
        return out
    }

    private func frameLines(_ data: Data) -> [Substring] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("{\"type\":\"frame\"") }
    }

    private func gray(_ png: String) throws -> [UInt8] {
        let run = try runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", png, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        guard run.status == 0 else { throw "ffmpeg failed on \(png): \(run.stderr)" }
        return [UInt8](run.stdout)
    }

    private func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }

    /// ffprobe's `pts_time` of every video frame minus the format's `start_time`.
    private func ffprobeTimes(_ file: String) throws -> [Double] {
        let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                        "frame=pts_time", "-of", "csv=p=0", file])
        let start = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", file])
        let formatStart = try XCTUnwrap(Double(start.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        return probe.stdoutText.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
            .map { $0 - formatStart }
    }

    func testTimeIsThePresentationTimeFfmpegShows() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let input = try videoAfterAudio(in: dir)
        let run = sightline("analyze", input, "-q", "--faces", "off", "--codes", "off")
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = try jsonLines(run.stdout)
        XCTAssertEqual(lines[0]["schema"] as? Int, 2)
        XCTAssertEqual(try XCTUnwrap(lines[0]["start_time"] as? Double), 0, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(lines[0]["stream_start_time"] as? Double), 0.85, accuracy: 1e-6)
        XCTAssertEqual(lines[0]["variable_frame_rate"] as? Bool, false)

        let expected = try ffprobeTimes(input)
        let frames = try RecordFile(jsonLines: run.stdout, path: "run").frames
        XCTAssertEqual(frames.count, 100)
        XCTAssertEqual(frames.count, expected.count)
        for (frame, time) in zip(frames, expected) {
            XCTAssertEqual(frame.t, time, accuracy: 1.5e-6, "frame \(frame.index)")
        }
        XCTAssertEqual(frames.map(\.index), Array(0..<100))
        XCTAssertEqual(try XCTUnwrap(frames.first).t, 0.85, accuracy: 1e-6)

        // --start counts on the same timeline, and the frames keep their index and bytes; the same
        // from Matroska, whose index does not list every frame (frames are counted by a packet scan).
        let whole = frameLines(run.stdout)
        let mkv = dir.appendingPathComponent("video-after-audio.mkv").path
        try ffmpeg("-i", input, "-map", "0", "-c", "copy", mkv)
        for file in [input, mkv] {
            let part = sightline("analyze", file, "-q", "--faces", "off", "--codes", "off", "--start", "2", "--duration", "1")
            XCTAssertEqual(part.status, 0, part.stderr)
            let records = try RecordFile(jsonLines: part.stdout, path: "part").frames
            let times = try ffprobeTimes(file)
            let first = try XCTUnwrap(times.firstIndex { $0 >= 2 - 1e-9 })
            let last = try XCTUnwrap(times.lastIndex { $0 < 3 - 1e-9 })
            XCTAssertEqual(first, 29, file)   // MP4: 0.85 + 29 × 0.04 = 2.01
            XCTAssertEqual(records.map(\.index), Array(first...last), file)
            for record in records { XCTAssertEqual(record.t, times[record.index], accuracy: 1.5e-6, file) }
            if file == input { XCTAssertEqual(frameLines(part.stdout), Array(whole[29..<54])) }
        }

        // snapshot --at T shows the frame ffmpeg -ss T shows.
        let hashes = try Media.frameHashes(input)
        for at in ["0.5", "1.3", "2", "3.77"] {
            let still = dir.appendingPathComponent("still-\(at).png").path
            let snap = sightline("snapshot", input, "--at", at, "-o", still, "--json", "--faces", "off", "--codes", "off")
            XCTAssertEqual(snap.status, 0, snap.stderr)
            let record = try XCTUnwrap(try jsonLines(snap.stdout).first)
            let index = try XCTUnwrap(record["index"] as? Int)
            // The decoded picture ffmpeg -ss writes is the one at that index (same YUV checksum).
            let seek = try runProcess("/usr/bin/ffmpeg", ["-v", "error", "-ss", at, "-i", input, "-map", "0:v:0", "-frames:v", "1", "-f", "framemd5", "-"])
            let seekHash = seek.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.first?.split(separator: ",").last
            XCTAssertEqual(seekHash.map { $0.trimmingCharacters(in: .whitespaces) }, hashes[index].trimmingCharacters(in: .whitespaces), "--at \(at)")
            // And the still is that picture: its luma matches ffmpeg's PNG of it, not the neighbours'.
            let ffmpegStill = dir.appendingPathComponent("ffmpeg-\(at).png").path
            try ffmpeg("-ss", at, "-i", input, "-frames:v", "1", ffmpegStill)
            let ours = try gray(still), theirs = try gray(ffmpegStill)
            XCTAssertLessThan(meanDifference(ours, theirs), 1.5, "--at \(at)")
            for neighbour in [index - 1, index + 1] where neighbour >= 0 && neighbour < 100 {
                let other = dir.appendingPathComponent("n\(neighbour).png").path
                try ffmpeg("-i", input, "-vf", "select=eq(n\\,\(neighbour))", "-frames:v", "1", other)
                XCTAssertGreaterThan(meanDifference(ours, try gray(other)), meanDifference(ours, theirs), "--at \(at) vs frame \(neighbour)")
            }
        }
    }

    /// Runs every shard of a plan (two at a time) with `extra` options.
    private func runShards(_ plan: String, _ extra: [String]) throws {
        let shards = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: plan)))
        let arguments = try shards.map { try XCTUnwrap($0["args"] as? [String]) + extra }
        var failures: [String] = []
        for pair in stride(from: 0, to: arguments.count, by: 2) {
            let running = try arguments[pair..<min(pair + 2, arguments.count)].map { try startSightline($0) }
            for (k, process) in running.enumerated() {
                process.waitUntilExit()
                if process.terminationStatus != 0 { failures.append("shard \(pair + k): exit \(process.terminationStatus)") }
            }
        }
        XCTAssertEqual(failures, [])
    }

    /// `input` (the sample) analyzed whole with `options`, and cut by `plan` with `cuts`, each
    /// shard run with the same options and merged: the whole run's file, the merged file, the
    /// shards' folder.
    private func wholeAndMerged(_ options: [String], cuts: [String], in dir: URL,
                                input: String = Fixtures.sample) throws -> (whole: String, merged: String, shards: String) {
        let tag = (options + cuts).joined(separator: "_")
        let whole = try Self.wholeRun(input, options)
        let out = dir.appendingPathComponent(tag).path
        let plan = dir.appendingPathComponent("plan-\(tag).jsonl").path
        let planned = sightline(["plan", input] + cuts + ["--output-dir", out, "-o", plan])
        XCTAssertEqual(planned.status, 0, planned.stderr)
        try runShards(plan, options)
        let merge = sightline("merge", plan, "-q")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
        return (whole, URL(fileURLWithPath: out).appendingPathComponent(stem + ".jsonl").path, out)
    }

    /// `input` analyzed whole with `options`, once per test process (several tests cut it; the
    /// sample's default run is the render fixture's). The people video with identities is
    /// `PeopleFixture`'s run (the same command, shared with `IdentityTests` and the report tests).
    private static func wholeRun(_ input: String, _ options: [String]) throws -> String {
        if input == PeopleFixture.video && options == ["--codes", "off", "--identities", "on"] {
            try PeopleFixture.ready()
            return PeopleFixture.records
        }
        return try SharedRuns.analyzed(input, options)
    }

    /// The default, cut every 3.7 s (frames 111 and 222: neither a multiple of 5 nor of the code
    /// search's 15) with a warm-up of a second each: the merged file is the whole run's, byte for
    /// byte (a detection stride across such cuts: the Ray driver's test, `RayDriverTests`).
    func testShardsWithWarmupMergeIntoTheWholeRun() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let (whole, merged, out) = try wholeAndMerged([], cuts: ["--shard-length", "3.7", "--warmup", "1"], in: dir)
        let wholeData = try Data(contentsOf: URL(fileURLWithPath: whole)), mergedData = try Data(contentsOf: URL(fileURLWithPath: merged))
        // The frame records byte for byte (detections, t, index, track ids), then the rest.
        XCTAssertEqual(frameLines(mergedData), frameLines(wholeData))
        let wholeRecords = try RecordFile(jsonLines: wholeData, path: whole), mergedRecords = try RecordFile(jsonLines: mergedData, path: merged)
        XCTAssertEqual(mergedRecords.tracks, wholeRecords.tracks)
        XCTAssertEqual(mergedRecords.tracks.count, 5)
        XCTAssertEqual(mergedData, wholeData)
        let audit = sightline("audit", merged, Fixtures.sampleTruth, "--max-id-switches", "0", "--min-recall", "0.99")
        XCTAssertEqual(audit.status, 0, "\(audit.stdoutText) \(audit.stderr)")

        // Inside the warm-ups the shards saw what the whole run saw, but for track ids and the
        // tracker's state: count the observations whose box or source differ.
        var differing = 0, observations = 0
        let byIndex = Dictionary(uniqueKeysWithValues: wholeRecords.frames.map { ($0.index, $0) })
        for shard in try FileManager.default.contentsOfDirectory(atPath: out) where shard.contains(".shard-") {
            let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent(shard)))
            for line in lines where line["type"] as? String == "warmup" {
                var copy = line
                copy["type"] = "frame"
                let record = try FrameRecord(json: copy)
                let reference = try XCTUnwrap(byIndex[record.index])
                let seen = record.faces.map { "\($0.box)\($0.source)" }.sorted() + record.codes.map { "\($0.box)\($0.source)\($0.text)" }.sorted()
                let truth = reference.faces.map { "\($0.box)\($0.source)" }.sorted() + reference.codes.map { "\($0.box)\($0.source)\($0.text)" }.sorted()
                observations += truth.count
                differing += Set(truth).subtracting(seen).count
            }
        }
        XCTAssertGreaterThan(observations, 0)
        print("\(differing) of \(observations) warm-up observations differ from the whole run")
    }

    /// The small-face tiles across shards: the small-face scene (1080p, 15 tiles in turn, faces
    /// found up to 13 frames late and looked back on) cut every 0.77 s, frames 23 and 46, off the
    /// rotation: the rotation counts stream positions, so the shards search the same tile on each
    /// frame as the whole run, and the merged file is the whole run's, byte for byte.
    func testTiledShardsCutOffTheRotationMergeIntoTheWholeRun() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let scene = try SmallFacesScene.paths()
        let (whole, merged, _) = try wholeAndMerged(["--codes", "off"], cuts: ["--shard-length", "0.77", "--warmup", "1"], in: dir,
                                                    input: scene.video)
        let records = try RecordFile(path: whole)
        XCTAssertTrue(records.frames.contains { $0.faceSearch?.tile?.count == 15 }, "the scene is tiled")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: merged)), try Data(contentsOf: URL(fileURLWithPath: whole)))
    }

    /// Identities across shards: the 16 shots of 7 people (`IdentityTests`, 24 fps, a cut every
    /// 24 frames) cut every 5.7 s, off the sampling grid (every fifth frame) and inside shots: the
    /// shard cut at frame 137 runs through person 5's first appearance (shot 5), the one at 274
    /// through person 5's second (shot 11). Merge replays the whole run's linking from the faces
    /// the shards embedded: the merged file is the whole run's, byte for byte.
    func testShardsWithIdentitiesMergeIntoTheWholeRunsPeople() throws {
        try PeopleFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let video = PeopleFixture.video
        let options = ["--codes", "off", "--identities", "on"]
        let (whole, merged, out) = try wholeAndMerged(options, cuts: ["--shard-length", "5.7", "--warmup", "2"], in: dir, input: video)
        let wholeData = try Data(contentsOf: URL(fileURLWithPath: whole))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: merged)), wholeData)

        // The people are not trivial: all 7, one per person, and the shard cuts split tracks.
        let records = try jsonLines(wholeData)
        let people = records.filter { $0["type"] as? String == "identity" }
        let tracks = records.filter { $0["type"] as? String == "track" }
        XCTAssertEqual(people.count, Set(IdentityTests.shots).count)
        XCTAssertTrue(people.contains { ($0["tracks"] as? [Any] ?? []).count >= 3 }, "a person in three shots has three tracks")
        let shardStarts = [137, 274]   // 5.7 s × 24 fps, rounded up
        func crossed(_ first: String, _ last: String) -> (([String: Any]) -> Bool) {
            { record in shardStarts.contains { ($0 > (record[first] as? Int ?? .max)) && $0 <= (record[last] as? Int ?? -1) } }
        }
        let crossing = tracks.filter(crossed("first_frame", "last_frame"))
        XCTAssertEqual(crossing.count, 2, "each shard cut runs through one track")
        XCTAssertTrue(crossing.allSatisfy { $0["identity"] as? Int != nil }, "tracks across a shard cut are linked")
        // Track ids count in order of appearance: a person's tracks after the first are later appearances.
        let crossingIDs = Set(crossing.compactMap { $0["id"] as? Int })
        XCTAssertTrue(people.contains { ($0["tracks"] as? [Int] ?? []).dropFirst().contains(where: crossingIDs.contains) },
                      "a shard cut runs through a person's second appearance")
        XCTAssertTrue(records.allSatisfy { $0["type"] as? String != "sample" && $0["embedding"] == nil }, "a whole run writes no embedding")

        // The shards hold the samples merge needed; they validate against the schemas.
        let shardFiles = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.contains(".shard-") }.sorted()
            .map { URL(fileURLWithPath: out).appendingPathComponent($0).path }
        XCTAssertEqual(shardFiles.count, 3)
        let wholeIdentities = Dictionary(uniqueKeysWithValues: records.filter { $0["type"] as? String == "frame" }
            .map { (($0["index"] as? Int) ?? -1, ($0["faces"] as? [[String: Any]] ?? []).map { $0["identity"] as? Int }) })
        var relinked = 0
        for file in shardFiles {
            let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: file)))
            XCTAssertTrue(lines.contains { $0["type"] as? String == "sample" && ($0["embedding"] as? [Double])?.count == 128 }, file)
            // What each shard linked alone numbers people from 1 and misses the earlier shards' people.
            relinked += lines.filter { $0["type"] as? String == "frame" }
                .filter { wholeIdentities[$0["index"] as? Int ?? -1] != ($0["faces"] as? [[String: Any]] ?? []).map { $0["identity"] as? Int } }.count
        }
        XCTAssertGreaterThan(relinked, 0, "merge gave faces identities their shards did not")
        let validation = try runProcess("/usr/bin/python3", [Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path] + shardFiles + [merged])
        XCTAssertEqual(validation.status, 0, validation.stdoutText + validation.stderr)

        // A shard without its samples, a shard run without identities: one line each, no file.
        let plan = dir.appendingPathComponent("plan-\((options + ["--shard-length", "5.7", "--warmup", "2"]).joined(separator: "_")).jsonl").path
        let noSamples = dir.appendingPathComponent("no-samples.jsonl").path
        let text = try String(contentsOfFile: shardFiles[2], encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("{\"type\":\"sample\"") }
        try (text.joined(separator: "\n") + "\n").write(toFile: noSamples, atomically: true, encoding: .utf8)
        let plain = dir.appendingPathComponent("plain.jsonl").path
        let shardArgs = try XCTUnwrap(try jsonLines(try Data(contentsOf: URL(fileURLWithPath: plan)))[2]["args"] as? [String])
        let plainArgs = Array(shardArgs.dropLast(2)) + ["-o", plain, "--codes", "off"]
        XCTAssertEqual(sightline(plainArgs).status, 0)
        try FileManager.default.removeItem(atPath: merged)
        for (name, third, message) in [("no samples", noSamples, "no identity sample of its face track"),
                                       ("no identities", plain, "written without --identities on, but")] {
            var files = shardFiles
            files[2] = third
            let result = sightline(["merge", plan] + files)
            XCTAssertEqual(result.status, 65, "\(name): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message) && result.stderr.contains(third), "\(name): \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: merged), name)
        }
    }

    func testMergeRefusesShardsThatAreNotOneTimeline() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let cheap = ["--faces", "off", "--codes", "off"]
        let plan = dir.appendingPathComponent("plan.jsonl").path
        XCTAssertEqual(sightline("plan", Fixtures.sample, "--shard-length", "3", "--output-dir", out, "-o", plan).status, 0)
        try runShards(plan, cheap)
        let shard = { (n: Int) in URL(fileURLWithPath: out).appendingPathComponent(String(format: "faces-and-codes-720p.shard-%04d.jsonl", n)).path }
        XCTAssertTrue((0..<4).allSatisfy { FileManager.default.fileExists(atPath: shard($0)) })
        XCTAssertFalse(FileManager.default.fileExists(atPath: shard(0) + ".partial"))

        // Another plan's shard (other cuts), a shard of another file, a truncated shard.
        let otherPlan = dir.appendingPathComponent("other-plan.jsonl").path
        let otherOut = dir.appendingPathComponent("other").path
        try FileManager.default.createDirectory(atPath: otherOut, withIntermediateDirectories: true)
        XCTAssertEqual(sightline("plan", Fixtures.sample, "--shard-length", "2", "--output-dir", otherOut, "-o", otherPlan).status, 0)
        let overlapping = URL(fileURLWithPath: otherOut).appendingPathComponent("faces-and-codes-720p.shard-0001.jsonl").path
        XCTAssertEqual(sightline(["analyze", Fixtures.sample, "--start", "2", "--duration", "2", "--warmup", "2",
                                                        "-q", "-o", overlapping] + cheap).status, 0)
        let copy = dir.appendingPathComponent("copy.mp4").path
        try FileManager.default.copyItem(atPath: Fixtures.sample, toPath: copy)
        let foreign = dir.appendingPathComponent("foreign.jsonl").path
        XCTAssertEqual(sightline(["analyze", copy, "--start", "3", "--duration", "3", "-q", "-o", foreign] + cheap).status, 0)
        let truncated = dir.appendingPathComponent("truncated.jsonl").path
        let full = try Data(contentsOf: URL(fileURLWithPath: shard(1)))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: truncated))
        let cutAtLine = dir.appendingPathComponent("cut-at-a-line.jsonl").path
        let text = String(decoding: full, as: UTF8.self).split(separator: "\n")
        try (text.dropLast(3).joined(separator: "\n") + "\n").write(toFile: cutAtLine, atomically: true, encoding: .utf8)

        let cases: [(String, [String], Int32, String)] = [
            ("missing", [shard(0), shard(1), shard(3)], 66, "shard 2 of \(Fixtures.sample) (6.000000–9.000000 s) missing"),
            ("overlapping", [shard(0), shard(1), shard(2), shard(3), overlapping], 65, "starts at 2.000000 s, where no shard"),
            ("twice", [shard(0), shard(1), shard(1), shard(2), shard(3)], 65, "both are shard 1"),
            ("other file", [shard(0), shard(1), shard(2), shard(3), foreign], 65, "a shard of \(copy), which is not an input"),
            ("truncated", [shard(0), truncated, shard(2), shard(3)], 65, "truncated: the last line has no newline"),
            ("cut at a line", [shard(0), cutAtLine, shard(2), shard(3)], 65, "truncated: no summary record"),
        ]
        for (name, files, code, message) in cases {
            let result = sightline(["merge", plan] + files)
            XCTAssertEqual(result.status, code, "\(name): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(name): \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: URL(fileURLWithPath: out).appendingPathComponent("faces-and-codes-720p.jsonl").path), name)
        }
        // All four: one file, the frames of one run.
        let merged = sightline("merge", plan, "-q")
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let records = try RecordFile(path: URL(fileURLWithPath: out).appendingPathComponent("faces-and-codes-720p.jsonl").path)
        XCTAssertEqual(records.frames.map(\.index), Array(0..<300))
    }

    /// `plan --output-dir` names a folder that is not there yet: plan creates it (parents too), so
    /// the shards run as planned and merge. Before: every shard failed with exit 73 and merge said
    /// the shards were missing. A folder that cannot be made is exit 73, one line, and no plan.
    func testPlanCreatesItsOutputFolder() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let out = dir.appendingPathComponent("not/there/yet").path
        let plan = dir.appendingPathComponent("plan.jsonl").path
        let planned = sightline("plan", Fixtures.sample, "--shards", "2", "--output-dir", out, "-o", plan)
        XCTAssertEqual(planned.status, 0, planned.stderr)
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory) && isDirectory.boolValue)
        try runShards(plan, ["--faces", "off", "--codes", "off"])
        let merge = sightline("merge", plan, "-q")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        let records = try RecordFile(path: URL(fileURLWithPath: out).appendingPathComponent("faces-and-codes-720p.jsonl").path)
        XCTAssertEqual(records.frames.map(\.index), Array(0..<300))

        let file = dir.appendingPathComponent("a-file").path
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        for (target, cause) in [(file, "not a folder"), (file + "/sub", "Not a directory")] {
            let other = dir.appendingPathComponent("other-plan.jsonl").path
            let refused = sightline("plan", Fixtures.sample, "--shards", "2", "--output-dir", target, "-o", other)
            XCTAssertEqual(refused.status, 73, refused.stderr)
            XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
            XCTAssertTrue(refused.stderr.contains(target) && refused.stderr.contains(cause), refused.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: other))
        }
    }

    /// The merged summary counts what the shards' summaries counted. A damaged stream (bit flips
    /// in its first 2 s: a frame dropped out of presentation order, a corrupt packet) as one shard:
    /// the merged summary is the shard's. Two shards whose summaries
    /// hold every counter: the merged summary adds them up. Before: out_of_order_frames was 0.
    func testMergeAddsUpTheShardsSummaryCounts() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample)))
        let recipe = try String(contentsOf: HardeningRegressionTests.regressions.appendingPathComponent("media/sample-bitflips-pts-backwards.flips"),
                                encoding: .utf8)
        for line in recipe.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            bytes[try XCTUnwrap(Int(fields[0]))] ^= try XCTUnwrap(UInt8(fields[1].dropFirst(2), radix: 16))
        }
        let input = dir.appendingPathComponent("damaged.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let out = dir.appendingPathComponent("out").path
        let plan = dir.appendingPathComponent("plan.jsonl").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        XCTAssertEqual(sightline("plan", input, "--shards", "1", "--output-dir", out, "-o", plan).status, 0)
        let shard = try XCTUnwrap(try jsonLines(try Data(contentsOf: URL(fileURLWithPath: plan))).first)
        XCTAssertEqual(sightline(try XCTUnwrap(shard["args"] as? [String]) + ["--faces", "off"]).status, 2)
        let shardSummary = try XCTUnwrap(try jsonLines(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(shard["output"] as? String)))).last)
        XCTAssertGreaterThanOrEqual(shardSummary["out_of_order_frames"] as? Int ?? 0, 1)
        let merge = sightline("merge", plan, "-q")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        let merged = try XCTUnwrap(try jsonLines(try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("damaged.jsonl"))).last)
        XCTAssertEqual(merged as NSDictionary, shardSummary as NSDictionary)

        // Two shards of the sample, their summaries given every counter a run can report.
        let cleanOut = dir.appendingPathComponent("clean").path
        let cleanPlan = dir.appendingPathComponent("clean-plan.jsonl").path
        try FileManager.default.createDirectory(atPath: cleanOut, withIntermediateDirectories: true)
        XCTAssertEqual(sightline("plan", Fixtures.sample, "--shards", "2", "--output-dir", cleanOut, "-o", cleanPlan).status, 0)
        try runShards(cleanPlan, ["--faces", "off", "--codes", "off"])
        let counters: [[String: Any]] = [
            ["analyzer_errors": 1, "corrupt_frames": 2, "out_of_order_frames": 3, "lost_frames": 4, "wall_seconds": 1.5,
             "output_errors": ["a.mp4: disk full"]],
            ["analyzer_errors": 10, "corrupt_frames": 20, "out_of_order_frames": 30, "lost_frames": 40, "wall_seconds": 2.25,
             "read_error": "truncated", "output_errors": ["b.mp4: disk full"]],
        ]
        for (n, extra) in counters.enumerated() {
            let path = URL(fileURLWithPath: cleanOut).appendingPathComponent(String(format: "faces-and-codes-720p.shard-%04d.jsonl", n))
            // Only the summary line is rewritten: the other lines stay as the shard wrote them.
            var lines = String(decoding: try Data(contentsOf: path), as: UTF8.self).split(separator: "\n").map(String.init)
            var summary = try XCTUnwrap(try jsonLines(Data(lines[lines.count - 1].utf8)).first)
            summary.merge(extra) { _, new in new }
            lines[lines.count - 1] = String(decoding: try JSONSerialization.data(withJSONObject: summary), as: UTF8.self)
            try (lines.joined(separator: "\n") + "\n").write(to: path, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(sightline("merge", cleanPlan, "-q").status, 0)
        let sums = try XCTUnwrap(try jsonLines(try Data(contentsOf: URL(fileURLWithPath: cleanOut).appendingPathComponent("faces-and-codes-720p.jsonl"))).last)
        XCTAssertEqual(sums["frames"] as? Int, 300)
        XCTAssertEqual(sums["analyzer_errors"] as? Int, 11)
        XCTAssertEqual(sums["corrupt_frames"] as? Int, 22)
        XCTAssertEqual(sums["out_of_order_frames"] as? Int, 33)
        XCTAssertEqual(sums["lost_frames"] as? Int, 44)
        XCTAssertEqual(sums["dropped_frames"] as? Int, 0)
        XCTAssertEqual(sums["wall_seconds"] as? Double, 3.75)
        XCTAssertEqual(sums["read_error"] as? String, "truncated")
        XCTAssertEqual(sums["output_errors"] as? [String], ["a.mp4: disk full", "b.mp4: disk full"])
    }

    /// Schema 1 records of a run with --start, on a video that starts after its audio (schema 1
    /// counted `start` from the video stream's start): `report --video` decodes the run's span on
    /// the file's timeline as `render` does. Before: report started
    /// 0.85 s early and refused the records as another video's (exit 65).
    func testSchemaOneRecordsWithAStartReportAsTheyRender() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let input = try videoAfterAudio(in: dir)
        let records = dir.appendingPathComponent("new.jsonl").path
        XCTAssertEqual(sightline("analyze", input, "-q", "--start", "2", "--duration", "1", "--faces", "off", "--codes", "off",
                                     "-o", records).status, 0)
        var first: Int?
        let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: records))).map { line in
            var line = line
            if line["type"] as? String == "stream" {
                line["schema"] = 1
                line["start"] = 2 - 0.85
                for key in ["start_time", "stream_start_time", "variable_frame_rate"] { line[key] = nil }
            }
            if line["type"] as? String == "frame", let index = line["index"] as? Int {
                first = first ?? index
                line["index"] = index - first!
            }
            return line
        }
        XCTAssertEqual(first, 29)   // (2 - 0.85) s at 25 fps
        let old = dir.appendingPathComponent("old.jsonl").path
        let text = try lines.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        try text.write(toFile: old, atomically: true, encoding: .utf8)
        let rendered = sightline("render", input, old, "-o", dir.appendingPathComponent("old.mp4").path, "-q")
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        for (name, file) in [("new", records), ("old", old)] {
            let page = dir.appendingPathComponent("\(name).html").path
            let report = sightline("report", file, "--video", input, "-q", "-o", page)
            XCTAssertEqual(report.status, 0, "\(name): \(report.stderr)")
        }
    }

    func testSchemaOneRecordsStillRender() throws {
        // Records as schema 1 wrote them: indexes from 0 after --start, and no start times.
        let dir = try Fixtures.temporaryDirectory(self)
        let records = dir.appendingPathComponent("new.jsonl").path
        XCTAssertEqual(sightline("analyze", Fixtures.sample, "-q", "--start", "4", "--duration", "1", "-o", records).status, 0)
        var lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: records)))
        XCTAssertEqual(lines[1]["index"] as? Int, 120)
        var first: Int?
        lines = lines.map { line in
            var line = line
            if line["type"] as? String == "stream" {
                line["schema"] = 1
                for key in ["start_time", "stream_start_time", "variable_frame_rate"] { line[key] = nil }
            }
            if line["type"] as? String == "frame", let index = line["index"] as? Int {
                first = first ?? index
                line["index"] = index - first!
            }
            return line
        }
        let old = dir.appendingPathComponent("old.jsonl").path
        let text = try lines.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        try text.write(toFile: old, atomically: true, encoding: .utf8)
        let a = dir.appendingPathComponent("a.mp4").path, b = dir.appendingPathComponent("b.mp4").path
        let renderNew = sightline("render", Fixtures.sample, records, "-o", a, "-q")
        XCTAssertEqual(renderNew.status, 0, renderNew.stderr)
        let renderOld = sightline("render", Fixtures.sample, old, "-o", b, "-q")
        XCTAssertEqual(renderOld.status, 0, renderOld.stderr)
        XCTAssertEqual(try Media.frameHashes(a), try Media.frameHashes(b))
        XCTAssertEqual(try Media.frameHashes(a).count, 30)
        for command in [["tracks", old], ["audit", old, Fixtures.sampleTruth], ["diff", old, records, "--match", "time"]] {
            let result = sightline(command)
            XCTAssertTrue([0, 3].contains(result.status), "\(command): \(result.stderr)")
        }
    }
}
