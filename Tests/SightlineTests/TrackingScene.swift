import Foundation
import XCTest

/// The tracking scene of `Samples/make_scene.py` (moving codes off the frame's centre, objects
/// appearing off every detection grid, hard frames), generated once per test process.
enum TrackingScene {
    private static let made: Result<(video: String, truth: String), Error> = Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-scene-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = Fixtures.repo.appendingPathComponent("Samples/make_scene.py").path
        let made = try runProcess("/usr/bin/python3", [script, "--out", dir.path])
        guard made.status == 0 else { throw "make_scene.py failed (Scripts/install-deps.sh --tests installs what it needs): \(made.stderr)" }
        return (dir.appendingPathComponent("tracking-scene-720p.mp4").path,
                dir.appendingPathComponent("tracking-scene-720p.truth.jsonl").path)
    }

    /// The scene's video and truth paths (made on first use).
    static func paths() throws -> (video: String, truth: String) { try made.get() }
}
