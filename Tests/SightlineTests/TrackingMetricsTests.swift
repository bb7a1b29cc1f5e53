import XCTest
@testable import Sightline
@testable import SightlineRecordTools

/// CLEAR MOT and identity metrics on published and hand-made examples.
final class TrackingMetricsTests: XCTestCase {
    /// The worked example of py-motmetrics' README ("Usage": "Populating the accumulator" and
    /// "Computing metrics"), typed in as data. Objects 1, 2; hypotheses 1, 2, 3; nil is the README's
    /// np.nan (the pair may not be matched). Published results, to 3 decimals:
    ///
    ///        IDF1   IDP   IDR  Rcll  Prcn GT MT PT ML FP FN IDs  FM  MOTA  MOTP
    ///   full 83.3% 83.3% 83.3% 83.3% 83.3%  2  1  1  0  1  1   1   1 50.0% 0.340
    ///   part 75.0% 75.0% 75.0% 75.0% 75.0%  2  1  1  0  1  1   0   0 50.0% 0.167
    ///
    /// "part" is the first two frames (`acc.events.loc[0:1]`).
    private func readmeExample(frames: Int) -> (MOTAccumulator, [MOTFrameEvents]) {
        var acc = MOTAccumulator()
        var events: [MOTFrameEvents] = []
        let data: [([Int], [Int], [[Double?]])] = [
            ([1, 2], [1, 2, 3], [[0.1, nil, 0.3], [0.5, 0.2, 0.3]]),
            ([1, 2], [1], [[0.2], [0.4]]),
            ([1, 2], [1, 3], [[0.6, 0.2], [0.1, 0.6]]),
        ]
        for (objects, hypotheses, distances) in data.prefix(frames) {
            events.append(acc.update(objects: objects, hypotheses: hypotheses, distances: distances))
        }
        return (acc, events)
    }

    func testPyMotmetricsReadmeExampleFull() throws {
        let (acc, events) = readmeExample(frames: 3)
        // The README's event tables: frame 0 MATCH 1-1 0.1, MATCH 2-2 0.2, FP 3; frame 1 MATCH 1-1
        // 0.2, MISS 2; frame 2 MATCH 1-1 0.6 (kept from the last frame although 1-3 costs 0.2),
        // SWITCH 2-3 0.6.
        typealias E = MOTFrameEvents.Event
        XCTAssertEqual(events[0].events, [E(kind: .match, object: 1, hypothesis: 1, distance: 0.1),
                                          E(kind: .match, object: 2, hypothesis: 2, distance: 0.2),
                                          E(kind: .falsePositive, object: nil, hypothesis: 3, distance: nil)])
        XCTAssertEqual(events[1].events, [E(kind: .match, object: 1, hypothesis: 1, distance: 0.2),
                                          E(kind: .miss, object: 2, hypothesis: nil, distance: nil)])
        XCTAssertEqual(events[2].events, [E(kind: .match, object: 1, hypothesis: 1, distance: 0.6),
                                          E(kind: .idSwitch, object: 2, hypothesis: 3, distance: 0.6)])
        let m = acc.metrics
        XCTAssertEqual(m.frames, 3)
        XCTAssertEqual(m.uniqueObjects, 2)       // GT
        XCTAssertEqual(m.mostlyTracked, 1)       // object 1: 3/3
        XCTAssertEqual(m.partiallyTracked, 1)    // object 2: 2/3
        XCTAssertEqual(m.mostlyLost, 0)
        XCTAssertEqual(m.falsePositives, 1)
        XCTAssertEqual(m.misses, 1)
        XCTAssertEqual(m.switches, 1)
        XCTAssertEqual(m.fragmentations, 1)      // object 2: tracked, lost, tracked again
        XCTAssertEqual(try XCTUnwrap(m.mota), 0.500, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(m.motp), 0.340, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(m.recall), 0.833, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(m.precision), 0.833, accuracy: 0.0005)
        let id = acc.identity
        XCTAssertEqual(try XCTUnwrap(id.idF1), 0.833, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(id.idPrecision), 0.833, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(id.idRecall), 0.833, accuracy: 0.0005)
    }

