import XCTest

/// Real output validates against Schemas/ (python3-jsonschema), and a broken record does not.
final class SchemaTests: XCTestCase {
    private let validator = Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path

    private func validate(_ data: Data, in dir: URL, name: String) throws -> ProcessResult {
        let file = dir.appendingPathComponent(name)
        try data.write(to: file)
        return try runProcess("/usr/bin/python3", [validator, file.path])
    }

    func testRealOutputValidatesAndABrokenRecordFails() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = try RenderFixture.defaultRecords()
        let good = try validate(records, in: dir, name: "good.jsonl")
        XCTAssertEqual(good.status, 0, good.stdoutText + good.stderr)
        XCTAssertTrue(good.stdoutText.contains("307 records valid"), good.stdoutText)

        // Other record shapes: zbar's many-point 1D polygons, a binary payload, options in the header.
        let zbar = sightline("analyze", Fixtures.sample, "-q", "--codes", "zbar", "--faces", "off",
                                 "--start", "4", "--duration", "2", "--timing")
        XCTAssertEqual(try validate(zbar.stdout, in: dir, name: "zbar.jsonl").status, 0)

        // A misspelled key on one face box must be caught.
        var text = String(decoding: records, as: UTF8.self)
        let range = try XCTUnwrap(text.range(of: #""score":"#))
        text.replaceSubrange(range, with: #""scroe":"#)
        let bad = try validate(Data(text.utf8), in: dir, name: "bad.jsonl")
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stdoutText.contains("bad.jsonl:"), bad.stdoutText)
        XCTAssertTrue(bad.stdoutText.contains("scroe"), bad.stdoutText)
    }
}
