import Foundation
import XCTest
@testable import Sightline
@testable import SightlineRecordTools

/// A Python package the test needs, or a skip when it is not installed: `Scripts/install-deps.sh
/// --tests` installs them, and with CI=true a missing package fails the test instead.
func pythonWithPackagesOrSkip(_ python: String, imports: String, installedBy script: String) throws -> String {
    let probe = try? runProcess(python, ["-c", "import \(imports)"])
    if probe?.status == 0 { return python }
    let message = "\(python) cannot import \(imports) (installed by Scripts/deps/tests/\(script)): \(probe?.stderr.suffix(300) ?? "not found")"
    if ProcessInfo.processInfo.environment["CI"] == "true" { throw message }
    throw XCTSkip(message)
}

/// `sightline audit`'s tracking metrics against the reference implementations: MOTA, MOTP, IDF1,
/// IDP, IDR and ID switches against py-motmetrics 1.4.0, HOTA and its parts against TrackEval 1.3.0,
/// on tracker/truth pairs that Tests/Reference/tracking_metrics.py generates (seeded) and evaluates
/// with both (installed by Scripts/deps/tests/tracking-metrics.sh).
final class ReferenceMetricsTests: XCTestCase {
    func testAuditEqualsMotmetricsAndTrackEvalOnGeneratedPairs() throws {
        let python = try pythonWithPackagesOrSkip("/usr/bin/python3", imports: "motmetrics, trackeval", installedBy: "tracking-metrics.sh")
        let dir = try Fixtures.temporaryDirectory(self)
        let script = Fixtures.repo.appendingPathComponent("Tests/Reference/tracking_metrics.py").path
        let run = try runProcess(python, [script, dir.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reference = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("reference.json"))) as? [String: Any])
        let scenarios = try XCTUnwrap(reference["scenarios"] as? [String: [String: [String: Double]]])
        XCTAssertGreaterThanOrEqual(scenarios.count, 6)
        var switchesSeen = 0
        for (name, expected) in scenarios.sorted(by: { $0.key < $1.key }) {
            let folder = dir.appendingPathComponent(name)
            let truth = try RecordFile(auditInput: folder.appendingPathComponent("gt.txt").path, truth: true)
            let predicted = try RecordFile(auditInput: folder.appendingPathComponent("tracker.txt").path, truth: false)
            let report = try Auditor(options: AuditOptions(iou: 0.5, kinds: [.faces])).audit(predicted: predicted, truth: truth)
            let tracking = try XCTUnwrap(report.faces?.tracking, name)
            let mot = try XCTUnwrap(tracking.clearMOT, name), id = try XCTUnwrap(tracking.identity, name)
            let hota = try XCTUnwrap(tracking.hota, name)
            let mm = try XCTUnwrap(expected["motmetrics"]), te = try XCTUnwrap(expected["trackeval"])
            func check(_ value: Double?, _ reference: Double?, _ what: String) {
                guard let value, let reference else { return XCTFail("\(name) \(what): \(String(describing: value)) vs \(String(describing: reference))") }
                XCTAssertEqual(value, reference, accuracy: 1e-4, "\(name) \(what)")
            }
            XCTAssertEqual(Double(mot.switches), mm["num_switches"], "\(name) ID switches")
            XCTAssertEqual(Double(mot.misses), mm["num_misses"], "\(name) misses")
            XCTAssertEqual(Double(mot.falsePositives), mm["num_false_positives"], "\(name) false positives")
            XCTAssertEqual(Double(mot.objects), mm["num_objects"], "\(name) objects")
            XCTAssertEqual(Double(mot.matched), mm["num_detections"], "\(name) matches")
            check(mot.mota, mm["mota"], "MOTA")
            check(mot.motp, mm["motp"], "MOTP")
            check(id.idF1, mm["idf1"], "IDF1")
            check(id.idPrecision, mm["idp"], "IDP")
            check(id.idRecall, mm["idr"], "IDR")
            check(hota.hota, te["HOTA"], "HOTA")
            check(hota.detA, te["DetA"], "DetA")
            check(hota.assA, te["AssA"], "AssA")
            check(hota.detRe, te["DetRe"], "DetRe")
            check(hota.detPr, te["DetPr"], "DetPr")
            check(hota.assRe, te["AssRe"], "AssRe")
            check(hota.assPr, te["AssPr"], "AssPr")
            check(hota.locA, te["LocA"], "LocA")
            switchesSeen += mot.switches
        }
        // The pairs exercise ID switches (swapped and fragmented tracks), not only detection.
        XCTAssertGreaterThan(switchesSeen, 10)

