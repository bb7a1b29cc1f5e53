import Foundation
import SightlineFrames
import SightlineRecords

/// The report: one HTML file with its own style, script and data (JSON in a script element),
/// thumbnails as PNG data URIs. Nothing is loaded from anywhere else; the page's Content Security
/// Policy forbids it.
public struct ReportPage {
    /// The records file's first line (the stream record) and its summary line, as written.
    public var streamLine: String
    public var summaryLine: String?
    public var recordsName: String
    public var videoName: String?
    public var truthName: String?
    public var collector: ReportCollector
    /// PNG bytes by track id.
    public var thumbnails: [Int: Data] = [:]
    public var audit: AuditReport?
    /// The identity records (`--identities on`): the People section; none, no section.
    public var people: [IdentityRecord] = []

    public init(streamLine: String, summaryLine: String?, recordsName: String, videoName: String?, truthName: String?,
                collector: ReportCollector, thumbnails: [Int: Data] = [:], audit: AuditReport? = nil, people: [IdentityRecord] = []) {
        self.streamLine = streamLine
        self.summaryLine = summaryLine
        self.recordsName = recordsName
        self.videoName = videoName
        self.truthName = truthName
        self.collector = collector
        self.thumbnails = thumbnails
        self.audit = audit
        self.people = people
    }

    /// The page's bytes.
    public func html() -> Data {
        let data = dataJSON()
        let title = htmlEscaped("Sightline report: " + ((videoName ?? recordsName) as NSString).lastPathComponent)
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<title>\(title)</title>\n<style>\n\(ReportTemplate.style)</style>\n</head>\n<body>\n"
        page += ReportTemplate.body
        page += "<script type=\"application/json\" id=\"report-data\">"
        page += data
        page += "</script>\n<script>\n\(ReportTemplate.script)</script>\n</body>\n</html>\n"
        return Data(page.utf8)
    }

    /// The data the script draws, as one JSON text safe inside a script element.
    func dataJSON() -> String {
        let c = collector
        func seconds(_ t: Double) -> JSON { .fixed(t, digits: Precision.seconds) }
        func ints(_ values: [Int]) -> JSON { .array(values.map { .int(Int64($0)) }) }
        let lanes = c.lanes
        var ids = Set(lanes.keys)
        ids.formUnion(c.tracks.keys)
        let tracks: [JSON] = ids.sorted().map { id in
            let lane = lanes[id], record = c.tracks[id]
            let kind = record?.kind ?? lane?.kind ?? .face
            var members: [(String, JSON)] = [
                ("id", .int(Int64(id))), ("kind", .string(kind.rawValue)),
                ("first_frame", .int(Int64(record?.firstFrame ?? lane?.firstFrame ?? 0))),
                ("last_frame", .int(Int64(record?.lastFrame ?? lane?.lastFrame ?? 0))),
                ("first_t", seconds(record?.firstT ?? lane?.firstT ?? 0)),
                ("last_t", seconds(record?.lastT ?? lane?.lastT ?? 0)),
                ("observed", record.map { .int(Int64($0.framesObserved)) } ?? .null),
                ("interpolated", record.map { .int(Int64($0.framesInterpolated)) } ?? .null),
                ("mean_score", record?.meanScore.map { .fixed($0, digits: Precision.score) } ?? .null),
                ("symbology", record?.symbology.map { .string($0.rawValue) } ?? .null),
                ("text", record?.text.map { .string($0) } ?? .null),
                ("best_frame", record.map { .int(Int64($0.bestFrame)) } ?? .null),
                ("runs", ints(lane?.runs ?? [])),
            ]
            // frame, t, x, y, w, h, score, state
            let digits = [0, Precision.seconds, Precision.pixels, Precision.pixels, Precision.pixels, Precision.pixels, Precision.score, 0]
            let samples = lane?.samples ?? []
            members.append(("samples", .array(samples.indices.map { i in
                let d = digits[i % 8]
                return d == 0 ? .int(Int64(samples[i])) : .fixed(samples[i], digits: d)
            })))
            return .object(members)
        }
        let scores = c.faceScores.keys.sorted().map { JSON.array([.fixed(Double($0) / 1000, digits: 3), .int(Int64(c.faceScores[$0]!))]) }
        let reads = c.codeReads.keys.sorted().map { ($0, JSON.int(Int64(c.codeReads[$0]!))) }
        let persons: [JSON] = people.map { person in
            // The person's picture: the thumbnail of the track holding the best frame.
            let pictured = person.tracks.first { id in c.tracks[id].map { $0.firstFrame <= person.bestFrame && person.bestFrame <= $0.lastFrame } ?? false }
            return .object([("id", .int(Int64(person.id))), ("tracks", ints(person.tracks)),
                            ("first_t", seconds(person.firstT)), ("last_t", seconds(person.lastT)),
                            ("frames", .int(Int64(person.frames))), ("seconds", seconds(person.seconds)),
                            ("best_frame", .int(Int64(person.bestFrame))), ("picture", pictured.map { .int(Int64($0)) } ?? .null)])
        }
        let thumbs = thumbnails.keys.sorted().map { ("\($0)", JSON.string("data:image/png;base64," + thumbnails[$0]!.base64EncodedString())) }
        let frames: JSON = .object([
            ("first", .int(Int64(c.firstIndex ?? 0))), ("count", .int(Int64(c.frames))), ("bin", .int(Int64(c.binWidth))),
            ("t", .array(c.binTimes.map(seconds))), ("n", ints(c.binFrames)), ("faces", ints(c.binFaces)),
            ("codes", ints(c.binCodes)),
        ])
        let head: JSON = .object([
            ("page", .int(1)), ("records", .string(recordsName)), ("video", videoName.map(JSON.string) ?? .null),
            ("truth", truthName.map(JSON.string) ?? .null), ("frames", frames), ("tracks", .array(tracks)),
            ("face_scores", .array(scores)), ("code_reads", .object(reads)), ("thumbnails", .object(thumbs)),
            ("audit", audit?.json ?? .null), ("people", .array(persons)),
        ])
        // The stream and summary lines go in as written (already JSON), before the closing brace.
        var text = head.serialized()
        text.removeLast()
        text += ",\"stream\":" + streamLine + ",\"summary\":" + (summaryLine ?? "null") + "}"
        // "<" only occurs inside strings: escaped, no text can close the script element.
        return text.replacingOccurrences(of: "<", with: "\\u003c")
    }

    private func htmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
