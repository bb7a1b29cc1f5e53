import Foundation
import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// `sightline scan`: the key frames of many files through the detectors, into one index of
/// sampled frames, spans and totals per file. A file that cannot be read gets its line in the
/// index and the others go on.
///
/// Files are read one after the other; a file's sampled frames are analyzed on
/// `ScanOptions.threads` threads, each with detectors of its own, and written in presentation
/// order, so the index is the same bytes for any thread count.
public final class ArchiveScanner: Sendable {
    public let options: ScanOptions
    /// The face detector, resolved once for every worker.
    public let faces: ResolvedFaceDetector

    /// Resolves the face detector: one that cannot be set up fails before anything is read.
    public init(_ options: ScanOptions) throws {
        var options = options
        options.threads = max(1, options.threads)
        self.options = options
        faces = try options.faces.resolve()
    }

    /// The index's first line: how it sampled.
    func header(files: Int) -> JSON {
        .object([("type", .string("scan")), ("schema", .int(1)), ("tool", .string("sightline \(sightlineVersion)")),
                 ("sampling", .object([("every", options.sampling.every.map { .fixed($0, digits: Precision.seconds) } ?? .null),
                                       ("min_spacing", options.sampling.every == nil
                                           ? .fixed(options.sampling.minimumSpacing, digits: Precision.seconds) : .null)])),
                 ("files", .int(Int64(files)))])
    }

    /// Scans `files` into `index` (a scan record, each file's lines in the order given, the
    /// summary) and returns the summary. `scanned` is called for each file in that order, right
    /// after its lines are written, with the number of files done.
    @discardableResult
    public func scan(_ files: [String], into index: JSONLinesWriter,
                     scanned: (ScannedFile, _ done: Int) -> Void = { _, _ in }) throws -> ScanSummary {
        let analyzers = try (0..<options.threads).map { _ in try FrameAnalyzer(faces: faces, codes: options.codes, workers: options.threads) }
        try index.write(header(files: files.count))
        var summary = ScanSummary()
        for (i, path) in files.enumerated() {
            let file = scanFile(path, analyzers: analyzers)
            for line in file.records(faces: faces, codes: options.codes) { try index.write(line) }
            summary.add(file)
            scanned(file, i + 1)
        }
        try index.write(summary.json)
        return summary
    }

    /// One file: its key frames as `options.sampling` picks them, each with the full face
    /// detection and code search. Frames are decoded here and analyzed on one thread per
    /// analyzer, a few at a time, their records kept in presentation order.
    func scanFile(_ path: String, analyzers: [FrameAnalyzer]) -> ScannedFile {
        var file = ScannedFile(source: path)
        let source: VideoFileSource
        do {
            source = try VideoFileSource(path: path, options: options.sourceOptions)
        } catch {
            file.failure = error as? SightlineError ?? .notMedia(path: path, reason: "\(error)")
            return file
        }
        file.info = source.info
        analyzers.first?.prepare(width: source.info.displayWidth, height: source.info.displayHeight)
        var samples: [FrameRecord] = []
        var batch: [VideoFrame] = []
        func analyzeBatch() {
            samples += inParallel(batch.count, lanes: analyzers.count) { i, lane in analyzers[lane].analyze(batch[i]) }
            batch.removeAll()
        }
        var stopped: Error?
        do {
            while let frame = try source.nextFrame() {
                batch.append(frame)
                if batch.count >= 2 * analyzers.count { analyzeBatch() }
            }
        } catch {
            stopped = error   // out of memory and the like: what was sampled stays
        }
        analyzeBatch()
        // Numbered once every packet is known: a frame shown before a key frame may come after it.
        for i in samples.indices { samples[i].index = source.streamPosition(ofPTS: samples[i].pts) }
        file.samples = samples
        file.spans = ScanSpan.spans(of: samples)
        file.frames = source.packetsRead
        file.keyFrames = source.keyPacketsRead
        file.damage = source.damage
        if let stopped { file.damage.readError = "\(stopped)" }
        return file
    }
}
