import XCTest
@testable import Sightline

/// Code payload metrics: exact bytes, wrong payloads, per-symbology counts, first-read latency.
final class CodeAuditTests: XCTestCase {
    private func code(_ symbology: Symbology, _ text: String, x: Double, y: Double = 0, size: Double = 100,
                      track: Int? = nil, bytes: [UInt8]? = nil) -> CodeObservation {
        CodeObservation(symbology: symbology, text: text, bytes: bytes ?? Array(text.utf8),
                        polygon: [Point(x: x, y: y), Point(x: x + size, y: y), Point(x: x + size, y: y + size), Point(x: x, y: y + size)],
                        track: track)
    }

    private func file(_ codes: [[CodeObservation]], _ path: String) -> RecordFile {
        let frames = codes.enumerated().map { i, c in
            FrameRecord(index: i, pts: 0, t: Double(i) / 30, faceStatus: .off, codeStatus: .ok, faces: [], codes: c)
        }
        var file = RecordFile(stream: StreamHeader(RecordFields(["type": "stream", "frame_rate": [30, 1]]), line: ""), frames: frames, summary: nil)
        file.path = path
        return file
    }

    private func audit(_ predicted: [[CodeObservation]], _ truth: [[CodeObservation]], perFrame: Bool = false) throws -> KindAudit {
        let options = AuditOptions(kinds: [.codes], perFrame: perFrame)
        return try XCTUnwrap(try Auditor(options: options).audit(predicted: file(predicted, "run"), truth: file(truth, "truth")).codes)
    }

    func testAllPayloadsWrong() throws {
        // Two frames, one QR each, read in place but with another payload: found (detection TP 2)
        // but never read correctly: accuracy 0/2, wrong payload 2, read precision 0/2, never read.
        let truth = [[code(.qr, "right", x: 0, track: 1)], [code(.qr, "right", x: 0, track: 1)]]
        let predicted = [[code(.qr, "wrong", x: 0)], [code(.qr, "wrong", x: 0)]]
        let report = try Auditor(options: AuditOptions(kinds: [.codes], perFrame: true))
            .audit(predicted: file(predicted, "run"), truth: file(truth, "truth"))
        let codes = try XCTUnwrap(report.codes)
        XCTAssertEqual(codes.detection.truePositives, 2)
        let payloads = try XCTUnwrap(codes.payloads)
        XCTAssertEqual(payloads.total.expected, 2)
        XCTAssertEqual(payloads.total.correct, 0)
        XCTAssertEqual(payloads.total.wrongPayload, 2)
        XCTAssertEqual(payloads.total.accuracy, 0)
        XCTAssertEqual(payloads.readPrecision, 0)
        XCTAssertEqual(payloads.firstReads.count, 1)
        XCTAssertNil(payloads.firstReads[0].readFrame)
        XCTAssertNil(payloads.firstReads[0].latencyFrames)
        XCTAssertEqual(report.perFrame.map(\.index), [0, 1])
        XCTAssertEqual(report.perFrame[0].wrongPayloads.map(\.read.text), ["wrong"])
        XCTAssertEqual(AuditGates(minRecall: 0.5).failures(report), ["--min-recall not met: codes 0.0000 < 0.5000"])
    }

    func testBytesDecideNotText() throws {
        // Binary payloads shown with the same replacement text but different bytes are different.
        let truth = [[code(.qr, "\u{FFFD}", x: 0, bytes: [0xff])]]
        let predicted = [[code(.qr, "\u{FFFD}", x: 0, bytes: [0xfe])]]
        XCTAssertEqual(try audit(predicted, truth).payloads?.total.wrongPayload, 1)
        // Same bytes, other symbology: wrong too.
        XCTAssertEqual(try audit([[code(.microQR, "A", x: 0)]], [[code(.qr, "A", x: 0)]]).payloads?.total.wrongPayload, 1)
    }

    func testPairingPrefersTheRightPayload() throws {
        // Truth "A" at x 0 and "B" at x 10 (100×100 each; they overlap with IoU 9000/11000).
        // Reads "B" at x 0 and "A" at x 10. By overlap alone each read sits exactly on the other
        // code (IoU 1, two wrong payloads); preferring equal payloads pairs A–A and B–B at IoU 0.818:
        // 2 correct.
        let payloads = try XCTUnwrap(try audit([[code(.qr, "B", x: 0), code(.qr, "A", x: 10)]],
                                               [[code(.qr, "A", x: 0), code(.qr, "B", x: 10)]]).payloads)
        XCTAssertEqual(payloads.total.correct, 2)
        XCTAssertEqual(payloads.total.wrongPayload, 0)
    }

    func testPerSymbologyAndFirstReadLatency() throws {
        // Frames 0–3 hold a QR (track 1) and an EAN-13 (track 2). The QR is read from frame 2 on;
        // the EAN-13 in every frame; a Code 128 is read in frame 3 where the truth has none.
        //   qr:      expected 4, correct 2, missed 2; first read frame 2: latency 2 frames = 2/30 s
        //   ean13:   expected 4, correct 4; latency 0
        //   code128: extra 1
        // Total accuracy 6/8 = 0.75; read precision 6/7.
        let qr = code(.qr, "https://example.org", x: 0, track: 1)
        let ean = code(.ean13, "5901234123457", x: 300, track: 2)
        let truth = (0..<4).map { _ in [qr, ean] }
        let extra = code(.code128, "EXTRA", x: 600)
        let predicted = [[ean], [ean], [qr, ean], [qr, ean, extra]].map { $0.map { var c = $0; c.track = nil; return c } }
        let payloads = try XCTUnwrap(try audit(predicted, truth).payloads)
        XCTAssertEqual(payloads.bySymbology[.qr], CodePayloadMetrics.Counts(expected: 4, correct: 2, wrongPayload: 0, missed: 2, extra: 0))
        XCTAssertEqual(payloads.bySymbology[.ean13]?.correct, 4)
        XCTAssertEqual(payloads.bySymbology[.code128]?.extra, 1)
        XCTAssertEqual(payloads.total.accuracy, 0.75)
        XCTAssertEqual(try XCTUnwrap(payloads.readPrecision), 6.0 / 7, accuracy: 1e-12)
        let qrRead = try XCTUnwrap(payloads.firstReads.first { $0.track == 1 })
        XCTAssertEqual(qrRead.firstFrame, 0)
        XCTAssertEqual(qrRead.readFrame, 2)
        XCTAssertEqual(qrRead.latencyFrames, 2)
        XCTAssertEqual(try XCTUnwrap(qrRead.latencySeconds), 2.0 / 30, accuracy: 1e-9)
        XCTAssertEqual(payloads.firstReads.first { $0.track == 2 }?.latencyFrames, 0)
    }

    func testEmptyTruthAndEmptyPrediction() throws {
        // No truth codes: accuracy undefined; the read is extra.
        let noTruth = try XCTUnwrap(try audit([[code(.qr, "A", x: 0)]], [[]]).payloads)
        XCTAssertNil(noTruth.total.accuracy)
        XCTAssertEqual(noTruth.total.extra, 1)
        XCTAssertEqual(noTruth.readPrecision, 0)
        // No reads: accuracy 0/1, read precision undefined.
        let noReads = try XCTUnwrap(try audit([[]], [[code(.qr, "A", x: 0)]]).payloads)
        XCTAssertEqual(noReads.total.accuracy, 0)
        XCTAssertEqual(noReads.total.missed, 1)
        XCTAssertNil(noReads.readPrecision)
    }
}
