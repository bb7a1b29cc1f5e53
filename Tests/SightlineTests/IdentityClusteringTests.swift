import XCTest
@testable import Sightline
@testable import SightlineAnalysis

/// Linking embeds a face only when a link compares it, and links exactly as embedding every
/// sample at once would (synthetic embeddings: no model).
final class IdentityClusteringTests: XCTestCase {
    /// A face track of one person, in frames `frames`.
    struct Track { var id: Int; var person: Int; var frames: ClosedRange<Int> }

    /// What a run gives: the frame records' identities, the identity records, and how many faces
    /// were embedded.
    struct Outcome: Equatable {
        var identities: [[Int?]] = []
        var people: [String] = []
        var embedded = 0
    }

    /// Each person's direction, and each sample's embedding: its person's direction plus noise
    /// (same person about 0.8 apart in cosine, two people about 0).
    static func embedding(person: Int, sample: Int) -> FaceEmbedding {
        var generator = SplitMix(seed: UInt64(person))
        var noise = SplitMix(seed: UInt64(1000 + sample))
        return FaceEmbedding((0..<128).map { _ in Float(generator.normal() + 0.5 * noise.normal()) })!
    }

    /// Runs the tracks through the clustering: each track sampled on its first frame and 5 frames
    /// later, embedded at once (`lazily` false, as merge does) or aligned and embedded on demand.
    func run(_ tracks: [Track], lazily: Bool, embeddings: Bool = false) -> Outcome {
        var outcome = Outcome()
        var keys: [Int: FaceEmbedding] = [:]
        let clustering = IdentityClustering(threshold: IdentityOptions.defaultThreshold, samples: 3, embed: lazily ? { faces in
            outcome.embedded += faces.count
            return faces.map { face in keys[face.pixels.withUnsafeBytes { $0.load(as: Int.self) }] }
        } : nil)
        let last = tracks.map(\.frames.upperBound).max()!
        var sampleNumber = 0
        for index in 0...last {
            let alive = tracks.filter { $0.frames.contains(index) }
            var record = FrameRecord(index: index, pts: Int64(index), t: Double(index) / 30, faceStatus: .ok, codeStatus: .off,
                                     faces: alive.map { FaceObservation(box: Box(x: 0, y: 0, w: 80, h: 80), score: 0.9, track: $0.id, source: .detected) },
                                     codes: [])
            let samples = alive.filter { [0, 5].contains(index - $0.frames.lowerBound) }.map { track -> LinkSample in
                sampleNumber += 1
                let embedding = Self.embedding(person: track.person, sample: sampleNumber)
                keys[sampleNumber] = embedding
                let face: LinkSample.Face = lazily ? .aligned(AlignedFace(pixels: withUnsafeBytes(of: sampleNumber) { Array($0) }))
                                                   : .embedded(embedding)
                return LinkSample(track: track.id, frame: index, score: 0.9 - Double(index - track.frames.lowerBound) / 100,
                                  box: Box(x: 0, y: 0, w: 80, h: 80), face: face)
            }
            clustering.process(&record, samples: samples)
            outcome.identities.append(record.faces.map(\.identity))
            var ended = tracks.filter { $0.frames.upperBound == index }.map { track in
                TrackRecordBuilder(id: track.id, kind: .face, box: Box(x: 0, y: 0, w: 80, h: 80), frame: record).finished
            }
            clustering.tracksEnded(&ended)
        }
        outcome.people = clustering.finish(frameDuration: 1.0 / 30, embeddings: embeddings).map { $0.json.serialized() }
        return outcome
    }

    func testACrowdThatStaysTogetherNeedsNoEmbedding() {
        let crowd = (1...40).map { Track(id: $0, person: $0, frames: 0...299) }
        let lazy = run(crowd, lazily: true)
        XCTAssertEqual(lazy.embedded, 0)
        XCTAssertEqual(lazy.people.count, 40)
        var eager = run(crowd, lazily: false)
        eager.embedded = 0
        XCTAssertEqual(lazy, eager)
    }

    func testAPersonWhoComesBackIsEmbeddedAndLinked() {
        let tracks = [Track(id: 1, person: 1, frames: 0...40), Track(id: 2, person: 2, frames: 0...200),
                      Track(id: 3, person: 1, frames: 100...200), Track(id: 4, person: 3, frames: 120...200)]
        let lazy = run(tracks, lazily: true)
        // Track 3 is compared with person 1 (track 1's two samples and its own first one). Track 2
        // is in the picture with every other track, and track 4 with tracks 2 and 3: no person it
        // could be, so no embedding.
        XCTAssertEqual(lazy.embedded, 3)
        XCTAssertEqual(lazy.identities.last, [2, 1, 3])
        var eager = run(tracks, lazily: false)
        eager.embedded = lazy.embedded
        XCTAssertEqual(lazy, eager)
    }

    func testLinksAsEmbeddingEverySampleAtOnce() {
        var generator = SplitMix(seed: 7)
        // 8 people coming and going over 900 frames; one person's tracks never overlap.
        var tracks: [Track] = []
        for person in 1...8 {
            var start = Int(generator.next() % 120)
            while start < 850 {
                let end = min(899, start + 20 + Int(generator.next() % 150))
                tracks.append(Track(id: tracks.count + 1, person: person, frames: start...end))
                start = end + 1 + Int(generator.next() % 200)
            }
        }
        for embeddings in [false, true] {
            let lazy = run(tracks, lazily: true, embeddings: embeddings)
            var eager = run(tracks, lazily: false, embeddings: embeddings)
            eager.embedded = lazy.embedded
            XCTAssertEqual(lazy, eager)
            XCTAssertLessThanOrEqual(lazy.embedded, 2 * tracks.count)
        }
        // The people are the true ones: one identity per person.
        let people = run(tracks, lazily: true).people.count
        XCTAssertEqual(people, 8)
    }

    func testWaitingFacesAreEmbeddedPastTheCap() {
        let crowd = (1...(IdentityClustering.maxAligned / 2 + 10)).map { Track(id: $0, person: $0, frames: 0...20) }
        let lazy = run(crowd, lazily: true)
        // Frame 0 leaves one face of each track waiting, frame 5 a second: past the cap, all embedded.
        XCTAssertEqual(lazy.embedded, 2 * crowd.count)
        var eager = run(crowd, lazily: false)
        eager.embedded = lazy.embedded
        XCTAssertEqual(lazy, eager)
    }
}

/// A small deterministic generator (SplitMix64) with normal deviates.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func normal() -> Double {
        let u = max(Double(next() >> 11) / Double(1 << 53), 1e-12), v = Double(next() >> 11) / Double(1 << 53)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
