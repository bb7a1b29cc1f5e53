import Foundation
import XCTest

/// What headless Chromium saw of a page (Tests/Browser/inspect_page.py drives it over the DevTools
/// protocol): the value of an expression, page points and the screenshot's pixels at them, and
/// everything the page logged or requested.
struct BrowserView {
    var json: [String: Any]
    var pixels: [UInt8]
    var width = 0

    var value: Any? { json["value"] }
    var points: [(x: Double, y: Double)] {
        (json["probe_points"] as? [[String: Any]] ?? []).map { (($0["x"] as? Double) ?? -1, ($0["y"] as? Double) ?? -1) }
    }

    /// The screenshot's colour at page point `k` of the probe.
    func colour(at k: Int) -> (r: Int, g: Int, b: Int) {
        let p = points[k]
        return Media.pixel(pixels, width: width, x: Int(p.x), y: Int(p.y))
    }

    static let chromium = "/usr/bin/chromium"

    /// Loads `page` from a file:// URL, evaluates `eval` and `probe`, and takes a screenshot.
    static func open(_ page: String, eval: String, probe: String, in dir: URL,
                     file: StaticString = #filePath, line: UInt = #line) throws -> BrowserView {
        guard FileManager.default.isExecutableFile(atPath: chromium) else {
            XCTFail("\(chromium) is missing: Scripts/install-deps.sh --tests installs it", file: file, line: line)
            throw "no chromium"
        }
        let shot = dir.appendingPathComponent("screenshot-\(UUID().uuidString).png").path
        let script = Fixtures.repo.appendingPathComponent("Tests/Browser/inspect_page.py").path
        let run = try runProcess("/usr/bin/python3", [script, page, "--eval", eval, "--probe", probe, "--screenshot", shot,
                                                      "--chromium", chromium])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any],
                                 "inspect_page.py printed no JSON: \(run.stderr)", file: file, line: line)
        XCTAssertEqual(run.status, 0, "the page did not become ready: \(json["error"] ?? "") \(run.stderr)", file: file, line: line)
        var view = BrowserView(json: json, pixels: [])
        if FileManager.default.fileExists(atPath: shot) {
            view.width = try Media.size(shot).width
            view.pixels = try Media.rgb(shot)
        }
        return view
    }

    /// No console message, uncaught exception or error log entry; no request but the page's own
    /// file and its data: URIs.
    func assertClean(page: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual((json["console"] as? [Any])?.count, 0, "console: \(json["console"] ?? "")", file: file, line: line)
        XCTAssertEqual((json["exceptions"] as? [Any])?.count, 0, "exceptions: \(json["exceptions"] ?? "")", file: file, line: line)
        let errors = (json["log"] as? [[String: Any]] ?? []).filter { ($0["level"] as? String) != "verbose" && ($0["level"] as? String) != "info" }
        XCTAssertTrue(errors.isEmpty, "log: \(errors)", file: file, line: line)
        let own = URL(fileURLWithPath: page).standardizedFileURL.absoluteString
        let requests = json["requests"] as? [String] ?? []
        XCTAssertEqual(requests.first, own, file: file, line: line)
        let others = requests.filter { $0 != own && !$0.hasPrefix("data:") }
        XCTAssertTrue(others.isEmpty, "network requests: \(others)", file: file, line: line)
    }
}

/// Colours the page draws with (ReportTemplate), checked in its screenshots.
enum ReportColour {
    static let faceDetected = (r: 37, g: 99, b: 235)
    static let codeDetected = (r: 234, g: 88, b: 12)
    /// Detected, refined, interpolated.
    static let face = [faceDetected, (r: 125, g: 160, b: 242), (r: 205, g: 218, b: 250)]
    static let code = [codeDetected, (r: 243, g: 157, b: 110), (r: 250, g: 214, b: 194)]
    static let laneBackgrounds = [(r: 241, g: 243, b: 245), (r: 233, g: 236, b: 239)]
    static let missed = (r: 220, g: 38, b: 38)
    static let idSwitch = (r: 124, g: 58, b: 237)
}

