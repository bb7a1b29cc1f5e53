import Foundation
import SightlineFrames
import SightlineRecords
import SightlineTracking

/// One shard's records, read whole: its stream record, its warm-up and frame records (each frame
/// kept as written, to be copied with new track ids), and its summary.
struct ShardRecords {
    var shard: Shard
    var path: String
    var streamLine: String
    /// What the stream record says of the shard's run.
    var source: String?
    var start: Double?
    var maxDuration: Double?
    /// The tracker's gap rule the shard ran with.
    var maxGap: Int
    var warmup: [FrameRecord] = []
    var frames: [(line: String, record: FrameRecord)] = []
    /// Cut records as written, by the index of the frame they start.
    var cuts: [Int: String] = [:]
    /// Discontinuity records as written, by the index of the frame they come before.
    var discontinuities: [Int: String] = [:]
    /// The identity settings the shard ran with (nil: identities off), the seconds per frame
    /// (identity records count them), and the faces it embedded: frame → shard track → sample.
    var identities: IdentityOptions?
    var frameDuration: Double
    var samples: [Int: [Int: IdentitySample]] = [:]
    var summary: SummaryRecord

    /// Reads a complete shard output; a truncated, interrupted or malformed one is refused.
    init(path: String, shard: Shard?) throws {
        func reject(_ reason: String) -> SightlineError { .shardRejected(path: path, reason: reason) }
        // Read as every record file is (RecordFile.contents: no leak on an empty file).
        guard let data = try? RecordFile.contents(of: path) else {
            throw SightlineError.inputUnreadable(path: path, reason: "shard output missing or unreadable")
        }
        guard !data.isEmpty else { throw reject("truncated: the file is empty") }
        guard data.last == UInt8(ascii: "\n") else { throw reject("truncated: the last line has no newline (the run did not finish)") }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()
        var stream: StreamHeader?
        var summary: SummaryRecord?
        var warmup: [FrameRecord] = []
        var frames: [(line: String, record: FrameRecord)] = []
        var cuts: [Int: String] = [:]
        var discontinuities: [Int: String] = [:]
        var samples: [Int: [Int: IdentitySample]] = [:]
        for (offset, bytes) in lines.enumerated() {
            let number = offset + 1
            guard let (fields, type) = try? RecordFile.record(bytes, line: number, isLast: false, path: path) else {
                throw reject("line \(number) is not a JSON record")
            }
            if summary != nil { throw reject("line \(number): a record after the summary") }
            switch type {
            case "stream":
                guard number == 1 else { throw reject("line \(number): a second stream record") }
                stream = StreamHeader(fields, line: String(decoding: bytes, as: UTF8.self))
            case "frame", "warmup":
                guard stream != nil else { throw reject("the first record is not a stream record (not written by sightline analyze?)") }
                let record: FrameRecord
                do { record = try FrameRecord(fields) } catch { throw reject("line \(number): \(error)") }
                if type == "warmup" { warmup.append(record) } else { frames.append((String(decoding: bytes, as: UTF8.self), record)) }
            case "cut":
                guard let index = fields.int("index") else { throw reject("line \(number): a cut record without an index") }
                cuts[index] = String(decoding: bytes, as: UTF8.self)
            case "discontinuity":
                guard let index = fields.int("index") else { throw reject("line \(number): a discontinuity record without an index") }
                discontinuities[index] = String(decoding: bytes, as: UTF8.self)
            case "sample":
                let sample: IdentitySample
                do { sample = try IdentitySample(fields) } catch { throw reject("line \(number): \(error)") }
                samples[sample.frame, default: [:]][sample.track] = sample
            case "summary": summary = SummaryRecord(fields)
            default: continue
            }
        }
        guard let stream else { throw reject("no stream record (not written by sightline analyze?)") }
        guard let summary else { throw reject("truncated: no summary record (the run did not finish)") }
        if summary.interrupted { throw reject("the run was interrupted (its summary says so)") }
        if summary.frames != frames.count {
            throw reject("truncated: \(frames.count) frame records, the summary counts \(summary.frames)")
        }
        for (a, b) in zip(frames, frames.dropFirst()) where b.record.index != a.record.index + 1 {
            throw reject("frame \(b.record.index) follows frame \(a.record.index) (frames missing or out of order)")
        }
        self.shard = shard ?? Shard(input: "", number: 0, count: 0, start: 0, duration: nil, warmup: 0, output: path, merged: "")
        self.path = path
        streamLine = stream.line
        source = stream.source
        start = stream.start
        maxDuration = stream.maxDuration
        maxGap = stream.trackingMaxGap ?? TrackerOptions().maxGap
        do { identities = try stream.identities() } catch { throw reject("line 1: \(error)") }
        // As a run counts it: from the stream's frame rate.
        if let rate = stream.frameRate, rate.num > 0 { frameDuration = Double(rate.den) / Double(rate.num) } else { frameDuration = 0 }
        self.samples = samples
        self.warmup = warmup
        self.frames = frames
        self.cuts = cuts
        self.discontinuities = discontinuities
        self.summary = summary
    }

