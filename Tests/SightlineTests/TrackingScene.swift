import Foundation
import XCTest

/// A folder of its own for this test process, where `script` (a Samples/ or Scripts/ generator,
/// run by Debian's python3) writes its output: the scenes below are each made once per process.
private func generate(_ script: String, folder: String, _ arguments: (URL) -> [String]) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-\(folder)-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let made = try runProcess("/usr/bin/python3", [Fixtures.repo.appendingPathComponent(script).path] + arguments(dir))
    guard made.status == 0 else { throw "\(script) failed (Scripts/install-deps.sh --tests installs what it needs): \(made.stderr)" }
    return dir
}

/// The shared dlib photos the scenes with real faces are made from, or a skip.
private func dlibFaces() throws -> String { try Fixtures.sharedDataOrSkip("dlib-faces").path }

/// The tracking scene of `Samples/make_scene.py` (moving codes off the frame's centre, objects
/// appearing off every detection grid, hard frames), generated once per test process.
enum TrackingScene {
    private static let made: Result<(video: String, truth: String), Error> = Result {
        let dir = try generate("Samples/make_scene.py", folder: "scene") { ["--out", $0.path] }
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
        let faces = try dlibFaces()
        let dir = try generate("Samples/make_crowd.py", folder: "crowd") { ["--out", $0.path, "--faces", faces] }
        return (dir.appendingPathComponent("crowd-1080p.mp4").path, dir.appendingPathComponent("crowd-1080p.truth.jsonl").path)
    }

    /// The scene's video and truth paths (made on first use).
    static func paths() throws -> (video: String, truth: String) { try made.get() }
}

/// The small-face scene of `Samples/make_crowd.py --scene small` (faces of 16–40 px in every
/// tile of the 1080p rotation and on its overlaps, appearing off the rotation, leaving, crossing
/// tile edges; 1080p, 2 s), generated once per test process from the shared dlib photos.
enum SmallFacesScene {
    private static let made: Result<(video: String, truth: String), Error> = Result {
        let faces = try dlibFaces()
        let dir = try generate("Samples/make_crowd.py", folder: "small-faces") { ["--scene", "small", "--out", $0.path, "--faces", faces] }
        return (dir.appendingPathComponent("small-faces-1080p.mp4").path, dir.appendingPathComponent("small-faces-1080p.truth.jsonl").path)
    }

    /// The scene's video and truth paths (made on first use).
    static func paths() throws -> (video: String, truth: String) { try made.get() }
}

/// The anonymization scene of `Scripts/make_anonymize_scene.py` (real faces entering from the
/// edges, turning, covered, motion-blurred, small, a shot cut; 3 s with a tone), generated once
/// per test process from the shared dlib photos. It has no truth file.
enum AnonymizationScene {
    private static let made: Result<String, Error> = Result {
        let faces = try dlibFaces()
        let dir = try generate("Scripts/make_anonymize_scene.py", folder: "anonymize") {
            [$0.appendingPathComponent("scene.mp4").path, "--faces", faces, "--seconds", "3"]
        }
        return dir.appendingPathComponent("scene.mp4").path
    }

    /// The scene's video (made on first use).
    static func video() throws -> String { try made.get() }
}