func assertColour(_ seen: (r: Int, g: Int, b: Int), _ expected: (r: Int, g: Int, b: Int), _ what: String,
                  file: StaticString = #filePath, line: UInt = #line) {
    let close = abs(seen.r - expected.r) <= 3 && abs(seen.g - expected.g) <= 3 && abs(seen.b - expected.b) <= 3
    XCTAssertTrue(close, "\(what): the screenshot shows \(seen), expected \(expected)", file: file, line: line)
}

func assertLaneBackground(_ seen: (r: Int, g: Int, b: Int), _ what: String, file: StaticString = #filePath, line: UInt = #line) {
    let close = ReportColour.laneBackgrounds.contains { abs(seen.r - $0.r) <= 3 && abs(seen.g - $0.g) <= 3 && abs(seen.b - $0.b) <= 3 }
    XCTAssertTrue(close, "\(what): the screenshot shows \(seen), expected a lane background", file: file, line: line)
}

/// The report page in a real browser (Debian's Chromium, headless).
final class ReportBrowserTests: XCTestCase {
    /// The page's lanes as the DOM holds them: id, kind, first and last time, payload.
    static let lanesExpression = """
        [...document.querySelectorAll('#lanes .lane')].map((d) => ({id: Number(d.dataset.track), kind: d.dataset.kind, \
        first: d.dataset.firstT, last: d.dataset.lastT, payload: d.dataset.payload === undefined ? null : d.dataset.payload}))
        """

