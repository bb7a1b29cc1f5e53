import XCTest
@testable import Sightline

/// Code tracks confirmed by repeated reads (CodeConfirmation) through the tracker.
final class CodeConfirmationTests: XCTestCase {
    private func code(_ text: String, _ symbology: Symbology = .ean13, x: Double = 100) -> CodeObservation {
        CodeObservation(symbology: symbology, text: text, bytes: Array(text.utf8),
                        polygon: [Point(x: x, y: 100), Point(x: x + 200, y: 100), Point(x: x + 200, y: 160), Point(x: x, y: 160)])
    }

    /// Runs frames (nil: the code reader skipped the frame) through a tracker; returns the frames
    /// and every track record.
    private func track(_ frames: [[CodeObservation]?], rule: CodeConfirmation = CodeConfirmation())
        -> (frames: [FrameRecord], tracks: [TrackRecord]) {
        let tracker = Tracker(options: TrackerOptions(maxGap: 15, codeConfirmation: rule))
        var out: [FrameRecord] = [], tracks: [TrackRecord] = []
        for (i, codes) in frames.enumerated() {
            var record = FrameRecord(index: i, pts: Int64(i), t: Double(i) / 30, faceStatus: .off,
                                     codeStatus: codes == nil ? .skipped : .ok, faces: [], codes: codes ?? [])
            tracker.advance()
            tracks += tracker.update(&record)
            out.append(record)
        }
        return (out, tracks + tracker.finish())
    }

    func testA1DCodeConfirmsOnceReadOftenEnough() {
        let rule = CodeConfirmation()
        let result = track(Array(repeating: [code("5901234123457")], count: 6))
        let states = result.frames.map { $0.codes.first?.state }
        XCTAssertEqual(states, (0..<6).map { $0 < rule.reads - 1 ? .unconfirmed : .confirmed })
        XCTAssertEqual(result.tracks.map(\.state), [.confirmed])
    }

    func testASingle1DReadStaysUnconfirmedButIsKept() {
        let result = track([[code("5901234123457")]] + Array(repeating: [], count: 5)
                           + [[code("4006381333931", x: 600)]] + Array(repeating: [], count: 20))
        XCTAssertEqual(result.frames[0].codes.first?.state, .unconfirmed)
        XCTAssertEqual(result.tracks.count, 2)
        XCTAssertTrue(result.tracks.allSatisfy { $0.state == .unconfirmed })
    }

    func testReadsTooFarApartDoNotConfirm() {
        // One read every third analyzed frame: never `reads` of them within the window.
        let rule = CodeConfirmation(reads: 2, window: 2)
        let frames: [[CodeObservation]?] = (0..<12).map { $0 % 3 == 0 ? [code("5901234123457")] : [] }
        let result = track(frames, rule: rule)
        XCTAssertTrue(result.frames.flatMap(\.codes).allSatisfy { $0.state == .unconfirmed })
        XCTAssertEqual(result.tracks.map(\.state), [.unconfirmed])
    }

    func testFramesTheReaderSkippedDoNotCountInTheWindow() {
        // Reads two analyzed frames apart with skipped frames between them still confirm.
        let rule = CodeConfirmation(reads: 2, window: 2)
        let frames: [[CodeObservation]?] = [[code("5901234123457")], nil, nil, [code("5901234123457")]]
        let result = track(frames, rule: rule)
        XCTAssertEqual(result.frames[3].codes.first?.state, .confirmed)
    }

    func testErrorCorrectingSymbologiesConfirmOnTheirFirstRead() {
        for symbology in [Symbology.qr, .dataMatrix, .aztec, .pdf417, .microQR, .maxiCode] {
            let result = track([[code("payload", symbology)]])
            XCTAssertEqual(result.frames[0].codes.first?.state, .confirmed, symbology.rawValue)
            XCTAssertEqual(result.tracks.map(\.state), [.confirmed], symbology.rawValue)
        }
    }

    func testOnceConfirmedStaysConfirmed() {
        let frames: [[CodeObservation]?] = Array(repeating: [code("5901234123457")], count: 3) + Array(repeating: [], count: 8)
            + [[code("5901234123457")]]
        let result = track(frames)
        XCTAssertEqual(result.frames[11].codes.first?.state, .confirmed)
        XCTAssertEqual(result.frames[11].codes.first?.track, result.frames[0].codes.first?.track)
    }

    /// `sightline tracks` lists a track that never confirmed as unconfirmed, and leaves it out
    /// with --confirmed-only.
    func testTracksCommandMarksUnconfirmedTracks() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let path = dir.appendingPathComponent("run.jsonl").path
        let run = sightline("analyze", Fixtures.sample, "-q", "--faces", "off", "--duration", "1", "-o", path)
        XCTAssertEqual(run.status, 0, run.stderr)
        // A run where a 1D code needs more reads than the window holds: it never confirms.
        let strict = dir.appendingPathComponent("strict.jsonl").path
        let strictRun = sightline("analyze", Fixtures.sample, "-q", "--faces", "off", "--duration", "0.1",
                                      "--code-confirm-reads", "5", "--code-confirm-window", "5", "-o", strict)
        XCTAssertEqual(strictRun.status, 0, strictRun.stderr)
        let table = sightline("tracks", strict)
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdoutText.contains("unconfirmed ean13 \"5901234123457\""), table.stdoutText)
        XCTAssertTrue(table.stdoutText.contains("qr \"https://example.org/sightline/qr-1\""), table.stdoutText)
        XCTAssertFalse(table.stdoutText.contains("unconfirmed qr"), table.stdoutText)
        let confirmedOnly = sightline("tracks", strict, "--confirmed-only")
        XCTAssertFalse(confirmedOnly.stdoutText.contains("5901234123457"), confirmedOnly.stdoutText)
        let normal = sightline("tracks", path)
        XCTAssertFalse(normal.stdoutText.contains("unconfirmed"), normal.stdoutText)
        XCTAssertTrue(normal.stdoutText.contains("ean13 \"5901234123457\""), normal.stdoutText)
    }
}