    /// The stream record without what differs between shards of one input (their span).
    var sharedStreamLine: String {
        streamLine.replacingOccurrences(of: #","(start|max_duration|warmup)":-?[0-9.eE+-]+"#, with: "", options: .regularExpression)
    }
}

/// Makes one timeline of the shards of one input (`sightline merge`): one stream record, the
/// frame records in order as written with the cut records before them, track ids joined across
/// shard boundaries and renumbered by first appearance, track records and the summary computed
/// again. With identities, the whole run's linking is replayed over the merged tracks from the
/// faces the shards embedded (their `sample` records, left out of the merged file): faces and
/// face tracks get the whole run's `identity`, and the identity records are written again.
public struct ShardMerger {
    /// Two boxes of one face in the frames both shards saw overlap at least this much.
    public static let faceJoinIoU = 0.5

    public init() {}

    /// The shard outputs `paths` (of the plan's `shards` of one input, in plan order) merged
    /// into `output`. Refuses shards that are missing, overlapping, of another file, truncated.
    public func merge(input: String, shards: [Shard], paths: [String: String], output: String) throws -> SummaryRecord {
        var records: [ShardRecords] = []
        for shard in shards {
            guard let path = paths[shard.output] else {
                throw SightlineError.inputUnreadable(path: shard.output, reason: "shard \(shard.number) of \(input) (\(span(shard))) missing: no output given for it")
            }
            let shardRecords = try ShardRecords(path: path, shard: shard)
            try check(shardRecords, input: input)
            records.append(shardRecords)
        }
        // Every shard was made with the same options from the same stream.
        if let first = records.first {
            for other in records.dropFirst() where (other.identities == nil) != (first.identities == nil) {
                throw SightlineError.shardRejected(path: other.path, reason: "written \(other.identities == nil ? "without" : "with") --identities on, but \(first.path) \(first.identities == nil ? "without" : "with"): run every shard with the same options")
            }
            let shared = first.sharedStreamLine
            for other in records.dropFirst() where other.sharedStreamLine != shared {
                throw SightlineError.shardRejected(path: other.path, reason: "its stream record differs from \(first.path)'s (another file version or other analyze options)")
            }
        }
        // Frames follow on without gap or overlap (a gap only between the spans of a refine plan).
        var previous: (path: String, last: FrameRecord, span: Int?)?
        for r in records {
            if let first = r.frames.first {
                if let previous {
                    if first.record.index <= previous.last.index {
                        throw SightlineError.shardRejected(path: r.path, reason: String(format: "overlaps %@: frame %d (t=%.6f s) is in both", previous.path, first.record.index, first.record.t))
                    }
                    if first.record.index != previous.last.index + 1, r.shard.span == nil || r.shard.span == previous.span {
                        throw SightlineError.shardRejected(path: r.path, reason: String(format: "gap after %@: frames %d to %d (t=%.6f to %.6f s) are in no shard", previous.path, previous.last.index + 1, first.record.index - 1, previous.last.t, first.record.t))
                    }
                }
                previous = (r.path, r.frames.last!.record, r.shard.span)
            }
        }
        return try write(records, to: output)
    }

