import XCTest
@testable import Sightline

/// Runs over the tracking scene (`Samples/make_scene.py`) held against its exact truth: codes
/// away from the frame's centre and moving, objects appearing off every detection grid, a code
/// covered for ten frames, a face partly covered, blurred frames.
final class TrackingSceneTests: XCTestCase {
    /// The scene's records with `options`, analyzed once per test process (tests share runs).
    private func records(_ options: [String]) throws -> Data {
        let scene = try TrackingScene.paths()
        return try Data(contentsOf: URL(fileURLWithPath: try SharedRuns.analyzed(scene.video, options)))
    }

    private func run(_ options: [String]) throws -> (records: RecordFile, tracks: [[String: Any]], truth: RecordFile) {
        let output = try records(options)
        let tracks = try jsonLines(output).filter { $0["type"] as? String == "track" }
        return (try RecordFile(jsonLines: output, path: "run"), tracks, try RecordFile(path: try TrackingScene.paths().truth))
    }

    /// Each truth object's first frame, and the first frame of the predicted track that holds it.
    private func firstFrames(_ run: (records: RecordFile, tracks: [[String: Any]], truth: RecordFile))
        -> [(truth: Int, expected: Int, got: Int?)] {
        var result: [(truth: Int, expected: Int, got: Int?)] = []
        let byIndex = Dictionary(uniqueKeysWithValues: run.records.frames.map { ($0.index, $0) })
        var objects: [Int: (first: Int, predicted: Int?)] = [:]
        for t in run.truth.frames {
            let p = byIndex[t.index]
            for face in t.faces {
                guard let id = face.track, objects[id] == nil else { continue }
                let match = p?.faces.first { face.box.iou($0.box) >= 0.5 }
                objects[id] = (t.index, match?.track)
            }
            for code in t.codes {
                guard let id = code.track, objects[id] == nil else { continue }
                let match = p?.codes.first { $0.bytes == code.bytes && code.box.contains($0.box.center) }
                objects[id] = (t.index, match?.track)
            }
        }
        for (id, o) in objects.sorted(by: { $0.key < $1.key }) {
            let track = run.tracks.first { $0["id"] as? Int == o.predicted }
            result.append((id, o.first, track?["first_frame"] as? Int))
        }
        return result
    }

    private func audit(_ run: (records: RecordFile, tracks: [[String: Any]], truth: RecordFile)) throws -> AuditReport {
        try Auditor().audit(predicted: run.records, truth: run.truth)
    }

    /// The default run reads every code on every frame it is visible, with no wrong payload and
    /// none reported while covered: known codes are read again in their regions on every frame,
    /// and a code that appears between full searches is found looking back from the next one.
    func testDefaultRunReadsEveryCodeOnEveryFrame() throws {
        let run = try run([])
        let report = try audit(run)
        let codes = try XCTUnwrap(report.codes)
        XCTAssertGreaterThanOrEqual(codes.detection.recall ?? 0, 0.995)
        XCTAssertEqual(codes.detection.falsePositives, 0)
        let payloads = try XCTUnwrap(codes.payloads)
        XCTAssertEqual(payloads.total.wrongPayload, 0)
        XCTAssertEqual(payloads.total.extra, 0)
        XCTAssertEqual(codes.tracking.clearMOT?.switches, 0)
        for object in firstFrames(run) {
            XCTAssertEqual(object.got, object.expected, "truth object \(object.truth)")
        }
    }

    /// With full detection on every 5th frame, faces that enter between detections have tracks
    /// that begin on the frame they appear, and nothing is lost or invented.
    func testDetectionStrideStartsEveryTrackOnItsFirstVisibleFrame() throws {
        let run = try run(["--detect-every", "5"])
        let report = try audit(run)
        let faces = try XCTUnwrap(report.faces), codes = try XCTUnwrap(report.codes)
        XCTAssertGreaterThanOrEqual(faces.detection.recall ?? 0, 0.99)
        XCTAssertEqual(faces.detection.falsePositives, 0)
        XCTAssertEqual(faces.tracking.clearMOT?.switches, 0)
        XCTAssertGreaterThanOrEqual(codes.detection.recall ?? 0, 0.995)
        XCTAssertEqual(codes.payloads?.total.wrongPayload, 0)
        for object in firstFrames(run) {
            XCTAssertEqual(object.got, object.expected, "truth object \(object.truth)")
        }
    }