    /// The track records of a record file, by id.
    private func trackRecords(_ path: String) throws -> [Int: [String: Any]] {
        let records = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path))).filter { $0["type"] as? String == "track" }
        return Dictionary(uniqueKeysWithValues: records.map { (($0["id"] as? Int) ?? -1, $0) })
    }

    func testSampleReportLoadsCleanAndShowsEveryTrack() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let page = dir.appendingPathComponent("report.html").path
        let run = sightline("report", RenderFixture.records, "--video", Fixtures.sample, "--truth", Fixtures.sampleTruth, "-q", "-o", page)
        XCTAssertEqual(run.status, 0, run.stderr)

        let eval = """
            ({lanes: \(Self.lanesExpression), \
            thumbnails: [...document.querySelectorAll('#tracks img.thumb')].map((i) => ({alt: i.alt, width: i.naturalWidth, complete: i.complete})), \
            recall: document.querySelector('#audit-all [data-metric=recall]').textContent, \
            switches: document.querySelector('#audit-all [data-metric=switches]').textContent, \
            issues: document.querySelectorAll('#issues tr.issue').length, \
            peopleHidden: document.getElementById('people-section').hidden, \
            frames: document.querySelector('#count-frames b').textContent, loadMs: window.sightlineReport.loadMs})
            """
        // Every lane in the middle of the run, the last lane before its track starts, then the
        // first lane highlighted by a click on its row in the tracks table.
        let probe = """
            (() => { document.getElementById('timeline-section').scrollIntoView(); const r = window.sightlineReport; \
            const points = [1, 2, 3, 4, 5].map((id) => r.lanePoint(id, 200)).concat([r.lanePoint(5, 75)]); \
            document.querySelector('#tracks tbody tr[data-track="1"]').click(); \
            return points.concat([r.lanePoint(1, 0), r.stripPoint('missed', 100)]); })()
            """
        let view = try BrowserView.open(page, eval: eval, probe: probe, in: dir)
        view.assertClean(page: page)
        let value = try XCTUnwrap(view.value as? [String: Any])

        // One lane per track, with the times and payloads of the track records.
        let tracks = try trackRecords(RenderFixture.records)
        let lanes = try XCTUnwrap(value["lanes"] as? [[String: Any]])
        XCTAssertEqual(lanes.compactMap { $0["id"] as? Int }.sorted(), [1, 2, 3, 4, 5])
        for lane in lanes {
            let id = try XCTUnwrap(lane["id"] as? Int)
            let track = try XCTUnwrap(tracks[id])
            XCTAssertEqual(lane["kind"] as? String, track["kind"] as? String)
            XCTAssertEqual(lane["first"] as? String, String(format: "%.3f", track["first_t"] as? Double ?? -1), "track \(id)")
            XCTAssertEqual(lane["last"] as? String, String(format: "%.3f", track["last_t"] as? Double ?? -1), "track \(id)")
            XCTAssertEqual(lane["payload"] as? String, track["text"] as? String, "track \(id)")
        }
        XCTAssertEqual(lanes.first { $0["id"] as? Int == 5 }?["payload"] as? String, "SIGHTLINE-QR-2 enters halfway")
        XCTAssertEqual(lanes.first { $0["id"] as? Int == 5 }?["first"] as? String, "5.000")

        // Every thumbnail decodes.
        let thumbnails = try XCTUnwrap(value["thumbnails"] as? [[String: Any]])
        XCTAssertEqual(thumbnails.count, 5)
        for t in thumbnails { XCTAssertGreaterThan(t["width"] as? Int ?? 0, 0, "\(t)") }

        // The audit: everything found, no switch, nothing marked.
        XCTAssertEqual(value["recall"] as? String, "1.000")
        XCTAssertEqual(value["switches"] as? String, "0")
        XCTAssertEqual(value["issues"] as? Int, 0)
        XCTAssertEqual(value["frames"] as? String, "300")
        XCTAssertEqual(value["peopleHidden"] as? Bool, true, "no identities: no People section")

        // The screenshot: lane colours where the bars are, the background where track 5 is not yet.
        XCTAssertEqual(view.points.count, 8)
        XCTAssertFalse(view.pixels.isEmpty)
        assertColour(view.colour(at: 0), ReportColour.faceDetected, "face track 1 at frame 200")
        assertColour(view.colour(at: 1), ReportColour.faceDetected, "face track 2 at frame 200")
        // Frame 200 is between full code searches (every 15th frame): the codes are read in their regions.
        assertColour(view.colour(at: 2), ReportColour.code[1], "code track 3 at frame 200")
        assertColour(view.colour(at: 3), ReportColour.code[1], "code track 4 at frame 200")
        assertColour(view.colour(at: 4), ReportColour.code[1], "code track 5 at frame 200")
        assertLaneBackground(view.colour(at: 5), "code track 5 at frame 75 (before it appears)")
        assertColour(view.colour(at: 6), ReportColour.faceDetected, "face track 1 at frame 0 (selected lane, its bar)")
        assertLaneBackground(view.colour(at: 7), "the misses row at frame 100 (nothing missed)")
        print("sample report: \(try FileManager.default.attributesOfItem(atPath: page)[.size] ?? 0) bytes, ready in the browser after \(value["loadMs"] ?? "?") ms")
    }

    /// Records with identities: the People section shows a row per person with its picture,
    /// time on screen, tracks and one bar per track where the track is on the run's time axis; a
    /// click on a bar selects that track.
    func testPeopleSectionShowsEachPersonsAppearances() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let page = try PeopleFixture.report(in: dir)
        let records = try PeopleFixture.lines()
        let identities = records.filter { $0["type"] as? String == "identity" }
        let tracks = try trackRecords(PeopleFixture.records)
        let person = try XCTUnwrap(identities.first { ($0["tracks"] as? [Int] ?? []).count == 3 })
        let personID = try XCTUnwrap(person["id"] as? Int), second = try XCTUnwrap((person["tracks"] as? [Int])?[1])

        let eval = """
            (() => { const rows = [...document.querySelectorAll('#people tbody tr')].map((r) => ({id: Number(r.dataset.person), \
            seconds: r.cells[2].textContent, tracks: [...r.querySelectorAll('.person-tracks a')].map((a) => Number(a.dataset.track)), \
            bars: [...r.querySelectorAll('.appearance')].map((b) => { const a = b.parentElement.getBoundingClientRect(), c = b.getBoundingClientRect(); \
            return {track: Number(b.dataset.track), left: (c.left - a.left) / a.width, right: (c.right - a.left) / a.width}; }), \
            thumb: r.querySelector('img.thumb') ? r.querySelector('img.thumb').naturalWidth : 0})); \
            document.querySelector('#people tr[data-person="\(personID)"] .appearance[data-track="\(second)"]').click(); \
            return {hidden: document.getElementById('people-section').hidden, rows, \
            selected: Number(document.querySelector('#tracks tr.selected').dataset.track)}; })()
            """
        // The middle of each of the person's bars, and the middle of the gap between the first two.
        let probe = """
            (() => { const row = document.querySelector('#people tr[data-person="\(personID)"]'); row.scrollIntoView({block: 'center'}); \
            const points = [...row.querySelectorAll('.appearance')].map((b) => { const r = b.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; }); \
            const bars = [...row.querySelectorAll('.appearance')].map((b) => b.getBoundingClientRect()); \
            return points.concat([{x: (bars[0].right + bars[1].left) / 2, y: bars[0].top + bars[0].height / 2}]); })()
            """
        let view = try BrowserView.open(page, eval: eval, probe: probe, in: dir)
        view.assertClean(page: page)
        let value = try XCTUnwrap(view.value as? [String: Any])
        XCTAssertEqual(value["hidden"] as? Bool, false)
        XCTAssertEqual(value["selected"] as? Int, second, "a click on a bar selects its track")
        let rows = try XCTUnwrap(value["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.compactMap { $0["id"] as? Int }, identities.compactMap { $0["id"] as? Int })
        // The run's time axis: from the first frame's time to the end of the last frame (24 fps).
        let frames = records.filter { $0["type"] as? String == "frame" }
        let t0 = try XCTUnwrap(frames.first?["t"] as? Double), t1 = try XCTUnwrap(frames.last?["t"] as? Double) + 1.0 / 24
        for (row, identity) in zip(rows, identities) {
            let id = identity["id"] as? Int ?? -1
            XCTAssertEqual(row["tracks"] as? [Int], identity["tracks"] as? [Int], "person \(id)")
            XCTAssertEqual(row["seconds"] as? String, String(format: "%.3f", identity["seconds"] as? Double ?? -1), "person \(id)")
            XCTAssertGreaterThan(row["thumb"] as? Int ?? 0, 0, "person \(id): the picture decodes")
            let bars = try XCTUnwrap(row["bars"] as? [[String: Any]])
            XCTAssertEqual(bars.compactMap { $0["track"] as? Int }, identity["tracks"] as? [Int], "person \(id)")
            for bar in bars {
                let track = try XCTUnwrap(tracks[bar["track"] as? Int ?? -1])
                let start = ((track["first_t"] as? Double ?? 0) - t0) / (t1 - t0)
                let end = ((track["last_t"] as? Double ?? 0) + 1.0 / 24 - t0) / (t1 - t0)
                XCTAssertEqual(bar["left"] as? Double ?? -1, start, accuracy: 0.005, "person \(id), track \(track["id"] ?? "?")")
                XCTAssertEqual(bar["right"] as? Double ?? -1, end, accuracy: 0.005, "person \(id), track \(track["id"] ?? "?")")
            }
        }
        XCTAssertEqual(view.points.count, 4)
        for k in 0..<3 { assertColour(view.colour(at: k), ReportColour.faceDetected, "person \(personID)'s appearance \(k + 1)") }
        assertLaneBackground(view.colour(at: 3), "person \(personID)'s bar between their first two appearances")
    }

    /// A weaker run (the Haar cascade, faces of 100 px and more only) misses the smaller face in a few frames: the
    /// page marks exactly the frames the audit lists.
    func testWeakerRunMarksTheMissesTheAuditLists() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = dir.appendingPathComponent("weak.jsonl").path
        let analyze = sightline("analyze", Fixtures.sample, "-q", "--faces", "haar-alt2", "--min-face", "100", "--duration", "2", "-o", records)
        XCTAssertEqual(analyze.status, 0, analyze.stderr)
        let audit = sightline("audit", records, Fixtures.sampleTruth, "--per-frame", "--format", "json")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: audit.stdout) as? [String: Any])
        let perFrame = try XCTUnwrap(report["per_frame"] as? [[String: Any]])
        let missed = perFrame.filter { (($0["faces"] as? [String: Any])?["missed"] as? [Any])?.isEmpty == false }.compactMap { $0["index"] as? Int }
        XCTAssertFalse(missed.isEmpty, "the weaker run misses nothing: no test")
        let clean = try XCTUnwrap((0..<60).first { !missed.contains($0) && !missed.contains($0 - 1) && !missed.contains($0 + 1) })

        let page = dir.appendingPathComponent("weak.html").path
        let run = sightline("report", records, "--truth", Fixtures.sampleTruth, "-o", page)
        XCTAssertEqual(run.status, 0, run.stderr)
        let eval = """
            ({missed: [...document.querySelectorAll('#issues tr.issue[data-kind=missed]')].map((r) => Number(r.dataset.frame)), \
            recall: document.querySelector('#audit-faces [data-metric=recall]').textContent, \
            hota: document.querySelector('#audit-faces [data-metric=hota]').textContent})
            """
        let probe = """
            (() => { document.getElementById('timeline-section').scrollIntoView(); const r = window.sightlineReport; \
            return [\(missed.map { "r.stripPoint('missed', \($0))" }.joined(separator: ", ")), r.stripPoint('missed', \(clean))]; })()
            """
        let view = try BrowserView.open(page, eval: eval, probe: probe, in: dir)
        view.assertClean(page: page)
        let value = try XCTUnwrap(view.value as? [String: Any])
        XCTAssertEqual(value["missed"] as? [Int], missed)
        let faces = try XCTUnwrap(report["faces"] as? [String: Any])
        let recall = try XCTUnwrap((faces["detection"] as? [String: Any])?["recall"] as? Double)
        XCTAssertEqual(value["recall"] as? String, String(format: "%.3f", recall))
        let hota = try XCTUnwrap((faces["tracking"] as? [String: Any])?["hota"] as? Double)
        XCTAssertEqual(value["hota"] as? String, String(format: "%.3f", hota))
        for k in missed.indices { assertColour(view.colour(at: k), ReportColour.missed, "the misses row at frame \(missed[k])") }
        assertLaneBackground(view.colour(at: missed.count), "the misses row at frame \(clean)")
    }

    /// Track ids of the two faces swapped from frame 150 on: the audit counts two ID switches
    /// there, and the page marks them on the switch row and names them.
    func testSwappedIdsAreMarkedAsIDSwitches() throws {
        try RenderFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let records = dir.appendingPathComponent("swapped.jsonl").path
        let lines = try String(contentsOfFile: RenderFixture.records, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let swapped = lines.map { line -> String in
            guard line.hasPrefix("{\"type\":\"frame\""), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let index = object["index"] as? Int, index >= 150 else { return String(line) }
            return line.replacingOccurrences(of: "{\"track\":1,", with: "{\"track\":#,").replacingOccurrences(of: "{\"track\":2,", with: "{\"track\":1,")
                .replacingOccurrences(of: "{\"track\":#,", with: "{\"track\":2,")
        }
        try swapped.joined(separator: "\n").write(toFile: records, atomically: true, encoding: .utf8)
        let page = dir.appendingPathComponent("swapped.html").path
        let run = sightline("report", records, "--truth", Fixtures.sampleTruth, "-o", page)
        XCTAssertEqual(run.status, 0, run.stderr)
        let eval = """
            ({switches: document.querySelector('#audit-faces [data-metric=switches]').textContent, \
            marked: [...document.querySelectorAll('#issues tr.issue[data-kind=switch]')].map((r) => Number(r.dataset.frame))})
            """
        let probe = """
            (() => { document.getElementById('timeline-section').scrollIntoView(); const r = window.sightlineReport; \
            return [r.stripPoint('switch', 150), r.stripPoint('switch', 100)]; })()
            """
        let view = try BrowserView.open(page, eval: eval, probe: probe, in: dir)
        view.assertClean(page: page)
        let value = try XCTUnwrap(view.value as? [String: Any])
        XCTAssertEqual(value["switches"] as? String, "2")
        XCTAssertEqual(value["marked"] as? [Int], [150, 150])
        assertColour(view.colour(at: 0), ReportColour.idSwitch, "the switch row at frame 150")
        assertLaneBackground(view.colour(at: 1), "the switch row at frame 100")
    }

    /// A long synthetic run (19 000 frames, drawn in bins of 2 frames, 300 tracks): every lane is
    /// in the DOM with the times of its track record, and the bars are drawn where the tracks are.
    func testLongRunIsBinnedAndEveryTrackHasALane() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let records = dir.appendingPathComponent("long.jsonl").path
        let make = try runProcess("/usr/bin/python3", [Fixtures.repo.appendingPathComponent("Scripts/make_synthetic_records.py").path,
                                                       "-o", records, "--frames", "19000", "--tracks", "300", "--seed", "7"])
        XCTAssertEqual(make.status, 0, make.stderr)
        let page = dir.appendingPathComponent("long.html").path
        let run = sightline("report", records, "-q", "-o", page)
        XCTAssertEqual(run.status, 0, run.stderr)
        let tracks = try trackRecords(records)
        XCTAssertEqual(tracks.count, 300)
        // The longest track's lane, in the middle of its first bin seen (a detected or refined
        // observation starts every track) and far outside it.
        let longest = try XCTUnwrap(tracks.values.max { a, b in
            ((a["last_frame"] as? Int ?? 0) - (a["first_frame"] as? Int ?? 0), b["id"] as? Int ?? 0)
                < ((b["last_frame"] as? Int ?? 0) - (b["first_frame"] as? Int ?? 0), a["id"] as? Int ?? 0)
        })
        let id = try XCTUnwrap(longest["id"] as? Int), first = try XCTUnwrap(longest["first_frame"] as? Int)
        let outside = first > 9_500 ? 0 : 18_999
        let eval = """
            ({lanes: \(Self.lanesExpression), bin: JSON.parse(document.getElementById('report-data').textContent).frames.bin})
            """
        let probe = """
            (() => { document.getElementById('timeline-section').scrollIntoView(); const r = window.sightlineReport; \
            return [r.lanePoint(\(id), \(first)), r.lanePoint(\(id), \(outside))]; })()
            """
        let view = try BrowserView.open(page, eval: eval, probe: probe, in: dir)
        view.assertClean(page: page)
        let value = try XCTUnwrap(view.value as? [String: Any])
        XCTAssertEqual(value["bin"] as? Int, 2)
        let lanes = try XCTUnwrap(value["lanes"] as? [[String: Any]])
        XCTAssertEqual(lanes.count, 300)
        for lane in lanes {
            let track = try XCTUnwrap(tracks[lane["id"] as? Int ?? -1])
            XCTAssertEqual(lane["first"] as? String, String(format: "%.3f", track["first_t"] as? Double ?? -1))
            XCTAssertEqual(lane["last"] as? String, String(format: "%.3f", track["last_t"] as? Double ?? -1))
            XCTAssertEqual(lane["payload"] as? String, track["text"] as? String)
        }
        // The first bin is detected, refined or interpolated: one of the kind's three colours.
        let colours = (longest["kind"] as? String) == "face" ? ReportColour.face : ReportColour.code
        let seen = view.colour(at: 0)
        XCTAssertTrue(colours.contains { abs(seen.r - $0.r) <= 3 && abs(seen.g - $0.g) <= 3 && abs(seen.b - $0.b) <= 3 },
                      "track \(id) at its first frame \(first): the screenshot shows \(seen)")
        assertLaneBackground(view.colour(at: 1), "track \(id) at frame \(outside), outside it")
    }
}
