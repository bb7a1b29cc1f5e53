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

/// The crowd scene of `Samples/make_crowd.py` (faces of 16–60 px among larger ones, entering
/// from the edges, crossing, partly covered, some dark; 1080p, 2 s), generated once per test
/// process from the shared dlib photos.
enum CrowdScene {
    private static let made: Result<(video: String, truth: String), Error> = Result {
        let faces = Fixtures.sharedData.appendingPathComponent("dlib-faces").path
        guard FileManager.default.fileExists(atPath: faces) else { throw XCTSkip("\(faces) is not present (the shared test data sits beside the repository)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-crowd-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = Fixtures.repo.appendingPathComponent("Samples/make_crowd.py").path
        let made = try runProcess("/usr/bin/python3", [script, "--out", dir.path, "--faces", faces])
        guard made.status == 0 else { throw "make_crowd.py failed (Scripts/install-deps.sh --tests installs what it needs): \(made.stderr)" }
        return (dir.appendingPathComponent("crowd-1080p.mp4").path, dir.appendingPathComponent("crowd-1080p.truth.jsonl").path)
    }

    /// The scene's video and truth paths (made on first use).
    static func paths() throws -> (video: String, truth: String) { try made.get() }
}
