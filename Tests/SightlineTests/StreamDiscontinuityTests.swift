import Foundation
import XCTest

/// Real-world streams: MPEG-TS segments joined end to end (each segment's clock restarts) and a
/// stream whose frames change size. The segments are cut from the sample at test time, so the
/// sample's truth says what each holds: 1 s at 1280x720 from 0 s, at 640x360 from 4 s, at
/// 1920x1080 from 7 s.
final class StreamDiscontinuityTests: XCTestCase {
    private struct Segment {
        var start: Int   // the sample's frame the segment starts at
        var width: Int
        var height: Int
    }
    private let segments = [Segment(start: 0, width: 1280, height: 720), Segment(start: 120, width: 640, height: 360),
                            Segment(start: 210, width: 1920, height: 1080)]
    private let framesPerSegment = 30

    /// The segments as MPEG-TS files (x264 with B-frames, so pts and dts differ).
    private func makeSegments(in dir: URL) throws -> [String] {
        try segments.enumerated().map { k, s in
            let out = dir.appendingPathComponent("segment\(k).ts").path
            try ffmpeg("-ss", String(Double(s.start) / 30), "-i", Fixtures.sample, "-frames:v", "\(framesPerSegment)",
                       "-vf", "scale=\(s.width):\(s.height)", "-c:v", "libx264", "-preset", "veryfast", "-g", "15",
                       "-threads", "1", "-f", "mpegts", out)
            return out
        }
    }