    /// `line` with the region-searched objects (those with a `source`) of its top-level array
    /// `array` put in order of their leading `"track"` id (stably), after the detected ones, which
    /// keep the reader's order (a code missed in its region makes the next frame's codes a whole-
    /// frame search); every object's text is kept as it is.
    static func sortedByTrack(_ line: String, array: String) -> String {
        let bytes = Array(line.utf8)
        let key = Array("\"\(array)\":[".utf8)
        guard let open = (0...(bytes.count - key.count)).first(where: { bytes[$0..<($0 + key.count)].elementsEqual(key) }) else { return line }
        var objects: [ArraySlice<UInt8>] = []
        var depth = 0, inString = false, escaped = false, begin = 0
        var i = open + key.count
        while i < bytes.count {
            let c = bytes[i]
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                if depth == 0 { begin = i }
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                if depth == 0 { break }   // the array's own closing bracket
                depth -= 1
                if depth == 0 { objects.append(bytes[begin...i]) }
            }
            i += 1
        }
        guard objects.count > 1 else { return line }
        func id(_ object: ArraySlice<UInt8>) -> Int {
            let text = String(decoding: object, as: UTF8.self)
            guard text.hasPrefix("{\"track\":") else { return Int.max }
            return Int(text.dropFirst(9).prefix { $0.isNumber }) ?? Int.max
        }
        let source = Array("\"source\":\"".utf8)
        func searched(_ object: ArraySlice<UInt8>) -> Bool {
            object.indices.dropLast(source.count - 1).contains { object[$0..<($0 + source.count)].elementsEqual(source) }
        }
        // Each object's id read once, not in every comparison; detected objects sort first, as read.
        let sorted = objects.enumerated().map { (key: searched($0.element) ? id($0.element) : Int.min, offset: $0.offset, object: $0.element) }
            .sorted { ($0.key, $0.offset) < ($1.key, $1.offset) }.map(\.object)
        var result = Array(bytes[..<(open + key.count)])
        for (n, object) in sorted.enumerated() {
            if n > 0 { result.append(UInt8(ascii: ",")) }
            result += object
        }
        result += bytes[i...]
        return String(decoding: result, as: UTF8.self)
    }

    private func span(_ shard: Shard) -> String {
        shard.duration.map { String(format: "%.6f–%.6f s", shard.start, shard.start + $0) } ?? String(format: "from %.6f s", shard.start)
    }

    /// A shard output must be the planned run of its shard: same input, same span.
    private func check(_ r: ShardRecords, input: String) throws {
        let shard = r.shard
        guard r.source == input else {
            throw SightlineError.shardRejected(path: r.path, reason: "a shard of \(r.source ?? "an unnamed source"), not of \(input)")
        }
        let start = r.start ?? 0
        let sameDuration = (r.maxDuration == nil && shard.duration == nil)
            || (r.maxDuration.map { d in shard.duration.map { abs($0 - d) < 1e-6 } ?? false } ?? false)
        guard abs(start - shard.start) < 1e-6, sameDuration else {
            let given = r.maxDuration.map { String(format: "%.6f–%.6f s", start, start + $0) } ?? String(format: "from %.6f s", start)
            throw SightlineError.shardRejected(path: r.path, reason: "covers \(given), but shard \(shard.number) of \(input) covers \(span(shard)) (overlapping or misplaced shard)")
        }
    }

    /// What one observation of an emitted frame is, for joining warm-up tracks to it.
    private struct Seen {
        var kind: TrackKind
        var union: Int
        var box: Box
        var code: String?
    }

