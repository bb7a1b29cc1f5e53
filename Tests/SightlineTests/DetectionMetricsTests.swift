import XCTest
@testable import Sightline
@testable import SightlineRecordTools

/// Detection counts, precision/recall/F1 and average precision on boxes worked out by hand.
final class DetectionMetricsTests: XCTestCase {
    private func box(_ x: Double, _ y: Double = 0, _ w: Double = 10, _ h: Double = 10) -> Box { Box(x: x, y: y, w: w, h: h) }

    func testCountsAndRatios() {
        // Truth at x 0 and x 20. Prediction 1 is exactly truth 1 (IoU 1). Prediction 2 at x 25
        // overlaps truth 2 by 5×10 = 50 of a union of 150: IoU 1/3 < 0.5, so it is a false positive
        // and truth 2 is missed. TP 1, FP 1, FN 1: precision 1/2, recall 1/2, F1 2·1/(2·1+1+1) = 1/2.
        let match = ObservationMatcher(minIoU: 0.5).match(truth: [box(0), box(20)], predicted: [box(0), box(25)])
        XCTAssertEqual(match.pairs, [FrameMatch.Pair(truth: 0, predicted: 0, iou: 1)])
        XCTAssertEqual(match.missed, [1])
        XCTAssertEqual(match.extra, [1])
        var metrics = DetectionMetrics()
        metrics.add(match)
        XCTAssertEqual(metrics.truePositives, 1)
        XCTAssertEqual(metrics.falsePositives, 1)
        XCTAssertEqual(metrics.falseNegatives, 1)
        XCTAssertEqual(metrics.precision, 0.5)
        XCTAssertEqual(metrics.recall, 0.5)
        XCTAssertEqual(metrics.f1, 0.5)
        XCTAssertEqual(metrics.meanIoU, 1)
        XCTAssertEqual(metrics.falsePositivesPer100Frames, 100)
        // At IoU 0.3 the second pair counts: TP 2, and the mean IoU is (1 + 1/3) / 2 = 2/3.
        var loose = DetectionMetrics()
        loose.add(ObservationMatcher(minIoU: 0.3).match(truth: [box(0), box(20)], predicted: [box(0), box(25)]))
        XCTAssertEqual(loose.truePositives, 2)
        XCTAssertEqual(try XCTUnwrap(loose.meanIoU), 2.0 / 3, accuracy: 1e-12)
    }

    func testOptimalMatchingFindsPairsGreedyMatchingMisses() {
        // Boxes 10 tall on one row, so IoU is overlap length / union length:
        //   truth A [10,20], truth B [15,25], prediction X [12,22], prediction Y [7,17]
        //   A–X 8/12 = 0.667, A–Y 7/13 = 0.538, B–X 7/13 = 0.538, B–Y 2/18 = 0.111.
        // Greedy by IoU pairs A–X first and leaves B and Y unpaired (TP 1); the optimum is A–Y and
        // B–X (TP 2, FP 0, FN 0).
        let truth = [box(10), box(15)], predicted = [box(12), box(7)]
        let match = ObservationMatcher(minIoU: 0.5).match(truth: truth, predicted: predicted)
        XCTAssertEqual(match.pairs.map(\.predicted), [1, 0])
        XCTAssertEqual(match.pairs[0].iou, 7.0 / 13, accuracy: 1e-12)
        XCTAssertTrue(match.missed.isEmpty && match.extra.isEmpty)
        // The short form used by older callers gives the same counts.
        let frame = { (boxes: [Box]) in
            FrameRecord(index: 0, pts: 0, t: 0, faceStatus: .ok, codeStatus: .off,
                        faces: boxes.map { FaceObservation(box: $0, score: 1) }, codes: [])
        }
        let counts = TruthMatcher(faceIoU: 0.5).faces(predicted: [frame(predicted)], truth: [frame(truth)])
        XCTAssertEqual(counts.truePositives, 2)
        XCTAssertEqual(counts.recall, 1)
    }

