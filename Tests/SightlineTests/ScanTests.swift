import Foundation
import XCTest
@testable import Sightline
@testable import SightlineRecordTools

/// `sightline scan` (key frames only, spans of what was seen) and `plan --from-scan` (exact
/// runs of those spans), on short 640x360 clips made from the sample at test time.
final class ScanTests: XCTestCase {
    /// The clips, made once per test process: `mixed.mp4` (6 s, 15 fps, a key frame every
    /// second: noise-only footage with the sample's first 2 s in it from 2 s to 4 s), `blank.mp4`
    /// (3 s of the footage, a key frame every 2 s) and the bad inputs made from them.
    private static let clips: Result<URL, Error> = Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let footage = "color=c=0x6a6f72:s=640x360:r=15:d=6"
        let x264 = ["-c:v", "libx264", "-preset", "veryfast", "-sc_threshold", "0", "-pix_fmt", "yuv420p"]
        try runFFmpeg(["-f", "lavfi", "-i", footage, "-t", "2", "-i", Fixtures.sample, "-filter_complex",
                       "[1:v]scale=640:360,fps=15,setpts=PTS-STARTPTS+2/TB[p];[0:v][p]overlay=eof_action=pass,noise=alls=6:allf=t[v]",
                       "-map", "[v]", "-g", "15", "-keyint_min", "15", "-movflags", "+faststart"] + x264 + [path("mixed.mp4")])
        try runFFmpeg(["-f", "lavfi", "-i", footage, "-t", "3", "-vf", "noise=alls=6:allf=t", "-g", "30", "-keyint_min", "30"]
                      + x264 + [path("blank.mp4")])
        // No key-frame index: MPEG-TS, and a raw H.264 stream (no timestamps at all).
        try runFFmpeg(["-i", path("mixed.mp4"), "-c", "copy", "-f", "mpegts", path("mixed.ts")])
        try runFFmpeg(["-i", path("mixed.mp4"), "-c", "copy", "-f", "h264", path("mixed.h264")])
        // All-intra: every frame a key frame.
        try runFFmpeg(["-i", path("blank.mp4"), "-t", "2", "-g", "1"] + x264 + [path("intra.mp4")])
        // Damaged: the first 60 % of mixed.mp4 (its index at the front, the media cut short).
        let whole = try Data(contentsOf: URL(fileURLWithPath: path("mixed.mp4")))
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: path("truncated.mp4")))
        try Data("not a video\n".utf8).write(to: URL(fileURLWithPath: path("notes.txt")))
        return dir
    }

    private static func runFFmpeg(_ arguments: [String]) throws {
        let result = try runProcess("/usr/bin/ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments)
        guard result.status == 0 else { throw "ffmpeg failed: \(result.stderr)" }
    }

    private func clip(_ name: String) throws -> String { try Self.clips.get().appendingPathComponent(name).path }

    /// A scan with the default detectors (codes only: `faces` false) into `index`.
    private func scan(_ files: [String], to index: String, faces: Bool = true, threads: Int = 2,
                      sampling: KeyFrameSampling = KeyFrameSampling()) throws -> ScanSummary {
        var options = ScanOptions(sampling: sampling, faces: FaceDetectorOptions(backend: faces ? .centerface : .off),
                                  codes: CodeReaderOptions(backend: .zxing))
        options.threads = threads
        return try ArchiveScanner(options).scan(files, into: JSONLinesWriter(path: index))
    }

    private func records(_ path: String, type: String) throws -> [[String: Any]] {
        try jsonLines(Data(contentsOf: URL(fileURLWithPath: path))).filter { $0["type"] as? String == type }
    }

    @discardableResult
    private func validate(_ path: String, valid: Bool = true) throws -> ProcessResult {
        let run = try runProcess("/usr/bin/python3", [Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path, path])
        XCTAssertEqual(run.status, valid ? 0 : 1, run.stdoutText + run.stderr)
        return run
    }

    func testTheFileWithSomethingInItIsFlaggedAroundItAndTheBlankOneIsNot() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let index = dir.appendingPathComponent("index.jsonl").path
        let summary = try scan([clip("mixed.mp4"), clip("blank.mp4")], to: index)
        XCTAssertEqual(summary.exitCode, 0)
        XCTAssertEqual(summary.flagged, 1)
        try validate(index)
        // A misspelled key, and totals that do not match the records, are caught.
        let text = try String(contentsOfFile: index, encoding: .utf8)
        let broken = dir.appendingPathComponent("broken.jsonl").path
        try text.replacingOccurrences(of: "\"first_seen\"", with: "\"first_sen\"")
            .replacingOccurrences(of: "\"samples\":6,", with: "\"samples\":5,").write(toFile: broken, atomically: true, encoding: .utf8)
        let problems = try validate(broken, valid: false).stdoutText
        XCTAssertTrue(problems.contains("first_sen"), problems)
        XCTAssertTrue(problems.contains("scan_totals: samples is 5 but the records of"), problems)

        // Every key frame of mixed.mp4 sampled, numbered as analyze numbers it.
        let samples = try records(index, type: "sampled_frame").filter { $0["source"] as? String == (try clip("mixed.mp4")) }
        XCTAssertEqual(samples.map { $0["index"] as? Int }, [0, 15, 30, 45, 60, 75])
        XCTAssertEqual(samples.map { $0["t"] as? Double }, [0, 1, 2, 3, 4, 5])
        // The sample is on screen from 2 s to 4 s: faces and codes on the samples at 2 and 3 only, no track ids.
        for sample in samples {
            let t = try XCTUnwrap(sample["t"] as? Double)
            let faces = try XCTUnwrap(sample["faces"] as? [[String: Any]]), codes = try XCTUnwrap(sample["codes"] as? [[String: Any]])
            XCTAssertEqual(!faces.isEmpty, t == 2 || t == 3, "faces at \(t)")
            XCTAssertEqual(!codes.isEmpty, t == 2 || t == 3, "codes at \(t)")
            XCTAssertTrue((faces + codes).allSatisfy { $0["track"] == nil })
        }
        // One span, widened to the neighbouring samples: it holds all of 2..4 s.
        let spans = try records(index, type: "span")
        XCTAssertEqual(spans.count, 1)
        XCTAssertEqual(spans.first?["source"] as? String, try clip("mixed.mp4"))
        XCTAssertEqual(spans.first?["start"] as? Double, 1)
        XCTAssertEqual(spans.first?["end"] as? Double, 4)
        let totals = try records(index, type: "scan_totals")
        XCTAssertEqual(totals.map { $0["status"] as? String }, ["ok", "ok"])
        XCTAssertEqual(totals.map { $0["spans"] as? Int }, [1, 0])
        XCTAssertEqual(totals.map { $0["frames"] as? Int }, [90, 45])
        XCTAssertEqual(totals.map { $0["key_frames"] as? Int }, [6, 2])

        // The same bytes with one thread.
        let single = dir.appendingPathComponent("single.jsonl").path
        _ = try scan([clip("mixed.mp4"), clip("blank.mp4")], to: single, threads: 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: single)), try Data(contentsOf: URL(fileURLWithPath: index)))
    }

    func testEveryTakesTheFirstKeyFrameAtOrAfterEachIntervalAndAllIntraIsSampledSparsely() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let index = dir.appendingPathComponent("every.jsonl").path
        _ = try scan([clip("mixed.mp4"), clip("intra.mp4")], to: index, faces: false, sampling: KeyFrameSampling(every: 2.5))
        let samples = try records(index, type: "sampled_frame")
        // Intervals start at 0, 2.5 and 5: the key frames at 0, 3 and 5; intra.mp4 (2 s): 0 and 2.5 → 0 only.
        XCTAssertEqual(samples.map { $0["t"] as? Double }, [0, 3, 5, 0])
        XCTAssertEqual(samples.map { $0["index"] as? Int }, [0, 45, 75, 0])

        // Every frame of intra.mp4 is a key frame: by default one per second at most.
        let sparse = dir.appendingPathComponent("intra.jsonl").path
        _ = try scan([clip("intra.mp4")], to: sparse, faces: false)
        XCTAssertEqual(try records(sparse, type: "sampled_frame").map { $0["index"] as? Int }, [0, 15])
        let totals = try XCTUnwrap(try records(sparse, type: "scan_totals").first)
        XCTAssertEqual(totals["all_intra"] as? Bool, true)
        XCTAssertEqual(totals["key_frames"] as? Int, 30)
    }

    /// The four bad inputs of the issue, a missing file and a file without a key-frame index:
    /// each gets one line naming it, its scan_totals, and the others go on.
    func testBadInputsGetALineEachAndTheOthersGoOn() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let index = dir.appendingPathComponent("index.jsonl").path
        let files = try ["truncated.mp4", "mixed.ts", "notes.txt", "mixed.h264", "intra.mp4", "missing.mp4", "blank.mp4"].map(clip)
        let run = sightline(["scan"] + files + ["-o", index, "--faces", "off"])
        // The first failed file's code: notes.txt is not a video.
        XCTAssertEqual(run.status, 65, run.stderr)
        let lines = run.stderr.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("sightline: \(files[0]): input damaged:") && $0.contains("truncated: the file ends after") }, run.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("sightline: \(files[2]): not a video file:") }, run.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("sightline: \(files[4]): every frame is a key frame") }, run.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("sightline: \(files[5]): cannot read input:") }, run.stderr)
        XCTAssertTrue(lines.last?.hasPrefix("scan: 7 files, 3 with something seen") ?? false, run.stderr)
        try validate(index)

        let totals = try records(index, type: "scan_totals")
        XCTAssertEqual(totals.map { $0["source"] as? String }, files)
        XCTAssertEqual(totals.map { $0["status"] as? String }, ["damaged", "ok", "failed", "ok", "ok", "failed", "ok"])
        XCTAssertEqual(totals.map { $0["spans"] as? Int }, [1, 1, 0, 1, 0, 0, 0])
        // MPEG-TS and raw H.264: the same key frames as the MP4 (raw H.264 has no timestamps:
        // frames are numbered, as analyze numbers them).
        let samples = try records(index, type: "sampled_frame")
        for (file, expected) in [(files[0], [0, 15, 30]), (files[1], [0, 15, 30, 45, 60, 75]), (files[3], [0, 15, 30, 45, 60, 75])] {
            let indexes = samples.filter { $0["source"] as? String == file }.compactMap { $0["index"] as? Int }
            XCTAssertEqual(Array(indexes.prefix(expected.count)), expected, file)
        }
        XCTAssertEqual(samples.filter { $0["source"] as? String == files[1] }.map { $0["t"] as? Double }, [0, 1, 2, 3, 4, 5])
        let summary = try XCTUnwrap(try records(index, type: "scan_summary").first)
        XCTAssertEqual(summary["failed"] as? Int, 2)
        XCTAssertEqual(summary["damaged"] as? Int, 1)
    }

    /// scan, plan --from-scan, the shards and merge: the merged records are the whole run's
    /// records of the same frames, and they hold every frame the whole run saw anything on.
    func testRefinedSpansAreTheWholeRunsRecordsOfTheirFrames() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let mixed = try clip("mixed.mp4")
        let index = dir.appendingPathComponent("index.jsonl").path, plan = dir.appendingPathComponent("plan.jsonl").path
        let out = dir.appendingPathComponent("out").path
        _ = try scan([mixed, clip("blank.mp4")], to: index)
        let planned = sightline("plan", "--from-scan", index, "--output-dir", out, "-o", plan)
        XCTAssertEqual(planned.status, 0, planned.stderr)
        let shards = try Shard.readPlan(plan)
        XCTAssertEqual(shards.map(\.start), [1])
        XCTAssertEqual(shards.map(\.duration), [3])
        XCTAssertEqual(shards.map(\.warmup), [1])
        for shard in shards {
            let run = sightline(shard.arguments)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let merge = sightline("merge", plan, "-q")
        XCTAssertEqual(merge.status, 0, merge.stderr)

        let whole = sightline("analyze", mixed, "-q")
        XCTAssertEqual(whole.status, 0, whole.stderr)
        func frames(_ data: Data) -> [Int: Substring] {
            var byIndex: [Int: Substring] = [:]
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("{\"type\":\"frame\",\"index\":") {
                byIndex[Int(line.dropFirst(24).prefix { $0.isNumber })!] = line
            }
            return byIndex
        }
        let wholeFrames = frames(whole.stdout)
        let merged = frames(try Data(contentsOf: URL(fileURLWithPath: shards[0].merged)))
        XCTAssertEqual(merged.keys.sorted(), Array(15..<60))
        for (index, line) in merged { XCTAssertEqual(line, wholeFrames[index], "frame \(index)") }
        let seen = wholeFrames.filter { !$0.value.contains("\"faces\":[],\"codes\":[]") }.keys
        XCTAssertFalse(seen.isEmpty)
        XCTAssertTrue(Set(seen).isSubset(of: merged.keys), "frames with something outside the spans: \(Set(seen).subtracting(merged.keys).sorted())")
    }

    func testSpansAreWidenedToTheNeighbouringSamplesAndCloseOnesRunAsOneShard() {
        func sample(_ t: Double, seen: Bool) -> FrameRecord {
            FrameRecord(index: Int(t * 10), pts: Int64(t * 10), t: t, faceStatus: .ok, codeStatus: .ok,
                        faces: seen ? [FaceObservation(box: Box(x: 0, y: 0, w: 40, h: 40), score: 0.9)] : [], codes: [])
        }
        let samples = [sample(0, seen: true), sample(2, seen: false), sample(4, seen: true), sample(6, seen: false),
                       sample(8, seen: false), sample(10, seen: false), sample(12, seen: true), sample(14, seen: true)]
        let spans = ScanSpan.spans(of: samples)
        // 0 and 4 meet at the sample at 2 between them; 12 and 14 run to the end of the stream.
        XCTAssertEqual(spans.map(\.start), [0, 10])
        XCTAssertEqual(spans.map(\.end), [6, nil])
        XCTAssertEqual(spans.map(\.samples), [2, 2])
        XCTAssertEqual(spans.map(\.firstSeen), [0, 12])

        // With 5 s of warm-up the two spans (4 s apart) run as one; with 2 s, as two, cut at 4 s.
        let joined = ShardPlanner(shardLength: nil, targetCount: nil, warmup: 5, atKeyframes: false, outputDirectory: "out")
            .shards(input: "a.mp4", spans: spans, stem: "a")
        XCTAssertEqual(joined.map(\.start), [0])
        XCTAssertEqual(joined.map(\.duration), [nil])
        let apart = ShardPlanner(shardLength: 4, targetCount: nil, warmup: 2, atKeyframes: false, outputDirectory: "out")
            .shards(input: "a.mp4", spans: spans, stem: "a")
        XCTAssertEqual(apart.map(\.start), [0, 4, 10])
        XCTAssertEqual(apart.map(\.duration), [4, 2, nil])
        XCTAssertEqual(apart.map(\.warmup), [0, 2, 2])
        XCTAssertEqual(apart.map(\.span), [0, 0, 1])
        XCTAssertEqual(apart.map(\.output), ["out/a.shard-0000.jsonl", "out/a.shard-0001.jsonl", "out/a.shard-0002.jsonl"])
    }

    /// On a region-searched frame the codes a whole-frame search read keep the reader's order;
    /// the region reads after them go in track order.
    func testMergeSortsOnlyRegionSearchedObservationsByTrack() {
        let line = #"{"type":"frame","codes":[{"track":5,"text":"b"},{"track":3,"text":"a"},{"track":9,"text":"d","source":"refined"},{"track":4,"text":"c","source":"refined"}]}"#
        XCTAssertEqual(ShardMerger.sortedByTrack(line, array: "codes"),
                       #"{"type":"frame","codes":[{"track":5,"text":"b"},{"track":3,"text":"a"},{"track":4,"text":"c","source":"refined"},{"track":9,"text":"d","source":"refined"}]}"#)
    }
}
