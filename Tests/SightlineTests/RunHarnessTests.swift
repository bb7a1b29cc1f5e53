import XCTest
@testable import Sightline

/// `Run` driven in-process: frames drawn in memory (`MemoryFrameSource`) whose every box is
/// known, records collected by a `CollectingSink`. No process, no file, no model: a QR code
/// that appears off the code-search grid, moves, and leaves.
final class RunHarnessTests: XCTestCase {
    static let payload = "sightline harness"
    /// Its QR code (version 2, level M), one character per module, as an encoder made it;
    /// drawn with a quiet zone of 4 modules, dark on light.
    static let modules = [
        "#######.#########.#######",
        "#.....#.#...###.#.#.....#",
        "#.###.#.#.#.##..#.#.###.#",
        "#.###.#..#..#.#...#.###.#",
        "#.###.#.###.###.#.#.###.#",
        "#.....#..#.####...#.....#",
        "#######.#.#.#.#.#.#######",
        "............#.##.........",
        "#..########..###.#..#.###",
        "##.##...#.#...##....###..",
        ".#.#.###.#.#..#######.#.#",
        "#..##...#..#..#..###.##.#",
        ".#...##.#.#..####.##.#.#.",
        "###..#.#.#..#..##...#.#..",
        "###.###...#...###..######",
        "#......####.####..##.###.",
        "#..#.##...###...#####.###",
        "........####....#...###..",
        "#######.##..###.#.#.###.#",
        "#.....#.#.##.#.##...##.##",
        "#.###.#.##.#.#.#######..#",
        "#.###.#.###.##...##..#.##",
        "#.###.#..###.#.#.#.###.##",
        "#.....#..#####.#.###.####",
        "#######.######..#.##.#..#",
    ]
    static let code: [[UInt8]] = {
        let quiet = [UInt8](repeating: 255, count: modules[0].count + 8)
        let rows = modules.map { [UInt8](repeating: 255, count: 4) + $0.map { $0 == "#" ? 0 : 255 } + [UInt8](repeating: 255, count: 4) }
        return Array(repeating: quiet, count: 4) + rows + Array(repeating: quiet, count: 4)
    }()
    static let scale = 3
    static let frames = 60
    /// On frames 7…49 (7 is between two whole-frame code searches, 0 and 15), moving right.
    static let visible = 7...49
    static func origin(_ frame: Int) -> (x: Int, y: Int) { (30 + 3 * (frame - visible.lowerBound), 50) }

    func scene(visible: ClosedRange<Int> = visible) -> MemoryFrameSource {
        MemoryFrameSource(width: 320, height: 240, frames: Self.frames) { index, canvas in
            canvas.fill(value: 90)
            if visible.contains(index) {
                let (x, y) = Self.origin(index)
                canvas.draw(Self.code, x: x, y: y, scale: Self.scale)
            }
        }
    }

    func run(threads: Int, visible: ClosedRange<Int> = visible) throws -> CollectingSink {
        var configuration = RunConfiguration(source: scene(visible: visible), analysis: .detect(faces: .off, codes: CodeReaderOptions(backend: .zxing)))
        configuration.schedule = Schedule(detectEvery: 1, codeFullEvery: 15)
        configuration.threads = threads
        configuration.cuts = nil
        let sink = CollectingSink()
        try Run(configuration).run(into: [sink])
        return sink
    }