    private func records(_ path: String) throws -> [[String: Any]] {
        try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func validate(_ path: String) throws {
        let script = Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path
        let run = try runProcess("/usr/bin/python3", ["-W", "ignore", script, path])
        XCTAssertEqual(run.status, 0, run.stdoutText + run.stderr)
    }

    /// The truth's faces of sample frame `index`, scaled to `segment`'s size.
    private func truthFaces(_ truth: [Int: [[String: Any]]], frame index: Int, in segment: Segment) -> [(Double, Double, Double, Double)] {
        let scale = Double(segment.width) / 1280
        return (truth[index] ?? []).compactMap { face in
            guard let b = face["box"] as? [String: Double] else { return nil }
            return (b["x"]! * scale, b["y"]! * scale, b["w"]! * scale, b["h"]! * scale)
        }
    }

    private func iou(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Double {
        let w = min(a.0 + a.2, b.0 + b.2) - max(a.0, b.0), h = min(a.1 + a.3, b.1 + b.3) - max(a.1, b.1)
        guard w > 0, h > 0 else { return 0 }
        return w * h / (a.2 * a.3 + b.2 * b.3 - w * h)
    }

    /// What holds for any joined stream: one frame record per frame, `t` and `pts` strictly
    /// increasing, each frame's size in its record when it is not the stream's, every box inside
    /// its frame, a discontinuity record before each segment's first frame, no track across one,
    /// and the sample's faces and QR code found in every segment.
    private func checkJoined(_ lines: [[String: Any]], clockJumps: Bool) throws {
        let stream = try XCTUnwrap(lines.first)
        XCTAssertEqual(stream["width"] as? Int, 1280)
        let frames = lines.filter { $0["type"] as? String == "frame" }
        XCTAssertEqual(frames.count, segments.count * framesPerSegment)
        XCTAssertEqual(frames.compactMap { $0["index"] as? Int }, Array(0..<frames.count))
        let t = frames.compactMap { ($0["t"] as? NSNumber)?.doubleValue }
        let pts = frames.compactMap { ($0["pts"] as? NSNumber)?.int64Value }
        XCTAssertEqual(t.count, frames.count)
        XCTAssertTrue(zip(t, t.dropFirst()).allSatisfy { $0 < $1 }, "t not strictly increasing")
        XCTAssertTrue(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 }, "pts not strictly increasing")
        // Within a segment, t steps by the frame duration exactly.
        for (k, _) in segments.enumerated() {
            let first = k * framesPerSegment
            for i in first + 1..<first + framesPerSegment {
                XCTAssertEqual(t[i] - t[i - 1], 1.0 / 30, accuracy: 2e-6, "frame \(i)")
            }
        }

        let discontinuities = lines.filter { $0["type"] as? String == "discontinuity" }
        XCTAssertEqual(discontinuities.compactMap { $0["index"] as? Int }, [framesPerSegment, 2 * framesPerSegment])
        for (n, d) in discontinuities.enumerated() {
            let before = segments[n], after = segments[n + 1]
            let size = try XCTUnwrap(d["size"] as? [String: [Int]])
            XCTAssertEqual(size["old"], [before.width, before.height])
            XCTAssertEqual(size["new"], [after.width, after.height])
            if clockJumps {
                let clock = try XCTUnwrap(d["clock"] as? [String: Any], "\(d)")
                let old = try XCTUnwrap(clock["old_pts"] as? Int), new = try XCTUnwrap(clock["new_pts"] as? Int)
                XCTAssertLessThan(new, old, "the clock restarts")
            } else {
                XCTAssertNil(d["clock"])
            }
            // The record comes right before its frame's record.
            let at = try XCTUnwrap(lines.firstIndex { $0["type"] as? String == "discontinuity" && $0["index"] as? Int == d["index"] as? Int })
            XCTAssertEqual(lines[at + 1]["type"] as? String, "frame")
            XCTAssertEqual(lines[at + 1]["index"] as? Int, d["index"] as? Int)
            XCTAssertEqual(lines[at + 1]["pts"] as? Int, d["pts"] as? Int)
        }

        // Sizes and boxes.
        for frame in frames {
            let index = try XCTUnwrap(frame["index"] as? Int)
            let segment = segments[index / framesPerSegment]
            if segment.width == 1280 {
                XCTAssertNil(frame["width"], "frame \(index)")
            } else {
                XCTAssertEqual(frame["width"] as? Int, segment.width, "frame \(index)")
                XCTAssertEqual(frame["height"] as? Int, segment.height, "frame \(index)")
            }
            for object in (frame["faces"] as? [[String: Any]] ?? []) + (frame["codes"] as? [[String: Any]] ?? []) {
                let b = try XCTUnwrap(object["box"] as? [String: Double])
                XCTAssertGreaterThanOrEqual(b["x"]!, -0.01, "frame \(index)")
                XCTAssertGreaterThanOrEqual(b["y"]!, -0.01, "frame \(index)")
                XCTAssertLessThanOrEqual(b["x"]! + b["w"]!, Double(segment.width) + 0.01, "frame \(index)")
                XCTAssertLessThanOrEqual(b["y"]! + b["h"]!, Double(segment.height) + 0.01, "frame \(index)")
            }
        }
        // No track spans a discontinuity.
        for track in lines where track["type"] as? String == "track" {
            let first = try XCTUnwrap(track["first_frame"] as? Int), last = try XCTUnwrap(track["last_frame"] as? Int)
            XCTAssertEqual(first / framesPerSegment, last / framesPerSegment, "track \(track["id"] ?? 0) spans a discontinuity")
        }

        // The sample's faces (against the truth, scaled) and its first QR code in every segment.
        var truth: [Int: [[String: Any]]] = [:]
        for line in try records(Fixtures.sampleTruth) where line["type"] as? String == "frame" {
            truth[try XCTUnwrap(line["index"] as? Int)] = line["faces"] as? [[String: Any]]
        }
        for (k, segment) in segments.enumerated() {
            var expected = 0, found = 0, qr = 0
            for i in 0..<framesPerSegment {
                let frame = frames[k * framesPerSegment + i]
                let boxes = (frame["faces"] as? [[String: Any]] ?? []).compactMap { $0["box"] as? [String: Double] }
                    .map { ($0["x"]!, $0["y"]!, $0["w"]!, $0["h"]!) }
                for face in truthFaces(truth, frame: segment.start + i, in: segment) {
                    expected += 1
                    if boxes.contains(where: { iou($0, face) >= 0.4 }) { found += 1 }
                }
                if (frame["codes"] as? [[String: Any]] ?? []).contains(where: { $0["text"] as? String == "https://example.org/sightline/qr-1" }) {
                    qr += 1
                }
            }
            XCTAssertEqual(expected, 2 * framesPerSegment)
            XCTAssertGreaterThanOrEqual(Double(found), 0.9 * Double(expected), "faces found in segment \(k)")
            XCTAssertGreaterThanOrEqual(qr, framesPerSegment * 9 / 10, "QR code read in segment \(k)")
        }
        let summary = try XCTUnwrap(lines.last)
        XCTAssertEqual(summary["type"] as? String, "summary")
        XCTAssertEqual(summary["discontinuities"] as? Int, 2)
        XCTAssertEqual(summary["out_of_order_frames"] as? Int, 0)
        XCTAssertEqual(summary["corrupt_frames"] as? Int, 0)
    }

    /// Segments joined with `cat`: each one's clock restarts. Before: the first segment was
    /// analyzed, the others dropped as out of presentation order, exit 2. Now every frame is on
    /// one timeline, a discontinuity record marks each join, the tracks end there, and the
    /// rendered video (scaled to the first size) has every frame.
    func testSegmentsJoinedEndToEndGoOnOneTimeline() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let parts = try makeSegments(in: dir)
        let joined = dir.appendingPathComponent("joined.ts")
        var data = Data()
        for part in parts { data.append(try Data(contentsOf: URL(fileURLWithPath: part))) }
        try data.write(to: joined)
        let out = dir.appendingPathComponent("joined.jsonl").path, video = dir.appendingPathComponent("joined.mp4").path
        let run = sightline("analyze", joined.path, "-q", "-o", out, "--render", video, "--threads", "2")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        let lines = try records(out)
        try checkJoined(lines, clockJumps: true)
        try validate(out)
        // The rendered video: every frame, at the stream's size, in the records' order.
        let pts = lines.filter { $0["type"] as? String == "frame" }.compactMap { ($0["pts"] as? NSNumber)?.int64Value }
        let decoded = try Media.decodedFrames(video)
        XCTAssertEqual(decoded.errors, "")
        XCTAssertEqual(decoded.pts.count, pts.count)
        let size = try Media.size(video)
        XCTAssertEqual([size.width, size.height], [1280, 720])

        // Shards of the joined file (a clock that jumps: read from the start, frames before the
        // shard's start decoded and left out) merge into the whole run's records.
        let shards = dir.appendingPathComponent("shards").path
        let plan = dir.appendingPathComponent("plan.jsonl").path
        try FileManager.default.createDirectory(atPath: shards, withIntermediateDirectories: true)
        XCTAssertEqual(sightline("plan", joined.path, "--shards", "2", "--output-dir", shards, "-o", plan).status, 0)
        // Cut halfway through the whole timeline (the container's duration covers the last
        // segment only): the second shard starts at a key frame near 1.5 s.
        let second = try XCTUnwrap(try records(plan).first { $0["shard"] as? Int == 1 })
        XCTAssertEqual(try XCTUnwrap((second["start"] as? NSNumber)?.doubleValue), 1.5, accuracy: 0.5)
        var shardRuns = 0
        for shard in try records(plan) {
            guard let args = shard["args"] as? [String] else { continue }
            let run = sightline(args)
            XCTAssertEqual(run.status, 0, run.stderr)
            shardRuns += 1
        }
        XCTAssertEqual(shardRuns, 2)
        let merge = sightline("merge", plan, "-q")
        XCTAssertEqual(merge.status, 0, merge.stderr)
        let merged = try String(contentsOfFile: shards + "/joined.jsonl", encoding: .utf8).split(separator: "\n").dropFirst()
        let whole = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertEqual(Array(merged), Array(whole))

        // Rendering from the records follows the same timeline.
        let rendered = dir.appendingPathComponent("rendered.mp4").path
        let render = sightline("render", joined.path, out, "-o", rendered, "-q")
        XCTAssertEqual(render.status, 0, render.stderr)
        XCTAssertEqual(try Media.ptsList(rendered).count, pts.count)
    }

