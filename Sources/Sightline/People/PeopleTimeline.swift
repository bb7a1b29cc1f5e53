import Foundation
import SightlineFrames
import SightlineRecords
import SightlineTracking

/// The people of one or more record files (`sightline people`): each file's identity records,
/// and across files, identities linked by their mean embeddings (written with `--embeddings`).
public struct PeopleTimeline {
    /// One identity of one file: a person's appearance there.
    public struct Appearance: Sendable {
        public var file: String
        public var identity: Int
        public var tracks: [Int]
        /// Each track's first and last time, in track order.
        public var spans: [(first: Double, last: Double)] = []
        public var firstT: Double
        public var lastT: Double
        public var seconds: Double
        public var embedding: FaceEmbedding?
    }
    /// A person: appearances in file order, then by time.
    public struct Person: Sendable {
        public var appearances: [Appearance]
        public var seconds: Double { appearances.reduce(0) { $0 + $1.seconds } }
    }

    public private(set) var people: [Person] = []

    /// Reads the identity records of `files`. Several files are linked into people by cosine
    /// similarity of the mean embeddings ≥ `threshold` (two identities of one file are never
    /// one person); they must have been written with `--embeddings`.
    public init(files: [String], threshold: Double = IdentityOptions.defaultThreshold) throws {
        var byFile: [[Appearance]] = []
        for path in files {
            let data = try RecordFile.contents(of: path)
            var found: [Appearance] = []
            var spans: [Int: (first: Double, last: Double)] = [:]
            var sawStream = false
            for (offset, bytes) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                guard let (fields, type) = try RecordFile.record(bytes, line: offset + 1, isLast: false, path: path) else { continue }
                if type == "stream" { sawStream = true }
                if type == "track", let id = fields.int("id"), let first = fields.double("first_t"), let last = fields.double("last_t") {
                    spans[id] = (first, last)
                }
                guard type == "identity" else { continue }
                func fail(_ reason: String) -> RecordFileError { RecordFileError(path: path, line: offset + 1, reason: reason) }
                guard let id = fields.int("id"), let tracks = fields.ints("tracks"), let first = fields.double("first_t"),
                      let last = fields.double("last_t"), let seconds = fields.double("seconds") else {
                    throw fail("identity record without id, tracks, first_t, last_t or seconds")
                }
                var embedding: FaceEmbedding?
                if fields.contains("embedding") {
                    guard let numbers = fields.doubles("embedding"), numbers.count == 128, let e = FaceEmbedding(numbers.map { Float($0) }) else {
                        throw fail("identity embedding is not 128 numbers")
                    }
                    embedding = e
                }
                found.append(Appearance(file: path, identity: id, tracks: tracks, firstT: first, lastT: last,
                                        seconds: seconds, embedding: embedding))
            }
            for i in found.indices { found[i].spans = found[i].tracks.compactMap { spans[$0] } }
            guard sawStream else { throw RecordFileError(path: path, line: 1, reason: "no stream record (not written by sightline analyze?)") }
            if files.count > 1, found.contains(where: { $0.embedding == nil }) {
                throw RecordFileError(path: path, line: 0, reason: "its identity records have no embeddings: linking people across files needs records written with --identities on --embeddings")
            }
            byFile.append(found)
        }
        // Greedy, in file and identity order: deterministic.
        // Two identities of one file are never one person: a person who has an appearance from
        // this file is not a candidate.
        for found in byFile {
            for appearance in found {
                var best: (person: Int, similarity: Double)?
                if files.count > 1, let embedding = appearance.embedding {
                    for (k, person) in people.enumerated() where !person.appearances.contains(where: { $0.file == appearance.file }) {
                        guard let mean = FaceEmbedding.mean(person.appearances.compactMap(\.embedding)) else { continue }
                        let similarity = mean.cosine(embedding)
                        if similarity >= threshold, similarity > (best?.similarity ?? -2) { best = (k, similarity) }
                    }
                }
                if let best {
                    people[best.person].appearances.append(appearance)
                } else {
                    people.append(Person(appearances: [appearance]))
                }
            }
        }
    }

    /// One block per person: the time on screen, then each appearance (file, identity, tracks, span).
    public var text: String {
        var out = ""
        for (k, person) in people.enumerated() {
            out += String(format: "person %d: %.3f s on screen in %d appearance%@\n", k + 1, person.seconds, person.appearances.count,
                          person.appearances.count == 1 ? "" : "s")
            for a in person.appearances {
                out += String(format: "  %@  identity %d  %.3f–%.3f s  (%.3f s)\n", a.file, a.identity, a.firstT, a.lastT, a.seconds)
                for (track, span) in zip(a.tracks, a.spans) {
                    out += String(format: "    track %d  %.3f–%.3f s\n", track, span.first, span.last)
                }
            }
        }
        return out
    }
}