    private func write(_ shards: [ShardRecords], to output: String) throws -> SummaryRecord {
        // Union ids: one per track of the merged timeline, before renumbering.
        var nextUnion = 0
        var unionOf: [[Int: Int]] = []
        var emitted: [Int: [Seen]] = [:]   // frame index → what earlier shards wrote there
        func codeKey(_ c: CodeObservation) -> String { c.symbology.rawValue + "\u{0}" + c.bytes.map { String($0) }.joined(separator: ",") }
        for r in shards {
            var map: [Int: Int] = [:]
            var claimed = Set<Int>()
            // Join: the latest warm-up frames first, each local track to the earlier shard's
            // track with the most overlap on the same frame (codes: the same payload too).
            for w in r.warmup.reversed() {
                guard let seen = emitted[w.index] else { continue }
                for face in w.faces {
                    guard let local = face.track, map[local] == nil else { continue }
                    let best = seen.filter { $0.kind == .face && !claimed.contains($0.union) }
                        .map { ($0.union, $0.box.iou(face.box)) }.max { $0.1 < $1.1 }
                    if let best, best.1 >= Self.faceJoinIoU { map[local] = best.0; claimed.insert(best.0) }
                }
                for code in w.codes {
                    guard let local = code.track, map[local] == nil else { continue }
                    let key = codeKey(code)
                    let best = seen.filter { $0.kind == .code && $0.code == key && !claimed.contains($0.union) }
                        .map { ($0.union, $0.box.iou(code.box)) }.max { $0.1 < $1.1 }
                    if let best, best.1 > 0 { map[local] = best.0; claimed.insert(best.0) }
                }
            }
            for (_, frame) in r.frames {
                var seen: [Seen] = []
                for face in frame.faces {
                    guard let local = face.track else { continue }
                    if map[local] == nil { map[local] = nextUnion; nextUnion += 1 }
                    seen.append(Seen(kind: .face, union: map[local]!, box: face.box))
                }
                for code in frame.codes {
                    guard let local = code.track else { continue }
                    if map[local] == nil { map[local] = nextUnion; nextUnion += 1 }
                    seen.append(Seen(kind: .code, union: map[local]!, box: code.box, code: codeKey(code)))
                }
                emitted[frame.index] = seen
            }
            unionOf.append(map)
        }

        // Ids by first appearance, as one run gives them (faces before codes within a frame).
        var idOf: [Int: Int] = [:]
        for (k, r) in shards.enumerated() {
            for (_, frame) in r.frames {
                for local in frame.faces.compactMap(\.track) + frame.codes.compactMap(\.track) {
                    let union = unionOf[k][local]!
                    if idOf[union] == nil { idOf[union] = idOf.count + 1 }
                }
            }
        }

        let gap = shards.first?.maxGap ?? TrackerOptions().maxGap
        // A merge that fails half way leaves no file behind.
        let writer = try JSONLinesWriter(path: output, atomically: true)
        try writer.write(line: shards.first?.sharedStreamLine ?? "")
        var tracks = TrackBook()
        var summary = SummaryRecord()
        var people = shards.first?.identities.map(PeopleReplay.init)
        // Track records as one run writes them: with the identity the track was linked to.
        func write(ended: [TrackRecord]) throws {
            var ended = ended
            people?.clustering.tracksEnded(&ended)
            for track in ended { try writer.write(track.json) }
        }
        // A face's track id and the identity written after it, if any.
        let pattern = try NSRegularExpression(pattern: #"\{"track":([0-9]+)(,"identity":[0-9]+)?"#)
        for (k, r) in shards.enumerated() {
            // No track crosses the gap between two spans of a refine plan.
            if k > 0, r.shard.span != shards[k - 1].shard.span { try write(ended: tracks.finish()) }
            // This shard's track ids to the merged ones.
            let finalID = unionOf[k].compactMapValues { idOf[$0] }
            // One to one (a merged track claims one track of each shard), so it turns round.
            let localID = people == nil ? [:] : Dictionary(uniqueKeysWithValues: finalID.map { ($1, $0) })
            for (line, frame) in r.frames {
                // A clock jump or size change ends every track before its frame, as in one run.
                if let discontinuity = r.discontinuities[frame.index] {
                    try write(ended: tracks.finish())
                    try writer.write(line: discontinuity)
                    summary.discontinuities += 1
                }
                // A cut ends every track before its frame, as in one run.
                if let cut = r.cuts[frame.index] {
                    try write(ended: tracks.finish())
                    try writer.write(line: cut)
                }
                // A track id the parsed frame does not hold (under a key the reader skips).
                func unknown(_ local: Substring) -> Error {
                    SightlineError.shardRejected(path: r.path, reason: "frame \(frame.index): track \(local) is on no face or code of the frame")
                }
                var renumbered = frame
                for i in renumbered.faces.indices { renumbered.faces[i].track = renumbered.faces[i].track.map { finalID[$0]! } }
                for i in renumbered.codes.indices { renumbered.codes[i].track = renumbered.codes[i].track.map { finalID[$0]! } }
                try people?.link(&renumbered, shard: r, localID: localID)
                let identityOf = Dictionary(renumbered.faces.compactMap { f in f.track.map { ($0, f.identity) } }) { a, _ in a }
                // Renumber the track ids in the line as written (and set the faces' identities),
                // leaving every other byte alone.
                var out = ""
                var last = line.startIndex
                for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    let whole = Range(match.range, in: line)!, digits = Range(match.range(at: 1), in: line)!
                    out += line[last..<whole.lowerBound]
                    guard let local = Int(line[digits]), let id = finalID[local] else { throw unknown(line[digits]) }
                    out += "{\"track\":\(id)"
                    if let identity = identityOf[id] ?? nil { out += ",\"identity\":\(identity)" }
                    last = whole.upperBound
                }
                out += line[last...]
                // Region-searched objects come in order of their (final) id, as one run writes them:
                // on frames between detections, and on detection frames (small faces followed
                // between their tile's turns, codes read in their regions).
                if frame.faces.contains(where: { $0.source != .detected }) { out = Self.sortedByTrack(out, array: "faces") }
                if frame.codes.contains(where: { $0.source != .detected }) { out = Self.sortedByTrack(out, array: "codes") }
                try writer.write(line: out)
                summary.add(renumbered)
                tracks.observe(renumbered)
                // A track ends after max_gap frames unseen, as in one run.
                try write(ended: tracks.ending(after: frame.index, gap: gap))
            }
        }
        try write(ended: tracks.finish())
        if let people, let first = shards.first {
            for person in people.clustering.finish(frameDuration: first.frameDuration, embeddings: people.options.writeEmbeddings) {
                try writer.write(person.json)
            }
        }
        summary.tracks = tracks.written
        for r in shards { summary.addRunCounts(of: r.summary) }
        try writer.write(summary.json)
        try writer.commit()
        return summary
    }
}

