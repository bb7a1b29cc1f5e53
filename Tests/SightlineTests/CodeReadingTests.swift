import XCTest
@testable import Sightline

/// The code reader through `sightline analyze`: zxing-cpp's sample images as short videos, and the
/// bundled sample's codes with their confirmation.
final class CodeReadingTests: XCTestCase {
    /// Per folder of zxing-samples: images, and how many zxing-cpp's own black-box test must read
    /// with its slow options (try harder, rotate, invert) unrotated (expected_pass_counts.tsv).
    private func expectedPassCounts(_ root: URL) throws -> [String: (images: Int, mustRead: Int)] {
        let tsv = try String(contentsOf: root.appendingPathComponent("expected_pass_counts.tsv"), encoding: .utf8)
        var counts: [String: (images: Int, mustRead: Int)] = [:]
        for line in tsv.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("folder\t") {
            let c = line.split(separator: "\t").map(String.init)
            guard c.count >= 6, c[3] == "0", let images = Int(c[2]), let slow = Int(c[5]) else { continue }
            counts[c[0]] = (images, slow)
        }
        return counts
    }

    /// Every image of ../shared/data/zxing-samples as a 3-frame lossless video (FFV1, gray)
    /// through `sightline analyze` with default options: at least as many read per folder as
    /// zxing-cpp's black-box test requires, and no misread (a code of the folder's symbology with
    /// other bytes). The expected payload must be among the codes read, byte-exact.
    func testZXingSamplesAsVideosThroughAnalyze() throws {
        let root = try Fixtures.sharedDataOrSkip("zxing-samples")
        let counts = try expectedPassCounts(root)
        let symbology: [String: Symbology] = ["qrcode-1": .qr, "qrcode-2": .qr, "ean13-1": .ean13, "code128-1": .code128]
        let dir = try Fixtures.temporaryDirectory(self)
        let index = try String(contentsOf: root.appendingPathComponent("index.tsv"), encoding: .utf8)
        let rows = index.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("folder\t") }
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        // One outcome per image: read, misread or neither; the runs go in parallel (each its own process).
        enum Outcome { case read, misread, missed, failed(String) }
        let outcomes = OutcomeSlots<Outcome>(count: rows.count, initial: .missed)
        DispatchQueue.concurrentPerform(iterations: rows.count) { n in
            let cols = rows[n]
            let folder = root.appendingPathComponent(cols[0])
            do {
                let expected = [UInt8](try Data(contentsOf: folder.appendingPathComponent(cols[2])))
                let video = dir.appendingPathComponent("\(n).mkv").path
                try ffmpeg("-loop", "1", "-i", folder.appendingPathComponent(cols[1]).path, "-frames:v", "3",
                           "-c:v", "ffv1", "-pix_fmt", "gray", video)
                let run = sightline("analyze", video, "--faces", "off", "-q")
                guard run.status == 0 else { throw "exit \(run.status): \(run.stderr)" }
                let codes = try jsonLines(run.stdout).filter { $0["type"] as? String == "frame" }
                    .flatMap { try FrameRecord(json: $0).codes }
                if codes.contains(where: { $0.bytes == expected || Array($0.text.utf8) == expected }) {
                    outcomes[n] = .read
                } else if codes.contains(where: { $0.symbology == symbology[cols[0]] }) {
                    outcomes[n] = .misread
                }
            } catch {
                outcomes[n] = .failed("\(cols[1]): \(error)")
            }
        }
        var read: [String: Int] = [:], misread: [String: [String]] = [:], images: [String: Int] = [:]
        for (cols, outcome) in zip(rows, outcomes.values) {
            images[cols[0], default: 0] += 1
            switch outcome {
            case .read: read[cols[0], default: 0] += 1
            case .misread: misread[cols[0], default: []].append(cols[1])
            case .missed: break
            case .failed(let why): XCTFail(why)
            }
        }
        XCTAssertEqual(Set(images.keys), Set(counts.keys))
        for (folder, count) in counts {
            XCTAssertEqual(images[folder], count.images, folder)
            XCTAssertGreaterThanOrEqual(read[folder, default: 0], count.mustRead, "\(folder): read \(read[folder, default: 0])")
        }
        XCTAssertEqual(misread.values.map(\.count).reduce(0, +), 0, "misreads: \(misread)")
        // Measured: 8/8, 53/56, 14/16, 6/6 = 81/86 (zxing-cpp 1.4 read 68/86).
        print("zxing-samples through analyze: \(read.values.reduce(0, +))/\(images.values.reduce(0, +)) \(read)")
    }

    /// The sample with codes only and default options: every code instance read with its exact
    /// payload, first read within a frame of its appearance, and every code track confirmed
    /// within 3 frames of its first frame.
    func testSampleCodesReadAndConfirmed() throws {
        let run = sightline("analyze", Fixtures.sample, "-q", "--faces", "off")
        XCTAssertEqual(run.status, 0, run.stderr)
        let predicted = try RecordFile(jsonLines: run.stdout, path: "analyze output")
        let truth = try RecordFile(path: Fixtures.sampleTruth)
        let report = try Auditor(options: AuditOptions(kinds: [.codes])).audit(predicted: predicted, truth: truth)
        let codes = try XCTUnwrap(report.codes?.payloads)
        XCTAssertEqual(codes.total.correct, 750, "\(codes.total)")
        XCTAssertEqual(codes.total.wrongPayload, 0, "\(codes.total)")
        XCTAssertEqual(codes.total.extra, 0, "\(codes.total)")
        XCTAssertEqual(codes.firstReads.count, 3)
        for first in codes.firstReads {
            XCTAssertLessThanOrEqual(try XCTUnwrap(first.latencyFrames, first.text), 1, first.text)
        }
        // Confirmation: the first frame in which the payload's track is confirmed.
        for first in codes.firstReads {
            let confirmed = predicted.frames.first { $0.codes.contains { $0.bytes == Array(first.text.utf8) && $0.state == .confirmed } }
            let frame = try XCTUnwrap(confirmed, "\(first.text) never confirmed").index
            XCTAssertLessThanOrEqual(frame - first.firstFrame, 3, first.text)
            // Before it, the payload's reads are marked unconfirmed; from then on, confirmed.
            for f in predicted.frames {
                for code in f.codes where code.bytes == Array(first.text.utf8) {
                    XCTAssertEqual(code.state, f.index < frame ? .unconfirmed : .confirmed, "frame \(f.index)")
                }
            }
        }
        XCTAssertTrue(predicted.tracks.filter { $0.kind == .code }.allSatisfy { $0.state == .confirmed })
    }

    /// Payloads with NUL bytes (images made with zint, Tests/Codes/): `text` keeps every byte
    /// (written as \u0000), `bytes` is left out while it is text's UTF-8 and written when it
    /// differs (the hex text mode), and reading the records back gives the payload byte for byte.
    /// Before: zxing-cpp's C text was cut at the first NUL ("AB", and "" for the Aztec code).
    func testPayloadsWithNULBytesKeepEveryByte() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let cases: [(image: String, symbology: Symbology, payload: [UInt8])] = [
            ("qr-nul.png", .qr, Array("AB\0\0CD".utf8)),              // zint -b QRCODE --binary --esc -d 'AB\0\0CD'
            ("aztec-40-nul.png", .aztec, [UInt8](repeating: 0, count: 40)),   // zint -b AZTEC --binary --esc -d '\0' x 40
        ]
        for (image, symbology, payload) in cases {
            let input = Fixtures.repo.appendingPathComponent("Tests/Codes/\(image)").path
            for mode in ["plain", "hex"] {
                let out = dir.appendingPathComponent("\(image)-\(mode).jsonl").path
                let run = sightline("analyze", input, "-q", "--faces", "off", "--code-text", mode, "-o", out)
                XCTAssertEqual(run.status, 0, run.stderr)
                let lines = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: out)))
                let written = try XCTUnwrap(lines.first { $0["type"] as? String == "frame" }?["codes"] as? [[String: Any]])
                XCTAssertEqual(written.count, 1, "\(image) \(mode)")
                let track = try XCTUnwrap(lines.first { $0["type"] as? String == "track" })
                let text = mode == "plain" ? String(decoding: payload, as: UTF8.self)
                                           : payload.map { String(format: "%02X", $0) }.joined(separator: " ")
                for record in [written[0], track] {
                    XCTAssertEqual(record["symbology"] as? String, symbology.rawValue, image)
                    XCTAssertEqual(record["text"] as? String, text, "\(image) \(mode)")
                    XCTAssertEqual((record["bytes"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) },
                                   mode == "plain" ? nil : payload, "\(image) \(mode)")
                }
                // Read back, whole and streamed: the payload byte for byte.
                let file = try RecordFile(path: out)
                let reader = try RecordStreamReader(path: out)
                var streamed: [CodeObservation] = []
                while let item = try reader.next() { if case .frame(let f) = item { streamed += f.codes } }
                for code in [file.frames[0].codes[0], streamed[0]] {
                    XCTAssertEqual(code.bytes, payload, "\(image) \(mode)")
                    XCTAssertEqual(code.text, text, "\(image) \(mode)")
                }
                XCTAssertEqual(file.tracks.first?.bytes, payload, "\(image) \(mode)")
                if mode == "plain" { XCTAssertTrue(String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self).contains("\\u0000")) }
            }
        }
    }

    /// A frame's 1D read made by the quick search has the whole outline the full search gives
    /// (it is read again on every scan line of its region), and both searches read the same.
    func testQuickAndFullSearchesAgreeOnTheSample() throws {
        let quick = sightline("analyze", Fixtures.sample, "-q", "--faces", "off", "--duration", "1", "--code-full-every", "1000")
        let full = sightline("analyze", Fixtures.sample, "-q", "--faces", "off", "--duration", "1", "--code-full-every", "1")
        XCTAssertEqual(quick.status, 0, quick.stderr)
        XCTAssertEqual(full.status, 0, full.stderr)
        let a = try RecordFile(jsonLines: quick.stdout, path: "quick").frames, b = try RecordFile(jsonLines: full.stdout, path: "full").frames
        XCTAssertEqual(a.count, 30)
        for (x, y) in zip(a, b) {
            XCTAssertEqual(x.codes.map(\.text).sorted(), y.codes.map(\.text).sorted(), "frame \(x.index)")
            for code in x.codes {
                let other = try XCTUnwrap(y.codes.first { $0.text == code.text })
                XCTAssertGreaterThanOrEqual(code.box.iou(other.box), 0.8, "frame \(x.index) \(code.text)")
            }
        }
    }
}

