import Foundation
import XCTest
@testable import Sightline

/// Face identities on a video of 16 shots of 7 people (faces cut from the dlib photos, each
/// person in 2 or 3 shots, never twice in a row, at other sizes, places, mirrored or not, on
/// other backgrounds): shots of one person share an identity, shots of different people never do.
final class IdentityTests: XCTestCase {
    /// A person: a face box of the dlib photos (training_boxes.csv).
    struct Person { var file: String; var x: Int; var y: Int; var side: Int }
    static let people = [
        Person(file: "2008_001009.jpg", x: 145, y: 79, side: 76), Person(file: "2008_001009.jpg", x: 125, y: 214, side: 90),
        Person(file: "2008_001322.jpg", x: 104, y: 162, side: 76), Person(file: "2008_001322.jpg", x: 232, y: 218, side: 63),
        Person(file: "2008_001322.jpg", x: 344, y: 155, side: 90), Person(file: "2007_007763.jpg", x: 381, y: 89, side: 45),
        Person(file: "2007_007763.jpg", x: 309, y: 233, side: 45),
    ]
    /// Who is in each shot.
    static let shots = [0, 1, 2, 3, 4, 5, 6, 0, 2, 4, 1, 5, 3, 6, 0, 4]
    static let shotFrames = 24

    /// The video (384 frames, 640×360, 24 fps), made with ffmpeg; `sizes` of the photos by file.
    static func makeVideo(in dir: URL) throws -> String {
        let photos = try Fixtures.sharedDataOrSkip("dlib-faces")
        let files = Array(Set(people.map(\.file))).sorted()
        let sizes = ["2008_001009.jpg": (360, 480), "2008_001322.jpg": (500, 375), "2007_007763.jpg": (500, 375)]
        let colors = ["0x2040c0", "0xc03020", "0x20a040", "0xe0c020", "0x802090"]
        var graph: [String] = []
        var uses = [String: [String]]()
        var labels: [String] = []
        for (k, who) in shots.enumerated() {
            let person = people[who]
            let label = "u\(k)"
            uses[person.file, default: []].append(label)
            // A square around the face, 1.6–2 times its size, clipped to the photo.
            let (width, height) = sizes[person.file]!
            let margin = [1.6, 2.0, 1.8][k % 3]
            let side = min(Int(Double(person.side) * margin), width, height)
            let cx = person.x + person.side / 2, cy = person.y + person.side / 2
            let x0 = max(0, min(width - side, cx - side / 2)), y0 = max(0, min(height - side, cy - side / 2))
            let shown = [200, 300, 250][k % 3]
            let left = [40, 320, 180][k % 3]
            graph.append("[\(label)]crop=\(side):\(side):\(x0):\(y0),scale=\(shown):\(shown)\(k % 2 == 1 ? ",hflip" : ""),"
                         + "pad=640:360:\(left):\((360 - shown) / 2):color=\(colors[k % colors.count]),setsar=1,"
                         + "trim=end_frame=\(shotFrames),setpts=PTS-STARTPTS[s\(k)]")
            labels.append("[s\(k)]")
        }
        for (i, file) in files.enumerated() {
            let outs = uses[file]!
            graph.insert("[\(i):v]split=\(outs.count)" + outs.map { "[\($0)]" }.joined(), at: 0)
        }
        graph.append(labels.joined() + "concat=n=\(labels.count):v=1:a=0,format=yuv420p[out]")
        var arguments: [String] = []
        for file in files { arguments += ["-framerate", "24", "-loop", "1", "-i", photos.appendingPathComponent(file).path] }
        let out = dir.appendingPathComponent("people.mp4").path
        let result = try runProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments
            + ["-filter_complex", graph.joined(separator: ";"), "-map", "[out]", "-r", "24", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", out])
        guard result.status == 0 else { throw "ffmpeg failed: \(result.stderr)" }
        return out
    }

    func testShotsOfOnePersonShareAnIdentityAndOthersNever() throws {
        // The video analyzed with `--codes off --identities on`, made once per suite run.
        try PeopleFixture.ready()
        let out = PeopleFixture.records
        let records = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: out)))
        let cuts = records.filter { $0["type"] as? String == "cut" }.compactMap { ($0["index"] as? NSNumber)?.intValue }
        XCTAssertEqual(cuts, (1..<Self.shots.count).map { $0 * Self.shotFrames })

        // Each shot's person: the identity of its largest face in the shot's middle frame.
        let frames = try records.filter { $0["type"] as? String == "frame" }.map { try FrameRecord(json: $0) }
        var found: [Int?] = []
        for k in Self.shots.indices {
            let middle = frames[k * Self.shotFrames + Self.shotFrames / 2]
            found.append(middle.faces.max { $0.box.w < $1.box.w }?.identity)
        }
        var samePairs = 0, sameFound = 0, linkedPairs = 0, wrongLinks = 0
        for i in Self.shots.indices {
            for j in Self.shots.indices where j > i {
                let same = Self.shots[i] == Self.shots[j]
                let linked = found[i] != nil && found[i] == found[j]
                if same { samePairs += 1; if linked { sameFound += 1 } }
                if linked { linkedPairs += 1; if !same { wrongLinks += 1 } }
            }
        }
        let recall = Double(sameFound) / Double(samePairs)
        print("identities per shot: \(found.map { $0.map(String.init) ?? "-" }.joined(separator: " ")); recall \(recall) (\(sameFound)/\(samePairs)), wrong links \(wrongLinks)/\(linkedPairs)")
        XCTAssertGreaterThanOrEqual(recall, 0.9)
        XCTAssertEqual(wrongLinks, 0)

        // Identity records list each person's tracks; no two tracks of one person share a frame.
        let identities = records.filter { $0["type"] as? String == "identity" }
        XCTAssertFalse(identities.contains { $0["embedding"] != nil }, "embeddings only with --embeddings")
        let tracks = Dictionary(uniqueKeysWithValues: records.filter { $0["type"] as? String == "track" }.map { (($0["id"] as! NSNumber).intValue, $0) })
        for identity in identities {
            let members = (identity["tracks"] as? [NSNumber] ?? []).map(\.intValue)
            let spans = members.compactMap { tracks[$0] }.map { (($0["first_frame"] as! NSNumber).intValue, ($0["last_frame"] as! NSNumber).intValue) }.sorted { $0.0 < $1.0 }
            XCTAssertEqual(spans.count, members.count)
            for (a, b) in zip(spans, spans.dropFirst()) { XCTAssertLessThan(a.1, b.0, "identity \(identity["id"] ?? "?")") }
            for id in members { XCTAssertEqual((tracks[id]?["identity"] as? NSNumber)?.intValue, (identity["id"] as? NSNumber)?.intValue) }
        }
        let validation = try runProcess("/usr/bin/python3", [Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path, out])
        XCTAssertEqual(validation.status, 0, validation.stdoutText + validation.stderr)
    }

    /// The largest face's identity in the middle frame of each of `shots` shots of a record file.
    private func identitiesPerShot(_ path: String, shots: Int) throws -> [Int?] {
        let frames = try jsonLines(try Data(contentsOf: URL(fileURLWithPath: path)))
            .filter { $0["type"] as? String == "frame" }.map { try FrameRecord(json: $0) }
        return (0..<shots).map { k in frames[k * Self.shotFrames + Self.shotFrames / 2].faces.max { $0.box.w < $1.box.w }?.identity }
    }

    /// The video cut in two files (shots 0–7, 8–15), each analyzed with --embeddings: `people`
    /// links each file's identities into the same 7 people, each exactly as the shots say.
    func testPeopleLinksIdentitiesAcrossFilesByTheirEmbeddings() throws {
        try PeopleFixture.ready()
        let dir = try Fixtures.temporaryDirectory(self)
        let video = PeopleFixture.video
        let half = Self.shots.count / 2
        var files: [String] = []
        var truth: [String: [Int: Int]] = [:]   // file → identity → person
        for (part, range) in [(0, 0..<half), (1, half..<Self.shots.count)] {
            let clip = dir.appendingPathComponent("part\(part).mp4").path
            try ffmpeg("-i", video, "-vf", "trim=start_frame=\(range.lowerBound * Self.shotFrames):end_frame=\(range.upperBound * Self.shotFrames),setpts=PTS-STARTPTS",
                       "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", clip)
            let out = dir.appendingPathComponent("part\(part).jsonl").path
            let run = sightline("analyze", clip, "-q", "--codes", "off", "--identities", "on", "--embeddings", "-o", out)
            XCTAssertEqual(run.status, 0, run.stderr)
            files.append(out)
            for (k, identity) in try identitiesPerShot(out, shots: range.count).enumerated() {
                let id = try XCTUnwrap(identity, "shot \(range.lowerBound + k) has no identity")
                XCTAssertEqual(truth[out]?[id].map { $0 == Self.shots[range.lowerBound + k] } ?? true, true, "\(out): identity \(id) is two people")
                truth[out, default: [:]][id] = Self.shots[range.lowerBound + k]
            }
        }
        let timeline = try PeopleTimeline(files: files)
        XCTAssertEqual(timeline.people.count, Set(Self.shots).count)
        for person in timeline.people {
            let who = Set(person.appearances.map { truth[$0.file]?[$0.identity] })
            XCTAssertEqual(who.count, 1, "one person is \(who)")
            XCTAssertEqual(person.appearances.count, 2, "each person is in both halves")
        }
        // Without embeddings, files cannot be linked: one clear error naming the file (the whole
        // video analyzed with --identities on, without --embeddings: the shared run).
        let plain = PeopleFixture.records
        let refused = sightline("people", files[0], plain)
        XCTAssertEqual(refused.status, 65)
        XCTAssertTrue(refused.stderr.contains(plain) && refused.stderr.contains("--embeddings"), refused.stderr)
    }
}