/// The whole run's identity linking, replayed on the merged frames: the faces it embeds are due
/// again (`SampleSchedule` decides by stream position) and their samples come from the shard
/// that owns the frame.
struct PeopleReplay {
    let options: IdentityOptions
    private var schedule: SampleSchedule
    let clustering: IdentityClustering

    init(options: IdentityOptions) {
        self.options = options
        schedule = SampleSchedule(options: options)
        clustering = IdentityClustering(threshold: options.threshold, samples: options.samples)
    }

    /// Links the merged frame `frame` (track ids already merged; `localID`: the merged ids to the
    /// shard's) and sets its faces' identities.
    mutating func link(_ frame: inout FrameRecord, shard: ShardRecords, localID: [Int: Int]) throws {
        // The whole run's order: region-searched faces come in track order.
        if frame.faceStatus == .refined {
            frame.faces = frame.faces.enumerated().sorted { ($0.element.track ?? .max, $0.offset) < ($1.element.track ?? .max, $1.offset) }.map(\.element)
        }
        let samples = try schedule.due(frame).map { i -> IdentitySample in
            let track = frame.faces[i].track!
            guard let local = localID[track], var sample = shard.samples[frame.index]?[local] else {
                throw SightlineError.shardRejected(path: shard.path, reason: "frame \(frame.index): no identity sample of its face track \(localID[track] ?? track) (shard runs write them with --identities on and --warmup: run the shards as planned)")
            }
            sample.track = track
            return sample
        }
        clustering.process(&frame, samples: samples.map(\.link))
    }
}
