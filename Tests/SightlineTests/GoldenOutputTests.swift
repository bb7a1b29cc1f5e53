import Foundation
import XCTest
@testable import Sightline

/// Every command that writes what a user keeps, on the sample, through the binary, against the
/// outputs recorded in Tests/Golden/:
/// - records (`NAME.jsonl`, readable JSON Lines) field by field (`RecordComparison`): boxes within
///   1 px, scores within 0.02, landmarks within 2 px, everything else exact, so the same files
///   hold on every CPU kind;
/// - what is drawn from records alone (a video rendered from the recorded `default.jsonl`, a still
///   drawn from it) by sha256 (`outputs.sha256`): no network runs for them;
/// - what a run draws while it detects (the `--render` video), and the shards' merged records,
///   against the same machine's own outputs: exact.
/// A change meant to alter an output records them again in the same commit:
///
///     SIGHTLINE_GOLDEN_UPDATE=1 swift test --disable-swift-testing --filter GoldenOutputTests
///
/// Paths that depend on where the repository is checked out, and a camera's clock, are replaced
/// by fixed text first.
final class GoldenOutputTests: XCTestCase {
    private static let folder = Fixtures.repo.appendingPathComponent("Tests/Golden")
    private static let manifest = folder.appendingPathComponent("outputs.sha256")
    private static let updating = ProcessInfo.processInfo.environment["SIGHTLINE_GOLDEN_UPDATE"] == "1"
    private var dir: URL!
    /// Checksum of each output drawn from recorded records, by name.
    private var outputs: [String: String] = [:]

    override func setUpWithError() throws { dir = try Fixtures.temporaryDirectory(self) }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func run(_ arguments: [String], environment: [String: String]? = nil) throws {
        let result = try runProcess(Fixtures.binary, arguments, environment: environment)
        XCTAssertEqual(result.status, 0, "sightline \(arguments.joined(separator: " ")): \(result.stderr)")
    }

    /// Records with the checkout-dependent paths replaced (and, for a camera, its clock and the
    /// latency of its records).
    private func records(_ name: String, clock: Bool = false) throws -> Data {
        var text = try String(contentsOfFile: path(name), encoding: .utf8)
            .replacingOccurrences(of: Fixtures.sample, with: "SAMPLE")
            .replacingOccurrences(of: dir.path, with: "OUT")
        if clock {
            text = text.replacingOccurrences(of: #""pts":\d+,"t":[0-9.]+"#, with: #""pts":0,"t":0"#, options: .regularExpression)
                .replacingOccurrences(of: #""(first|last)_t":[0-9.]+"#, with: #""$1_t":0"#, options: .regularExpression)
                .replacingOccurrences(of: #""(p50|p95|max)":\d+"#, with: #""$1":0"#, options: .regularExpression)
        }
        return Data(text.utf8)
    }

    /// `name`'s records against Tests/Golden/NAME, field by field (or recorded there).
    private func checkRecords(_ name: String, clock: Bool = false) throws {
        let golden = Self.folder.appendingPathComponent(name)
        let data = try records(name, clock: clock)
        if Self.updating { return try data.write(to: golden) }
        let differences = RecordComparison.differences(expected: try Data(contentsOf: golden), actual: data)
        XCTAssertEqual(differences, [], "\(name) differs from Tests/Golden/\(name)")
    }

    private func keep(_ name: String, _ data: Data) {
        let hasher = SHA256()
        hasher.update(data)
        outputs[name] = hasher.finalize()
    }

    /// The recorded default run, its paths pointing at this checkout, for commands that draw it.
    private func recordedDefaultRun() throws -> String {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("default.jsonl"), encoding: .utf8)
            .replacingOccurrences(of: "SAMPLE", with: Fixtures.sample)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path("recorded.jsonl")))
        return path("recorded.jsonl")
    }

    func testOutputsAreTheRecordedOnes() throws {
        let sample = Fixtures.sample
        // The default run (the render fixture's, through the binary) also wrote the thumbnails and
        // a video (they change nothing in its records): one thumbnail per track.
        try RenderFixture.ready()
        try FileManager.default.copyItem(atPath: RenderFixture.records, toPath: path("default.jsonl"))
        try checkRecords("default.jsonl")
        let tracks = try RecordFile(path: path("default.jsonl")).tracks.map { "\($0.kind.rawValue)-\($0.id).png" }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: RenderFixture.thumbnails).sorted(), tracks.sorted())

        // The stride run the shard tests cut (in-process: the same records as through the binary).
        try FileManager.default.copyItem(atPath: try SharedRuns.analyzed(sample, ["--detect-every", "5"]), toPath: path("stride5.jsonl"))
        try checkRecords("stride5.jsonl")

        // What a run draws as it detects is what its records draw again.
        try run(["analyze", sample, "-q", "--duration", "3", "--render", path("render.mp4"), "-o", path("render.jsonl")])
        try checkRecords("render.jsonl")
        try run(["render", sample, path("render.jsonl"), "-q", "-o", path("render-again.mp4")])
        XCTAssertEqual(try Media.frameHashes(path("render.mp4")), try Media.frameHashes(path("render-again.mp4")))

        let camera = try FakeCamera.environment()
        try run(["capture", "--device", FakeCamera.device, "--frames", "20", "--no-drop", "-q", "-o", path("capture.jsonl")],
                environment: camera)
        try checkRecords("capture.jsonl", clock: true)

        let snapshot = try runProcess(Fixtures.binary, ["snapshot", sample, "--at", "4.2", "--json", "-o", path("still-detect.png")])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        try snapshot.stdout.write(to: URL(fileURLWithPath: path("still-detect.json")))
        try checkRecords("still-detect.json")

        // Drawn from the recorded records: the same pixels on every machine.
        let recorded = try recordedDefaultRun()
        try run(["render", sample, recorded, "-q", "--style", "blur", "--timestamp", "-o", path("replay.mp4")])
        keep("replay.mp4", Data(try Media.frameHashes(path("replay.mp4")).joined(separator: "\n").utf8))
        try run(["snapshot", sample, "--at", "4.2", "--records", recorded, "-o", path("still-records.png")])
        keep("still-records.png", try Data(contentsOf: URL(fileURLWithPath: path("still-records.png"))))

        // The plan of a sharded run (its shards merged give the whole run's records, byte for
        // byte: TimelineShardTests).
        try run(["plan", sample, "--shards", "3", "--warmup", "1", "--output-dir", path("shards"), "-o", path("plan.jsonl")])
        try checkRecords("plan.jsonl")

        let sums = outputs.keys.sorted().map { "\(outputs[$0]!)  \($0)" }.joined(separator: "\n") + "\n"
        if Self.updating { return try Data(sums.utf8).write(to: Self.manifest) }
        XCTAssertEqual(sums, try String(contentsOf: Self.manifest, encoding: .utf8), "what is drawn from the recorded records changed")
    }
}