        // The command shows the same numbers (4 decimals) in its JSON and its table.
        let folder = dir.appendingPathComponent("mixed")
        let cli = sightline("audit", folder.appendingPathComponent("tracker.txt").path, folder.appendingPathComponent("gt.txt").path, "--format", "json")
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: cli.stdout) as? [String: Any])
        let tracking = try XCTUnwrap((json["faces"] as? [String: Any])?["tracking"] as? [String: Any])
        let te = try XCTUnwrap(scenarios["mixed"]?["trackeval"]), mm = try XCTUnwrap(scenarios["mixed"]?["motmetrics"])
        for (key, value) in [("hota", te["HOTA"]), ("deta", te["DetA"]), ("assa", te["AssA"]), ("mota", mm["mota"]), ("idf1", mm["idf1"])] {
            XCTAssertEqual(try XCTUnwrap(tracking[key] as? Double, key), try XCTUnwrap(value), accuracy: 0.00006, key)
        }
        let table = sightline("audit", folder.appendingPathComponent("tracker.txt").path, folder.appendingPathComponent("gt.txt").path)
        XCTAssertTrue(table.stdoutText.contains("HOTA \(JSON.format(try XCTUnwrap(te["HOTA"]), digits: 4))  DetA "), table.stdoutText)
    }

    /// py-motmetrics keeps an object's last correspondence across frames where its hypothesis was
    /// missing (`MOTAccumulator.m`), not only from the frame before: object 1 paired with
    /// hypothesis 1, hypothesis 1 missing for a frame, then back beside a closer hypothesis 2 is a
    /// match with 1, not a switch to 2 (checked with motmetrics 1.4.0).
    func testLastCorrespondenceIsKeptAcrossAGap() {
        var acc = MOTAccumulator()
        acc.update(objects: [1], hypotheses: [1], distances: [[0.3]])
        acc.update(objects: [1], hypotheses: [], distances: [[]])
        let events = acc.update(objects: [1], hypotheses: [1, 2], distances: [[0.4, 0.1]])
        typealias E = MOTFrameEvents.Event
        XCTAssertEqual(events.events, [E(kind: .match, object: 1, hypothesis: 1, distance: 0.4),
                                       E(kind: .falsePositive, object: nil, hypothesis: 2, distance: nil)])
        XCTAssertEqual(acc.metrics.switches, 0)
    }

    /// HOTA on a case small enough to work out by hand: one object, one hypothesis, IoU 0.8 and 0.6
    /// in two frames. Both frames match for α ≤ 0.6 (12 of the 19 thresholds), one for α in
    /// 0.65…0.8 (4), none above (3). DetA per α: 1, 1/3 (TP 1, FN 1, FP 1), 0; AssA: 1, 1/3, 0.
    func testHOTAOnAHandWorkedCase() throws {
        let frames = [HOTAMetrics.Frame(objects: [7], hypotheses: [3], similarity: [[0.8]]),
                      HOTAMetrics.Frame(objects: [7], hypotheses: [3], similarity: [[0.6]])]
        let h = HOTAMetrics(frames: frames)
        let expected: Double = (12.0 + 4.0 / 3.0) / 19.0
        XCTAssertEqual(try XCTUnwrap(h.detA), expected, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(h.assA), expected, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(h.hota), expected, accuracy: 1e-12)
        XCTAssertNil(HOTAMetrics(frames: []).hota)
        XCTAssertEqual(HOTAMetrics(frames: [HOTAMetrics.Frame(objects: [1], hypotheses: [], similarity: [[]])]).hota, 0)
    }
}