    func testPyMotmetricsReadmeExamplePart() throws {
        let (acc, _) = readmeExample(frames: 2)
        let m = acc.metrics
        XCTAssertEqual(m.frames, 2)
        XCTAssertEqual(m.uniqueObjects, 2)
        XCTAssertEqual(m.mostlyTracked, 1)
        XCTAssertEqual(m.partiallyTracked, 1)
        XCTAssertEqual(m.mostlyLost, 0)
        XCTAssertEqual(m.falsePositives, 1)
        XCTAssertEqual(m.misses, 1)
        XCTAssertEqual(m.switches, 0)
        XCTAssertEqual(m.fragmentations, 0)
        XCTAssertEqual(try XCTUnwrap(m.mota), 0.500, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(m.motp), 0.167, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(acc.identity.idF1), 0.750, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(acc.identity.idPrecision), 0.750, accuracy: 0.0005)
        XCTAssertEqual(try XCTUnwrap(acc.identity.idRecall), 0.750, accuracy: 0.0005)
    }

    func testIdentityMatchingIsGlobalNotPerFrame() {
        // Object 1 is in 4 frames. Hypothesis 7 covers it in frame 0, hypothesis 8 in frames 1–3.
        // Object 2 is in frames 2–3, covered by hypothesis 7 both times.
        // Frames each pair can be matched: (1,7) 1, (1,8) 3, (2,7) 2.
        // Best one-to-one choice: 1–8 and 2–7, earning IDTP 3 + 2 = 5 (1–7 alone would earn 1).
        // Truth detections 4 + 2 = 6, predicted 3 + 3 = 6: IDFN 1, IDFP 1,
        // IDP = IDR = IDF1 = 5/6.
        let id = IdentityMetrics(objectFrequencies: [1: 4, 2: 2], hypothesisFrequencies: [7: 3, 8: 3],
                                 matchable: [.init(object: 1, hypothesis: 7): 1, .init(object: 1, hypothesis: 8): 3,
                                             .init(object: 2, hypothesis: 7): 2])
        XCTAssertEqual(id.idTruePositives, 5)
        XCTAssertEqual(id.idFalseNegatives, 1)
        XCTAssertEqual(id.idFalsePositives, 1)
        XCTAssertEqual(id.assignment, [1: 8, 2: 7])
        XCTAssertEqual(try XCTUnwrap(id.idF1), 5.0 / 6, accuracy: 1e-12)
    }

    // MARK: - From boxes, through the auditor

    private func frame(_ index: Int, faces: [(Int?, Box)]) -> FrameRecord {
        FrameRecord(index: index, pts: Int64(index * 512), t: Double(index) / 30, faceStatus: .ok, codeStatus: .off,
                    faces: faces.map { FaceObservation(box: $0.1, score: 1, track: $0.0) }, codes: [])
    }

    private func file(_ frames: [FrameRecord], _ path: String) -> RecordFile {
        var file = RecordFile(stream: StreamHeader(RecordFields(["type": "stream", "frame_rate": [30, 1]]), line: ""), frames: frames, summary: nil)
        file.path = path
        return file
    }

    func testTrackingFromBoxesWorkedByHand() throws {
        // One truth face, track 1, at (0,0,10,10) in frames 0–3. The prediction:
        //   frame 0: track 7 on it (IoU 1, distance 0)                      match
        //   frame 1: nothing                                                miss
        //   frame 2: track 8 on it (IoU 1, distance 0)                      switch (7 before)
        //   frame 3: track 8 at (1,0,10,10): IoU 90/110, distance 20/110    match
        //            and track 9 far away                                   false positive
        // MOTA = 1 − (1 miss + 1 FP + 1 switch) / 4 = 0.25
        // MOTP = (0 + 0 + 20/110) / 3 = 0.0606…; fragmentations 1 (tracked, lost, tracked)
        // tracked 3 of 4 frames = 0.75: partially tracked.
        // IDF1: pairs (1,7) 1 frame, (1,8) 2 frames; best 1–8, IDTP 2; truth 4, predicted 4:
        // IDFN 2, IDFP 2, IDF1 = 4 / (4 + 2 + 2) = 0.5.
        // Detection per frame: TP 3, FP 1, FN 1: precision 0.75, recall 0.75.
        let b = Box(x: 0, y: 0, w: 10, h: 10)
        let truth = file((0..<4).map { frame($0, faces: [(1, b)]) }, "truth.jsonl")
        let predicted = file([frame(0, faces: [(7, b)]), frame(1, faces: []), frame(2, faces: [(8, b)]),
                              frame(3, faces: [(8, Box(x: 1, y: 0, w: 10, h: 10)), (9, Box(x: 100, y: 100, w: 10, h: 10))])],
                             "run.jsonl")
        let report = try Auditor(options: AuditOptions(kinds: [.faces])).audit(predicted: predicted, truth: truth)
        let faces = try XCTUnwrap(report.faces)
        XCTAssertEqual(faces.detection.precision, 0.75)
        XCTAssertEqual(faces.detection.recall, 0.75)
        let m = try XCTUnwrap(faces.tracking.clearMOT)
        XCTAssertEqual(m.switches, 1)
        XCTAssertEqual(m.fragmentations, 1)
        XCTAssertEqual([m.mostlyTracked, m.partiallyTracked, m.mostlyLost], [0, 1, 0])
        XCTAssertEqual(try XCTUnwrap(m.mota), 0.25, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(m.motp), 20.0 / 110 / 3, accuracy: 1e-12)
        let id = try XCTUnwrap(faces.tracking.identity)
        XCTAssertEqual(id.idTruePositives, 2)
        XCTAssertEqual(try XCTUnwrap(id.idF1), 0.5, accuracy: 1e-12)
    }

