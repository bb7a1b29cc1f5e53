import Foundation
import XCTest
@testable import Sightline

/// Every command that writes what a user keeps, on the sample, compared byte for byte with the
/// outputs recorded in Tests/Golden/outputs.sha256: records, rendered videos (decoded frame by
/// frame), stills and thumbnails. Each records file is also kept readable, one line per frame
/// (Tests/Golden/NAME.txt: boxes, scores, track ids and payloads), so a failure shows what changed.
/// A change of the code's shape must leave them as they are; a change meant to alter an output
/// records the new checksums and digests in the same commit:
///
///     SIGHTLINE_GOLDEN_UPDATE=1 swift test --disable-swift-testing --filter GoldenOutputTests
///
/// Paths that depend on where the repository is checked out, and a camera's clock, are replaced
/// by fixed text before hashing.
final class GoldenOutputTests: XCTestCase {
    private static let manifest = Fixtures.repo.appendingPathComponent("Tests/Golden/outputs.sha256")
    private var dir: URL!
    /// Checksum of each output, by name.
    private var outputs: [String: String] = [:]
    /// The readable digest of each records output, by name.
    private var digests: [String: String] = [:]

    override func setUpWithError() throws { dir = try Fixtures.temporaryDirectory(self) }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func run(_ arguments: [String], environment: [String: String]? = nil) throws {
        let result = try runProcess(Fixtures.binary, arguments, environment: environment)
        XCTAssertEqual(result.status, 0, "sightline \(arguments.joined(separator: " ")): \(result.stderr)")
    }