    /// The same segments joined by FFmpeg's concat demuxer: one continuous clock, three sizes.
    /// Each frame's box is in its own pixels, the records say the size, no track spans a change,
    /// and the anonymized video plays with every frame.
    func testFramesThatChangeSizeAreMarkedAndAnonymized() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let parts = try makeSegments(in: dir)
        let list = dir.appendingPathComponent("list.txt")
        try parts.map { "file '\($0)'" }.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let joined = dir.appendingPathComponent("concat.ts").path
        try ffmpeg("-f", "concat", "-safe", "0", "-i", list.path, "-c", "copy", joined)
        let out = dir.appendingPathComponent("concat.jsonl").path
        let run = sightline("analyze", joined, "-q", "-o", out)
        XCTAssertEqual(run.status, 0, run.stderr)
        try checkJoined(try records(out), clockJumps: false)
        try validate(out)

        let anonymized = dir.appendingPathComponent("anonymized.mp4").path
        let anonymize = sightline("anonymize", joined, "-o", anonymized, "-q")
        XCTAssertEqual(anonymize.status, 0, anonymize.stderr)
        let decoded = try Media.decodedFrames(anonymized)
        XCTAssertEqual(decoded.errors, "")
        XCTAssertEqual(decoded.pts.count, segments.count * framesPerSegment)
        let size = try Media.size(anonymized)
        XCTAssertEqual([size.width, size.height], [1280, 720])