    func testTrackingIsNotAvailableWithoutIds() throws {
        let b = Box(x: 0, y: 0, w: 10, h: 10)
        let truth = file([frame(0, faces: [(1, b)]), frame(1, faces: [(1, b)])], "truth.jsonl")
        let auditor = Auditor(options: AuditOptions(kinds: [.faces]))
        let untracked = file([frame(0, faces: [(nil, b)]), frame(1, faces: [(nil, b)])], "run.jsonl")
        XCTAssertEqual(try auditor.audit(predicted: untracked, truth: truth).faces?.tracking,
                       .unavailable("the prediction has no track ids"))
        let partly = file([frame(0, faces: [(3, b)]), frame(1, faces: [(nil, b)])], "run.jsonl")
        XCTAssertEqual(try auditor.audit(predicted: partly, truth: truth).faces?.tracking,
                       .unavailable("1 of 2 faces in the prediction have no track id"))
        let twice = file([frame(0, faces: [(3, b), (3, Box(x: 50, y: 0, w: 10, h: 10))])], "run.jsonl")
        XCTAssertEqual(try auditor.audit(predicted: twice, truth: truth).faces?.tracking,
                       .unavailable("track 3 appears twice in frame 0 of the prediction"))
        let untrackedTruth = file([frame(0, faces: [(nil, b)])], "truth.jsonl")
        XCTAssertEqual(try auditor.audit(predicted: partly, truth: untrackedTruth).faces?.tracking,
                       .unavailable("the truth has no track ids"))
        // Detection metrics do not need ids.
        XCTAssertEqual(try auditor.audit(predicted: untracked, truth: truth).faces?.detection.recall, 1)
    }

    func testEmptyTruthAndEmptyPrediction() throws {
        let b = Box(x: 0, y: 0, w: 10, h: 10)
        let auditor = Auditor(options: AuditOptions(kinds: [.faces]))
        // No truth objects: MOTA is undefined (0 objects); both predictions are false positives;
        // IDF1 = 0 / (0 + 2 + 0) = 0.
        let emptyTruth = file([frame(0, faces: []), frame(1, faces: [])], "truth.jsonl")
        let tracked = file([frame(0, faces: [(1, b)]), frame(1, faces: [(1, b)])], "run.jsonl")
        let a = try XCTUnwrap(try auditor.audit(predicted: tracked, truth: emptyTruth).faces)
        XCTAssertNil(a.tracking.clearMOT?.mota)
        XCTAssertEqual(a.tracking.clearMOT?.falsePositives, 2)
        XCTAssertEqual(a.tracking.identity?.idF1, 0)
        XCTAssertNil(a.detection.recall)
        XCTAssertEqual(a.detection.precision, 0)
        // No predictions: every truth object missed, MOTA = 1 − 2/2 = 0, MOTP undefined, IDF1 0.
        let nothing = file([frame(0, faces: []), frame(1, faces: [])], "run.jsonl")
        let b2 = try XCTUnwrap(try auditor.audit(predicted: nothing, truth: tracked).faces)
        XCTAssertEqual(b2.tracking.clearMOT?.mota, 0)
        XCTAssertNil(b2.tracking.clearMOT?.motp)
        XCTAssertEqual(b2.tracking.clearMOT?.mostlyLost, 1)
        XCTAssertEqual(b2.tracking.identity?.idF1, 0)
        XCTAssertEqual(b2.detection.recall, 0)
        XCTAssertNil(b2.detection.precision)
    }
}
