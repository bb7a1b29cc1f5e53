import XCTest

/// The library's stage folders form layers: Scripts/check_layers.py finds every type a folder
/// uses from another, and fails on a cycle (two folders that use each other, directly or not).
final class LayerTests: XCTestCase {
    func testNoCycleBetweenStageFolders() throws {
        let script = Fixtures.repo.appendingPathComponent("Scripts/check_layers.py").path
        let run = try runProcess("/usr/bin/python3", [script])
        XCTAssertEqual(run.status, 0, run.stdoutText + run.stderr)
        XCTAssertTrue(run.stdoutText.contains("no cycle"), run.stdoutText)
    }

    func testTheCheckFindsACycle() throws {
        // Two folders that use each other's types: the check must refuse them.
        let dir = try Fixtures.temporaryDirectory(self)
        for (folder, own, other) in [("A", "Apple", "Banana"), ("B", "Banana", "Apple")] {
            let path = dir.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            try "public struct \(own) { var x: \(other)? }\n".write(to: path.appendingPathComponent("\(own).swift"), atomically: true, encoding: .utf8)
        }
        let script = Fixtures.repo.appendingPathComponent("Scripts/check_layers.py").path
        let run = try runProcess("/usr/bin/python3", [script, dir.path])
        XCTAssertEqual(run.status, 1, run.stdoutText)
        XCTAssertTrue(run.stdoutText.contains("cycle between A, B"), run.stdoutText)
    }
}