    /// Records with the checkout-dependent paths replaced (and, for a camera, its clock).
    private func records(_ name: String, clock: Bool = false) throws -> Data {
        var text = try String(contentsOfFile: path(name), encoding: .utf8)
            .replacingOccurrences(of: Fixtures.sample, with: "SAMPLE")
            .replacingOccurrences(of: dir.path, with: "OUT")
        if clock {
            text = text.replacingOccurrences(of: #""pts":\d+,"t":[0-9.]+"#, with: #""pts":0,"t":0"#, options: .regularExpression)
                .replacingOccurrences(of: #""(first|last)_t":[0-9.]+"#, with: #""$1_t":0"#, options: .regularExpression)
        }
        return Data(text.utf8)
    }

    private func keep(_ name: String, _ data: Data) {
        let hasher = SHA256()
        hasher.update(data)
        outputs[name] = hasher.finalize()
    }
    private func keepRecords(_ name: String, clock: Bool = false) throws {
        let data = try records(name, clock: clock)
        keep(name, data)
        let digest = try Self.digest(data)
        if digest != "\n" { digests[name] = digest }
    }

    /// One line per frame and track: what a reader of the records would compare.
    static func digest(_ data: Data) throws -> String {
        func box(_ b: Box) -> String { String(format: "%.1f,%.1f,%.1fx%.1f", b.x, b.y, b.w, b.h) }
        var lines: [String] = []
        for record in try jsonLines(data) {
            switch record["type"] as? String {
            case "frame":
                let frame = try FrameRecord(json: record)
                let faces = frame.faces.map { "#\($0.track.map(String.init) ?? "-") \(box($0.box)) \(String(format: "%.3f", $0.score))" }
                let codes = frame.codes.map { "#\($0.track.map(String.init) ?? "-") \($0.symbology.rawValue) \(box($0.box)) \($0.text.debugDescription)" }
                lines.append("\(frame.index) faces [\(faces.joined(separator: "; "))] codes [\(codes.joined(separator: "; "))]")
            case "track":
                lines.append("track \(record["id"] ?? "") \(record["kind"] ?? "") \(record["first_frame"] ?? "")-\(record["last_frame"] ?? "")")
            default:
                continue
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func digestFile(_ name: String) -> URL {
        manifest.deletingLastPathComponent().appendingPathComponent(name.replacingOccurrences(of: "/", with: "-") + ".txt")
    }
    private func keepVideo(_ name: String) throws { keep(name, Data(try Media.frameHashes(path(name)).joined(separator: "\n").utf8)) }
    private func keepFile(_ name: String) throws { keep(name, try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    func testOutputsAreTheRecordedOnes() throws {
        let sample = Fixtures.sample
        // The default run also writes the thumbnails (they change nothing in its records).
        try run(["analyze", sample, "-q", "--thumbnails", path("thumbs"), "-o", path("default.jsonl")])
        try keepRecords("default.jsonl")
        try run(["analyze", sample, "-q", "--detect-every", "5", "-o", path("stride5.jsonl")])
        try keepRecords("stride5.jsonl")
        try run(["analyze", sample, "-q", "--duration", "3", "--render", path("render.mp4"), "-o", path("render.jsonl")])
        try keepRecords("render.jsonl")
        try keepVideo("render.mp4")
        for name in try FileManager.default.contentsOfDirectory(atPath: path("thumbs")).sorted() {
            try keepFile("thumbs/" + name)
        }

        let camera = try FakeCamera.environment()
        try run(["capture", "--device", FakeCamera.device, "--frames", "20", "--no-drop", "-q", "-o", path("capture.jsonl")],
                environment: camera)
        try keepRecords("capture.jsonl", clock: true)

        try run(["render", sample, path("default.jsonl"), "-q", "--style", "blur", "--timestamp", "-o", path("replay.mp4")])
        try keepVideo("replay.mp4")

        let snapshot = try runProcess(Fixtures.binary, ["snapshot", sample, "--at", "4.2", "--json", "-o", path("still-detect.png")])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        keep("still-detect.json", snapshot.stdout)
        try keepFile("still-detect.png")
        try run(["snapshot", sample, "--at", "4.2", "--records", path("default.jsonl"), "-o", path("still-records.png")])
        try keepFile("still-records.png")

        let shards = path("shards")
        try run(["plan", sample, "--shards", "3", "--warmup", "1", "--output-dir", shards, "-o", path("plan.jsonl")])
        try keepRecords("plan.jsonl")
        try FileManager.default.createDirectory(atPath: shards, withIntermediateDirectories: true)
        for shard in try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path("plan.jsonl")))) {
            try run(try XCTUnwrap(shard["args"] as? [String]) + ["-q"])
        }
        try run(["merge", path("plan.jsonl"), "-q"])
        try keepRecords("shards/faces-and-codes-720p.jsonl")

        let recorded = outputs.keys.sorted().map { "\(outputs[$0]!)  \($0)" }.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["SIGHTLINE_GOLDEN_UPDATE"] == "1" {
            try FileManager.default.createDirectory(at: Self.manifest.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(recorded.utf8).write(to: Self.manifest)
            for (name, digest) in digests { try Data(digest.utf8).write(to: Self.digestFile(name)) }
            return
        }
        let expected = try String(contentsOf: Self.manifest, encoding: .utf8)
        let was = Dictionary(uniqueKeysWithValues: expected.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (parts[1].trimmingCharacters(in: .whitespaces), String(parts[0]))
        })
        for name in Set(was.keys).union(outputs.keys).sorted() where outputs[name] != was[name] {
            var change = ""
            if let digest = digests[name], let before = try? String(contentsOf: Self.digestFile(name), encoding: .utf8) {
                let (old, new) = (before.split(separator: "\n"), digest.split(separator: "\n"))
                let differing = (0..<max(old.count, new.count)).filter { $0 >= old.count || $0 >= new.count || old[$0] != new[$0] }
                change = differing.isEmpty ? " (the same boxes, scores, ids and payloads: another member changed)"
                    : ":\n" + differing.prefix(5).map { i in
                        "  recorded: \(i < old.count ? String(old[i]) : "(none)")\n  now:      \(i < new.count ? String(new[i]) : "(none)")"
                    }.joined(separator: "\n") + (differing.count > 5 ? "\n  … \(differing.count) lines differ" : "")
            }
            XCTFail("\(name) differs from the recorded output\(change)")
        }
    }
}