        // COCO: each image its own size, every box inside it. CVAT for video (one size): the
        // boxes of frames of another size scaled to the stream's.
        let coco = dir.appendingPathComponent("concat.coco.json").path
        XCTAssertEqual(sightline("export", out, "--format", "coco", "-o", coco).status, 0)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: coco))) as? [String: Any])
        var imageSize: [Int: [Int]] = [:]
        for image in try XCTUnwrap(json["images"] as? [[String: Any]]) {
            imageSize[try XCTUnwrap(image["id"] as? Int)] = [try XCTUnwrap(image["width"] as? Int), try XCTUnwrap(image["height"] as? Int)]
        }
        XCTAssertEqual(Set(imageSize.values), Set(segments.map { [$0.width, $0.height] }))
        XCTAssertEqual(imageSize[2 * framesPerSegment + 1], [1920, 1080])
        for annotation in try XCTUnwrap(json["annotations"] as? [[String: Any]]) {
            let b = try XCTUnwrap(annotation["bbox"] as? [Double]), s = try XCTUnwrap(imageSize[try XCTUnwrap(annotation["image_id"] as? Int)])
            XCTAssertLessThanOrEqual(b[0] + b[2], Double(s[0]) + 0.01)
            XCTAssertLessThanOrEqual(b[1] + b[3], Double(s[1]) + 0.01)
        }
        let cvat = dir.appendingPathComponent("concat.xml").path
        XCTAssertEqual(sightline("export", out, "--format", "cvat-video", "-o", cvat).status, 0)
        let xml = try String(contentsOfFile: cvat, encoding: .utf8)
        let right = try NSRegularExpression(pattern: #"xbr="([0-9.]+)""#)
        let xbr = right.matches(in: xml, range: NSRange(xml.startIndex..., in: xml)).compactMap { Double((xml as NSString).substring(with: $0.range(at: 1))) }
        XCTAssertFalse(xbr.isEmpty)
        XCTAssertLessThanOrEqual(xbr.max() ?? 0, 1280.01)
        XCTAssertGreaterThan(xbr.max() ?? 0, 1000, "the EAN-13's right edge, at 1280x720")

        // The report cuts each track's picture from its own frame.
        let report = sightline("report", out, "--video", joined, "-o", dir.appendingPathComponent("report.html").path)
        XCTAssertEqual(report.status, 0, report.stderr)
    }
}
