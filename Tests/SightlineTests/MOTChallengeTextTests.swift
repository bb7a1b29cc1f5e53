import XCTest
@testable import Sightline

final class MOTChallengeTextTests: XCTestCase {
    private func parse(_ text: String, truth: Bool = false) throws -> RecordFile {
        try MOTChallengeText.parse(Data(text.utf8), path: "boxes.txt", truth: truth)
    }

    private func assertError(_ text: String, line: Int, mentions fragment: String, file: StaticString = #filePath, lineNo: UInt = #line) {
        XCTAssertThrowsError(try parse(text), file: file, line: lineNo) { error in
            guard let error = error as? RecordFileError else { return XCTFail("\(error)", file: file, line: lineNo) }
            XCTAssertEqual(error.line, line, "\(error)", file: file, line: lineNo)
            XCTAssertTrue(error.description.hasPrefix("boxes.txt:\(line): "), "\(error)", file: file, line: lineNo)
            XCTAssertTrue(error.reason.contains(fragment), "\(error)", file: file, line: lineNo)
            XCTAssertEqual(error.exitCode, 65, file: file, line: lineNo)
        }
    }

    func testReadsFramesIdsBoxesAndConfidence() throws {
        // Frames are 1-based in the text and 0-based in records; id -1 is no identity.
        let file = try parse("1,1,10,20,30,40,0.9,-1,-1,-1\n1,-1,50,60,10,10,0.4,-1,-1,-1\n3,1,11,20,30,40,0.8,-1,-1,-1\n")
        XCTAssertEqual(file.format, .motChallenge)
        XCTAssertEqual(file.frames.map(\.index), [0, 2])
        XCTAssertEqual(file.frames[0].faces, [FaceObservation(box: Box(x: 10, y: 20, w: 30, h: 40), score: 0.9, track: 1),
                                              FaceObservation(box: Box(x: 50, y: 60, w: 10, h: 10), score: 0.4, track: nil)])
        XCTAssertTrue(file.facesHaveScores)
        // Six columns: no confidence.
        let bare = try parse("2,5,1,2,3,4")
        XCTAssertEqual(bare.frames.first?.index, 1)
        XCTAssertFalse(bare.facesHaveScores)
        // As truth, rows whose 7th column (MOT16/17's "consider" flag) is 0 are left out.
        let truth = try parse("1,1,10,20,30,40,1,1,1\n1,2,50,60,10,10,0,1,0.2\n", truth: true)
        XCTAssertEqual(truth.frames.first?.faces.map(\.track), [1])
        XCTAssertEqual(try parse("1,1,10,20,30,40,1,1,1\n1,2,50,60,10,10,0,1,0.2\n").frames.first?.faces.count, 2)
    }

    func testFormatIsDetectedByNameOrContent() {
        XCTAssertTrue(MOTChallengeText.isMOTChallenge(path: "gt.txt", data: Data("{}".utf8)))
        XCTAssertTrue(MOTChallengeText.isMOTChallenge(path: "results", data: Data("\n1,2,3,4,5,6\n".utf8)))
        XCTAssertFalse(MOTChallengeText.isMOTChallenge(path: "run.jsonl", data: Data("{\"type\":\"stream\"}\n".utf8)))
        XCTAssertFalse(MOTChallengeText.isMOTChallenge(path: "empty.jsonl", data: Data()))
    }

    func testRoundTripOfTheSampleTruthFaces() throws {
        let truth = try RecordFile(path: Fixtures.sampleTruth)
        let text = MOTChallengeText.text(of: truth.frames)
        XCTAssertTrue(text.hasPrefix("1,1,54.10,555.10,107.80,107.80,1.000,-1,-1,-1\n1,2,"), String(text.prefix(80)))
        let back = try MOTChallengeText.parse(Data(text.utf8), path: "sample.txt", truth: true)
        XCTAssertEqual(back.frames.map(\.index), truth.frames.map(\.index))
        XCTAssertEqual(back.frames.map(\.faces), truth.frames.map(\.faces))
        // And written again, byte for byte the same text.
        XCTAssertEqual(MOTChallengeText.text(of: back.frames), text)
    }

    func testMalformedLinesNameTheLine() {
        assertError("1,1,10,20,30,40\n1,1,10,20\n", line: 2, mentions: "4 columns")
        assertError("1,1,10,20,30,40,1,2,3,4,5\n", line: 1, mentions: "11 columns")
        assertError("1,1,10,20,30,40\n2,1,10,20,30,40,0.5\n", line: 2, mentions: "where the lines before have 6")
        assertError("1,1,10,abc,30,40\n", line: 1, mentions: "column 4 (bb_top) is not a number")
        assertError("0,1,10,20,30,40\n", line: 1, mentions: "frame")
        assertError("1.5,1,10,20,30,40\n", line: 1, mentions: "frame")
        assertError("1,1,10,20,-3,40\n", line: 1, mentions: "negative box size")
        // Cut short: the last line has no newline and lacks columns.
        assertError("1,1,10,20,30,40,0.9\n2,1,10,20,3", line: 2, mentions: "truncated last line")
    }
}
