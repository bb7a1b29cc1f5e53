import XCTest
@testable import Sightline
@testable import SightlineAnalysis

final class RecordFormatTests: XCTestCase {
    func testFixedPrecisionNeverWritesNegativeZeroOrNaN() {
        XCTAssertEqual(JSON.format(1.005, digits: 2), "1.00")   // binary 1.005 is just below
        XCTAssertEqual(JSON.format(-0.001, digits: 2), "0.00")
        XCTAssertEqual(JSON.format(-1.5, digits: 1), "-1.5")
        XCTAssertEqual(JSON.format(.nan, digits: 3), "0.000")
        XCTAssertEqual(JSON.format(2, digits: 6), "2.000000")
    }

    func testJSONKeepsKeyOrderAndEscapesThroughJSONC() {
        let json = JSON.object([("z", .int(1)), ("a", .fixed(0.5, digits: 2)), ("s", .string("a\"b/c\n")),
                                ("n", .null), ("l", .array([.bool(true)]))])
        XCTAssertEqual(json.serialized(), #"{"z":1,"a":0.50,"s":"a\"b/c\n","n":null,"l":[true]}"#)
    }

    func testCodeRecordCarriesBase64OnlyForBinaryPayloads() {
        let square = [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 10), Point(x: 0, y: 10)]
        let text = CodeObservation(symbology: .qr, text: "héllo", bytes: Array("héllo".utf8), polygon: square)
        XCTAssertFalse(text.json.serialized().contains("bytes"))
        let binary = CodeObservation(symbology: .qr, text: "\u{FFFD}", bytes: [0xff, 0x00], polygon: square)
        XCTAssertTrue(binary.json.serialized().contains(#""bytes":"/wA=""#))
        XCTAssertTrue(binary.json.serialized().contains(#""box":{"x":0.00,"y":0.00,"w":10.00,"h":10.00}"#))
    }

    func testFrameRecordRoundTripsThroughTheReader() throws {
        let record = FrameRecord(index: 7, pts: 3584, t: 0.233333, faceStatus: .ok, codeStatus: .off,
                                 faces: [FaceObservation(box: Box(x: 1, y: 2, w: 3, h: 4), score: 5)], codes: [])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(record.json.serialized().utf8)) as? [String: Any])
        let back = try FrameRecord(json: object)
        XCTAssertEqual(back.index, 7)
        XCTAssertEqual(back.pts, 3584)
        XCTAssertEqual(back.codeStatus, .off)
        XCTAssertEqual(back.faces, record.faces)
    }
}

final class GeometryTests: XCTestCase {
    func testIoU() {
        let a = Box(x: 0, y: 0, w: 10, h: 10)
        XCTAssertEqual(a.iou(a), 1)
        XCTAssertEqual(a.iou(Box(x: 5, y: 0, w: 10, h: 10)), 50.0 / 150.0, accuracy: 1e-12)
        XCTAssertEqual(a.iou(Box(x: 20, y: 20, w: 5, h: 5)), 0)
    }

    func testRotationMapsCodedCornersToDisplayCorners() {
        // A 40x20 coded picture shown turned 90° clockwise is 20x40; its top-left goes to the top-right.
        let r90 = Rotation(degrees: 90, codedWidth: 40, codedHeight: 20)
        XCTAssertEqual(r90.display(Point(x: 0, y: 0)), Point(x: 20, y: 0))
        XCTAssertEqual(r90.display(Point(x: 40, y: 20)), Point(x: 0, y: 40))
        let r270 = Rotation(degrees: -90, codedWidth: 40, codedHeight: 20)
        XCTAssertEqual(r270.degrees, 270)
        XCTAssertEqual(r270.display(Point(x: 0, y: 0)), Point(x: 0, y: 40))
        XCTAssertEqual(Rotation(degrees: 180, codedWidth: 40, codedHeight: 20).display(Point(x: 10, y: 5)), Point(x: 30, y: 15))
    }
}

final class SynchronizerTests: XCTestCase {
    func testHandsOutRecordsInIndexOrderWhateverTheArrivalOrder() {
        let sync = Synchronizer<String>()
        for i in [3, 1, 0, 4, 2] { sync.deliver("frame \(i)", index: i) }
        sync.finish(count: 5)
        var order: [String] = []
        while let item = sync.next() { order.append(item) }
        XCTAssertEqual(order, ["frame 0", "frame 1", "frame 2", "frame 3", "frame 4"])
    }

    func testLimitsFramesInFlightAndReleasesOnCancel() {
        let sync = Synchronizer<Int>()
        XCTAssertTrue(sync.waitForRoom(index: 1, capacity: 2))
        let released = expectation(description: "waiting producer released by cancel")
        let producer = Thread {
            // Index 2 with capacity 2 must wait: frames 0 and 1 are in flight.
            if !sync.waitForRoom(index: 2, capacity: 2) { released.fulfill() }
        }
        producer.start()
        sync.cancel()
        wait(for: [released], timeout: 10)
    }
}