extension CodeReadingTests {
    /// Out-of-range code options: exit 64 with a line naming the option, before any input is read.
    func testAbsurdCodeOptionsAreRefused() throws {
        for (arguments, option) in [(["--code-full-every", "0"], "--code-full-every"),
                                    (["--code-confirm-reads", "6", "--code-confirm-window", "5"], "--code-confirm-reads"),
                                    (["--code-confirm-window", "0"], "--code-confirm-window"),
                                    (["--code-binarizer", "otsu"], "--code-binarizer"),
                                    (["--code-try-invert", "maybe"], "--code-try-invert"),
                                    (["--code-text", "utf16"], "--code-text")] {
            let run = sightline(["analyze", Fixtures.sample, "-q"] + arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(option), "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stdout.isEmpty, "\(arguments)")
        }
    }
}

/// Results written by parallel iterations, one slot each.
private final class OutcomeSlots<T>: @unchecked Sendable {
    // @unchecked Sendable: every iteration writes only its own slot, under the lock.
    private var slots: [T]
    private let lock = NSLock()
    init(count: Int, initial: T) { slots = Array(repeating: initial, count: count) }
    subscript(i: Int) -> T {
        get { lock.lock(); defer { lock.unlock() }; return slots[i] }
        set { lock.lock(); slots[i] = newValue; lock.unlock() }
    }
    var values: [T] { lock.lock(); defer { lock.unlock() }; return slots }
}
