import Foundation
import XCTest
@testable import Sightline

/// The folder where `script` (a Samples/ or Scripts/ generator, run by Debian's python3) wrote its
/// output: made once, then kept in the temporary folder under a key of the script's text, its
/// arguments and its input files, so the next test process (the suite's second run, with the
/// runtime held to AVX2) takes the same scene, byte for byte, without making it again (`madeOnce`).
private func generate(_ script: String, folder: String, inputs: [String] = [], _ arguments: (URL) -> [String]) throws -> URL {
    let scriptPath = Fixtures.repo.appendingPathComponent(script).path
    let key = SHA256()
    key.update(try Data(contentsOf: URL(fileURLWithPath: scriptPath)))
    key.update(Data(arguments(URL(fileURLWithPath: "/OUT")).joined(separator: "\u{0}").utf8))
    for input in inputs {
        for name in (try FileManager.default.contentsOfDirectory(atPath: input)).sorted() {
            let size = (try FileManager.default.attributesOfItem(atPath: input + "/" + name)[.size] as? Int) ?? -1
            key.update(Data("\(name)\u{0}\(size)\u{0}".utf8))
        }
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-\(folder)-\(key.finalize().prefix(16))")
    return try madeOnce(dir) { making in
        let made = try runProcess("/usr/bin/python3", [scriptPath] + arguments(making))
        guard made.status == 0 else { throw "\(script) failed (Scripts/install-deps.sh --tests installs what it needs): \(made.stderr)" }
    }
}

/// The shared dlib photos the scenes with real faces are made from, or a skip.
private func dlibFaces() throws -> String { try Fixtures.sharedDataOrSkip("dlib-faces").path }

/// The tracking scene of `Samples/make_scene.py` (moving codes off the frame's centre, objects
/// appearing off every detection grid, hard frames), made once (see `generate`).
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
/// from the edges, crossing, partly covered, some dark; 1080p, 2 s), made once from the shared
/// dlib photos.
enum CrowdScene {
    private static let made: Result<(video: String, truth: String), Error> = Result {
        let faces = try dlibFaces()
        let dir = try generate("Samples/make_crowd.py", folder: "crowd", inputs: [faces]) { ["--out", $0.path, "--faces", faces] }
        return (dir.appendingPathComponent("crowd-1080p.mp4").path, dir.appendingPathComponent("crowd-1080p.truth.jsonl").path)
    }

    /// The scene's video and truth paths (made on first use).
    static func paths() throws -> (video: String, truth: String) { try made.get() }
}

/// The small-face scene of `Samples/make_crowd.py --scene small` (faces of 16–40 px in every
/// tile of the 1080p rotation and on its overlaps, appearing off the rotation, leaving, crossing
/// tile edges; 1080p, 2 s), made once from the shared dlib photos.
enum SmallFacesScene {
    private static let made: Result<(video: String, truth: String), Error> = Result {
        let faces = try dlibFaces()
        let dir = try generate("Samples/make_crowd.py", folder: "small-faces", inputs: [faces]) { ["--scene", "small", "--out", $0.path, "--faces", faces] }
        return (dir.appendingPathComponent("small-faces-1080p.mp4").path, dir.appendingPathComponent("small-faces-1080p.truth.jsonl").path)
    }

    /// The scene's video and truth paths (made on first use).
    static func paths() throws -> (video: String, truth: String) { try made.get() }
}

/// The anonymization scene of `Scripts/make_anonymize_scene.py` (real faces entering from the
/// edges, turning, covered, motion-blurred, small, a shot cut; 3 s with a tone), made once from
/// the shared dlib photos. It has no truth file.
enum AnonymizationScene {
    private static let made: Result<String, Error> = Result {
        let faces = try dlibFaces()
        let dir = try generate("Scripts/make_anonymize_scene.py", folder: "anonymize", inputs: [faces]) {
            [$0.appendingPathComponent("scene.mp4").path, "--faces", faces, "--seconds", "3"]
        }
        return dir.appendingPathComponent("scene.mp4").path
    }

    /// The scene's video (made on first use).
    static func video() throws -> String { try made.get() }
}