    /// The records do not depend on the thread count (frames are held for looking back and handed
    /// on in order).
    func testLookBackOutputIsTheSameForAnyThreadCount() throws {
        // The default thread count is the cores' (the stride test's run).
        let more = ProcessInfo.processInfo.activeProcessorCount > 1 ? [] : ["--threads", "2"]
        XCTAssertEqual(try records(["--detect-every", "5", "--threads", "1"]), try records(["--detect-every", "5"] + more))
    }

    /// A crowd between detections: 40 faces (the sample's astronaut tiled 8 x 5) would cost the
    /// network more as 96x96 crops than one 640x352 pass, so the frames between full detections
    /// get a whole-frame detection instead; with 2 faces (the sample) they get crops. Either way
    /// every face is found on every frame and keeps its track.
    /// A known code is read in its region first along rows, dark on light, and with every pass
    /// when that finds nothing: turned a quarter, the scene's codes (its 1D codes read down the
    /// columns) are read on exactly the frames they are read upright; inverted (light on dark),
    /// its 2D codes are read on every frame they show, between full searches too.
    func testTurnedAndInvertedCodesAreReadInTheirRegions() throws {
        let scene = try TrackingScene.paths()
        let dir = try Fixtures.temporaryDirectory(self)
        func payloads(_ video: String) throws -> [Int: [String]] {
            let result = sightline(["analyze", video, "-q", "--faces", "off"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let frames = try RecordFile(jsonLines: result.stdout, path: video).frames
            XCTAssertEqual(frames.count, 300)
            return Dictionary(uniqueKeysWithValues: frames.map { ($0.index, $0.codes.map(\.text).sorted()) })
        }
        let upright = try payloads(scene.video)
        let turned = dir.appendingPathComponent("turned.mp4").path, inverted = dir.appendingPathComponent("inverted.mp4").path
        try ffmpeg("-i", scene.video, "-vf", "transpose=1", "-c:v", "libx264", "-crf", "18", "-preset", "ultrafast", turned)
        try ffmpeg("-i", scene.video, "-vf", "negate", "-c:v", "libx264", "-crf", "18", "-preset", "ultrafast", inverted)
        XCTAssertEqual(try payloads(turned), upright)
        let matrix: Set = ["https://example.org/sightline/scene-qr", "SIGHTLINE-DM-7", "SIGHTLINE-QR-8 enters late"]
        let read = try payloads(inverted)
        for (index, texts) in upright {
            XCTAssertEqual(read[index], texts.filter(matrix.contains), "frame \(index)")
        }
    }

    func testACrowdBetweenDetectionsIsDetectedWhole() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let still = dir.appendingPathComponent("crowd.png").path, video = dir.appendingPathComponent("crowd.mp4").path
        // The sample's first face (its truth box is 108 px at x 54, y 555) in a 160x144 cell.
        try ffmpeg("-i", Fixtures.sample, "-vf", "select=eq(n\\,0),crop=160:144:28:537,loop=39:1:0,tile=8x5", "-frames:v", "1", still)
        try ffmpeg("-loop", "1", "-i", still, "-r", "30", "-frames:v", "12", "-pix_fmt", "yuv420p", video)
        let crowd = sightline(["analyze", video, "-q", "--codes", "off", "--detect-every", "5"])
        XCTAssertEqual(crowd.status, 0, crowd.stderr)
        let records = try RecordFile(jsonLines: crowd.stdout, path: "crowd")
        XCTAssertEqual(records.frames.count, 12)
        for frame in records.frames {
            XCTAssertEqual(frame.faceStatus, .ok, "frame \(frame.index)")
            XCTAssertEqual(frame.faces.count, 40, "frame \(frame.index)")
            XCTAssertEqual(Set(frame.faces.compactMap(\.track)), Set(1...40), "frame \(frame.index)")
        }
        let sample = try SharedRuns.analyzed(Fixtures.sample, ["--detect-every", "5"])
        // (The last frame is searched whole too: `FramePlanner.plan(at:last:)`.)
        let between = try RecordFile(path: sample).frames.dropLast().filter { $0.index % 5 != 0 }
        XCTAssertFalse(between.isEmpty)
        XCTAssertTrue(between.allSatisfy { $0.faceStatus == .refined })
    }
}
