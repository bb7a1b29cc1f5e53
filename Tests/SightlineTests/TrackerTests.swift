import XCTest
@testable import Sightline

/// The tracker on hand-made scenes whose right answer is obvious.
final class TrackerTests: XCTestCase {
    private func face(_ x: Double, _ y: Double, size: Double = 60) -> FaceObservation {
        FaceObservation(box: Box(x: x, y: y, w: size, h: size), score: 10)
    }

    private func code(_ text: String, _ x: Double, _ y: Double) -> CodeObservation {
        let s = 100.0
        return CodeObservation(symbology: .qr, text: text, bytes: Array(text.utf8),
                               polygon: [Point(x: x, y: y), Point(x: x + s, y: y), Point(x: x + s, y: y + s), Point(x: x, y: y + s)])
    }

    /// Runs frames through a tracker; returns each frame's records and every track record.
    private func track(_ frames: [(faces: [FaceObservation], codes: [CodeObservation])], maxGap: Int = 15)
        -> (frames: [FrameRecord], tracks: [TrackRecord]) {
        let tracker = Tracker(options: TrackerOptions(maxGap: maxGap))
        var out: [FrameRecord] = [], tracks: [TrackRecord] = []
        for (i, f) in frames.enumerated() {
            var record = FrameRecord(index: i, pts: Int64(i), t: Double(i) / 30, faceStatus: .ok, codeStatus: .ok,
                                     faces: f.faces, codes: f.codes)
            tracker.advance()
            tracks += tracker.update(&record)
            out.append(record)
        }
        return (out, tracks + tracker.finish())
    }

    func testTwoFacesCrossingKeepTheirIds() {
        // A moves right, B moves left, slightly lower; they overlap around frame 20.
        let frames = (0..<40).map { i -> (faces: [FaceObservation], codes: [CodeObservation]) in
            let a = face(Double(i) * 10, 100), b = face(400 - Double(i) * 10, 120)
            return ([a, b].sorted { $0.box.x < $1.box.x }, [])   // detector order flips at the crossing
        }
        let result = track(frames)
        for record in result.frames {
            let a = record.faces.first { abs($0.box.y - 100) < 1 }!, b = record.faces.first { abs($0.box.y - 120) < 1 }!
            XCTAssertEqual(a.track, 1, "frame \(record.index)")
            XCTAssertEqual(b.track, 2, "frame \(record.index)")
        }
        XCTAssertEqual(result.tracks.map(\.id), [1, 2])
        XCTAssertEqual(result.tracks.map(\.framesObserved), [40, 40])
    }

    func testLeavingAndReturningWithinTheGapKeepsTheId() {
        var frames = (0..<10).map { _ in (faces: [face(100, 100)], codes: [CodeObservation]()) }
        frames += (0..<5).map { _ in ([], []) }                       // gone for 5 frames
        frames += (0..<10).map { _ in ([face(100, 100)], []) }        // back
        let result = track(frames, maxGap: 15)
        XCTAssertEqual(Set(result.frames.flatMap { $0.faces.compactMap(\.track) }), [1])
        XCTAssertEqual(result.tracks.count, 1)
        XCTAssertEqual(result.tracks[0].firstFrame, 0)
        XCTAssertEqual(result.tracks[0].lastFrame, 24)
        XCTAssertEqual(result.tracks[0].framesObserved, 20)
    }

    func testReturningAfterTheGapIsANewTrack() {
        var frames = (0..<10).map { _ in (faces: [face(100, 100)], codes: [CodeObservation]()) }
        frames += (0..<20).map { _ in ([], []) }                      // gone for 20 frames > 15
        frames += (0..<10).map { _ in ([face(100, 100)], []) }
        let result = track(frames, maxGap: 15)
        XCTAssertEqual(result.frames[5].faces.first?.track, 1)
        XCTAssertEqual(result.frames[35].faces.first?.track, 2)
        XCTAssertEqual(result.tracks.map(\.id), [1, 2])
        XCTAssertEqual(result.tracks.map(\.lastFrame), [9, 39])
        XCTAssertEqual(result.tracks.map(\.firstFrame), [0, 30])
    }

    func testTrackEndsExactlyWhenTheGapIsExceeded() {
        let tracker = Tracker(options: TrackerOptions(maxGap: 3))
        var ended: [Int: [TrackRecord]] = [:]
        for i in 0..<10 {
            var record = FrameRecord(index: i, pts: Int64(i), t: 0, faceStatus: .ok, codeStatus: .ok,
                                     faces: i == 0 ? [face(0, 0)] : [], codes: [])
            tracker.advance()
            ended[i] = tracker.update(&record)
        }
        // Last seen at frame 0; unseen in frames 1, 2, 3 (the gap); ends with frame 4.
        XCTAssertEqual((0..<10).filter { !(ended[$0] ?? []).isEmpty }, [4])
    }

    func testSamePayloadInTwoPlacesIsTwoTracks() {
        let frames = (0..<10).map { i in
            (faces: [FaceObservation](), codes: [code("SAME", 100 + Double(i), 100), code("SAME", 600 - Double(i), 400)])
        }
        let result = track(frames)
        for record in result.frames {
            XCTAssertEqual(record.codes.map(\.track), [1, 2], "frame \(record.index)")
        }
        XCTAssertEqual(result.tracks.map(\.text), ["SAME", "SAME"])
        // Listed in the other order, each still keeps the track nearest to it.
        let swapped = (0..<10).map { i in
            (faces: [FaceObservation](), codes: i < 5 ? [code("SAME", 100, 100), code("SAME", 600, 400)]
                                                     : [code("SAME", 600, 400), code("SAME", 100, 100)])
        }
        let again = track(swapped)
        XCTAssertEqual(again.frames[7].codes.map(\.track), [2, 1])
    }

    func testDifferentPayloadsAtOnePlaceAreDifferentTracks() {
        let frames = (0..<4).map { i in (faces: [FaceObservation](), codes: [code(i < 2 ? "A" : "B", 100, 100)]) }
        let result = track(frames)
        XCTAssertEqual(result.frames.map { $0.codes[0].track }, [1, 1, 2, 2])
    }

    func testAMissedDetectionInTheMiddleKeepsTheTrack() {
        let frames = (0..<20).map { i in
            (faces: i == 10 ? [] : [face(Double(i) * 5, 50)], codes: [CodeObservation]())
        }
        let result = track(frames)
        XCTAssertEqual(result.tracks.count, 1)
        XCTAssertEqual(result.tracks[0].framesObserved, 19)
        XCTAssertEqual(result.frames[11].faces.first?.track, 1)
    }

    func testIdsFollowFirstAppearanceAcrossKinds() {
        let frames: [(faces: [FaceObservation], codes: [CodeObservation])] = [
            ([], [code("X", 0, 0)]),
            ([face(300, 300)], [code("X", 0, 0)]),
            ([face(300, 300)], [code("X", 0, 0), code("Y", 500, 0)]),
        ]
        let result = track(frames)
        XCTAssertEqual(result.frames[2].codes.map(\.track), [1, 3])
        XCTAssertEqual(result.frames[2].faces.map(\.track), [2])
    }
}