    func testACodeEnteringOffTheSearchGridIsFoundFromItsFirstFrameWithOneTrack() throws {
        let out = try run(threads: 2)
        XCTAssertEqual(out.frames.map(\.index), Array(0..<Self.frames))
        XCTAssertEqual(out.summary?.frames, Self.frames)
        // The code's box without the quiet zone: 4 modules on each side.
        let quiet = 4 * Self.scale, side = (Self.code.count - 8) * Self.scale
        for record in out.frames {
            guard Self.visible.contains(record.index) else {
                XCTAssertTrue(record.codes.isEmpty, "frame \(record.index): \(record.codes)")
                continue
            }
            XCTAssertEqual(record.codes.count, 1, "frame \(record.index)")
            guard let code = record.codes.first else { continue }
            XCTAssertEqual(code.text, Self.payload)
            let (x, y) = Self.origin(record.index)
            XCTAssertEqual(code.box.x, Double(x + quiet), accuracy: 2, "frame \(record.index)")
            XCTAssertEqual(code.box.y, Double(y + quiet), accuracy: 2, "frame \(record.index)")
            XCTAssertEqual(code.box.w, Double(side), accuracy: 3, "frame \(record.index)")
        }
        // Frames 7…14 come before the first whole-frame search that sees it (15): found by
        // looking back from there. Between searches the code is read in its region.
        XCTAssertEqual(out.frames[7].codes.first?.source, .refined)
        XCTAssertEqual(out.frames[15].codes.first?.source, .detected)
        XCTAssertEqual(out.frames[15].codeStatus, .ok)
        XCTAssertEqual(out.frames[16].codeStatus, .refined)
        XCTAssertEqual(Set(out.frames.flatMap(\.codes).map(\.track)), [1])
        XCTAssertEqual(out.tracks.count, 1)
        XCTAssertEqual(out.tracks.first?.firstFrame, Self.visible.lowerBound)
        XCTAssertEqual(out.tracks.first?.lastFrame, Self.visible.upperBound)
        XCTAssertEqual(out.tracks.first?.text, Self.payload)
    }

    /// A code that shows only after the last whole-frame search (45) is found on the last frame
    /// (59), which is searched whole, and looked back on to its first frame.
    func testACodeEnteringAfterTheLastSearchIsFoundFromItsFirstFrame() throws {
        let out = try run(threads: 2, visible: 52...59)
        XCTAssertEqual(out.frames.map(\.index), Array(0..<Self.frames))
        XCTAssertEqual(out.frames.filter { $0.codeStatus == .ok }.map(\.index), [0, 15, 30, 45, 59])
        XCTAssertEqual(out.frames.filter { !$0.codes.isEmpty }.map(\.index), Array(52...59))
        XCTAssertEqual(out.frames.last?.codes.first?.source, .detected)
        XCTAssertEqual(out.tracks.map(\.firstFrame), [52])
        XCTAssertEqual(out.tracks.first?.text, Self.payload)
    }

    func testTheRecordsAreTheSameForAnyThreadCount() throws {
        let one = try run(threads: 1), two = try run(threads: 2), three = try run(threads: 3)
        let text = { (sink: CollectingSink) in sink.frames.map { $0.json.serialized() } + sink.tracks.map { $0.json.serialized() } }
        XCTAssertEqual(text(one), text(two))
        XCTAssertEqual(text(one), text(three))
    }

    func testTheScheduleGivesEachFrameItsPlanByStreamPosition() {
        var planner = Schedule(detectEvery: 3, codeFullEvery: 6).planner()
        var plans: [FramePlan] = []
        for position in 4..<13 {
            let plan = planner.plan(at: position)
            plans.append(plan)
            // A live source dropped the frame at 9: its full detection moves on to 10.
            if position != 9 { planner.analyzed(at: position, plan) }
        }
        // A run starting at 4 keeps the whole run's phase: full detection on 6, 9 (dropped), 10, 13…
        XCTAssertEqual(plans.map(\.fullDetection), [false, false, true, false, false, true, true, false, false])
        // The code search on full-detection frames on its own grid (6, 12): 12 is not a detection frame.
        XCTAssertEqual(plans.map(\.fullCodeSearch), [false, false, true, false, false, false, false, false, false])
        // A file's last frame (known by reading one ahead) is searched whole, on every tile.
        var tiled = Schedule(detectEvery: 2, codeFullEvery: 15, tiles: 4).planner()
        XCTAssertEqual(tiled.plan(at: 7), FramePlan(fullDetection: false, fullCodeSearch: false))
        XCTAssertEqual(tiled.plan(at: 7, last: true), .whole)
        XCTAssertEqual(tiled.plan(at: 8), FramePlan(fullDetection: true, fullCodeSearch: false, tile: 0))
    }
}