    func testEmptyTruthAndEmptyPrediction() {
        var noTruth = DetectionMetrics()
        noTruth.add(ObservationMatcher().match(truth: [], predicted: [box(0), box(50)]))
        // FP 2: precision 0/2 = 0; recall 0/0 undefined; F1 0/(0+2+0) = 0.
        XCTAssertEqual(noTruth.falsePositives, 2)
        XCTAssertEqual(noTruth.precision, 0)
        XCTAssertNil(noTruth.recall)
        XCTAssertEqual(noTruth.f1, 0)
        XCTAssertNil(noTruth.meanIoU)

        var noPrediction = DetectionMetrics()
        noPrediction.add(ObservationMatcher().match(truth: [box(0)], predicted: []))
        // FN 1: recall 0, precision undefined, F1 0.
        XCTAssertEqual(noPrediction.recall, 0)
        XCTAssertNil(noPrediction.precision)
        XCTAssertEqual(noPrediction.f1, 0)

        var nothing = DetectionMetrics()
        nothing.add(ObservationMatcher().match(truth: [Box](), predicted: []))
        XCTAssertNil(nothing.precision)
        XCTAssertNil(nothing.recall)
        XCTAssertNil(nothing.f1)
        XCTAssertEqual(nothing.frames, 1)
    }

    func testAveragePrecisionWorkedByHand() throws {
        // Two truth boxes; detections by score: 0.9 on truth 1 (TP), 0.8 on nothing (FP),
        // 0.7 on truth 2 (TP).
        //   recall    1/2  1/2  1
        //   precision 1    1/2  2/3  -> non-increasing from the right: 1, 2/3, 2/3
        // Recall levels 0.00 … 0.50 (51 of them) first reach recall at the first point: precision 1.
        // Levels 0.51 … 1.00 (50) reach it at the third point: 2/3.
        // AP = (51·1 + 50·2/3) / 101 = 253/303 = 0.834983…
        var ap = AveragePrecision(minIoU: 0.5)
        ap.add(truth: [box(0), box(100)], predicted: [(box(0), 0.9), (box(50), 0.8), (box(100), 0.7)])
        XCTAssertEqual(try XCTUnwrap(ap.value), 253.0 / 303, accuracy: 1e-6)

        // A lower-scored duplicate of a found box is a false positive after the last recall gain:
        // recall 1, 1; precision 1, 1/2 -> every level reads precision 1: AP 1 (less COCO's
        // 2.2e-16 guard against dividing by zero).
        var duplicate = AveragePrecision(minIoU: 0.5)
        duplicate.add(truth: [box(0)], predicted: [(box(0), 0.9), (box(1), 0.8)])
        XCTAssertEqual(try XCTUnwrap(duplicate.value), 1, accuracy: 1e-12)

        // The same detections over two frames, ranked across frames: the false positive now
        // ranks first (0.95): recall 0, 1/2, 1; precision 0, 1/2, 2/3 -> 2/3, 2/3, 2/3: AP 2/3.
        var twoFrames = AveragePrecision(minIoU: 0.5)
        twoFrames.add(truth: [box(0)], predicted: [(box(0), 0.9), (box(50), 0.95)])
        twoFrames.add(truth: [box(0)], predicted: [(box(0), 0.5)])
        XCTAssertEqual(try XCTUnwrap(twoFrames.value), 2.0 / 3, accuracy: 1e-6)

        // No detection on the truth: AP 0. No truth at all: undefined.
        var missed = AveragePrecision(minIoU: 0.5)
        missed.add(truth: [box(0)], predicted: [(box(50), 0.9)])
        XCTAssertEqual(missed.value, 0)
        var noTruth = AveragePrecision(minIoU: 0.5)
        noTruth.add(truth: [], predicted: [(box(50), 0.9)])
        XCTAssertNil(noTruth.value)
    }
}
