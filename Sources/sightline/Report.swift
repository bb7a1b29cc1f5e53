import ArgumentParser
import Foundation
import Sightline

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one self-contained HTML page to look at a run: timeline, tracks, charts, and the audit.",
        discussion: """
            The page needs no server and no network: its script, style, data and pictures are inside \
            the file. Records are read one line at a time; runs longer than 10000 frames are drawn in \
            bins of consecutive frames. With --video, the best picture of every track is cut from the \
            video (as --thumbnails does); the video must be the one the records were made from (as \
            for render). With --truth, the run is audited as `sightline audit --per-frame` does and \
            the timeline marks misses, false positives and ID switches. The page is written under a \
            temporary name and renamed when complete. Exit codes: 65 malformed records or truth \
            (FILE:LINE), or records that do not match the video; 66 records, truth or video missing \
            or unreadable; 73 the page cannot be created; 74 writing it failed; 2 the video is \
            damaged (the page is written).
            """
    )

    @Argument(help: "The JSON Lines records of `sightline analyze` (or capture).")
    var records: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the page.", valueName: "report.html"))
    var output: String

    @Option(help: ArgumentHelp("The video the records were made from: pictures of every track for the tracks table.", valueName: "INPUT"))
    var video: String?

    @Option(help: ArgumentHelp("Ground truth (Sightline JSON Lines or MOTChallenge text): audit metrics and per-frame marks.", valueName: "TRUTH"))
    var truth: String?

    @Option(help: "With --truth: smallest IoU for a predicted box to count as a truth box.")
    var iou = 0.5

    @Option(help: "With --truth: pair frames by index or by time (as for audit).")
    var match: FrameMatching = .index

    @OptionGroup var progress: ProgressOptions

    @OptionGroup(title: "Input") var decoding: InputOptions

    func validate() throws {
        if output.isEmpty || output == "-" { throw ValidationError("-o must name a file (the page is renamed into place when complete).") }
        if !(iou > 0 && iou <= 1) { throw ValidationError("--iou must be in (0, 1], not \(iou).") }
    }

    func run() throws {
        let page = try ReportOutput(path: output)
        // The records are read once, from start to end: streamed into the collector (through the
        // replay with --video), which keeps them for the audit with --truth.
        let reader = try RecordStreamReader(path: records)
        let collector = ReportCollector(expectedFrames: reader.stream.expectedFrames)
        collector.keepsRecords = truth != nil
        var thumbnails: [Int: Data] = [:]
        var damage: DecodeDamage?
        if let video {
            VideoFileSource.showLibraryWarnings(decoding.verbose)
            let replay = RecordReplay(reader: reader, input: video)
            let (source, start) = try decoding.open(video, replaying: replay)
            let pictures = ThumbnailCollector()
            let line = ProgressLine(quiet: progress.quiet, totalFrames: ProgressLine.expectedFrames(source.info, start: start, duration: replay.duration))
            let summary = try Run(RunConfiguration(source: source, analysis: .replay(replay))).run(into: [line, pictures, collector])
            thumbnails = pictures.pictures
            if !summary.damage.isEmpty { damage = summary.damage }
        } else {
            let line = ProgressLine(quiet: progress.quiet, totalFrames: nil)
            while let item = try reader.next() {
                switch item {
                case .frame(let record):
                    collector.add(record)
                    if collector.frames % 1000 == 0 { line.update(frames: collector.frames, seconds: record.t) }
                case .track(let track): collector.add(track)
                }
            }
            line.finish()
            collector.finish()
        }

        var audit: AuditReport?
        if let truth {
            let predicted = try RecordFile(streamed: reader, frames: collector.keptFrames, tracks: collector.keptTracks)
            let truthFile = try RecordFile(auditInput: truth, truth: true)
            let options = AuditOptions(iou: iou, matching: match, perFrame: true)
            audit = try Auditor(options: options).audit(predicted: predicted, truth: truthFile)
        }
        let report = ReportPage(streamLine: reader.stream.line, summaryLine: reader.summaryLine, recordsName: records, videoName: video,
                                truthName: truth, collector: collector, thumbnails: thumbnails, audit: audit, people: reader.identities)
        try page.commit(report.html())
        if let damage, let video { throw SightlineError.inputDamaged(path: video, reason: "\(damage) (\(collector.frames) frames read)") }
    }
}

/// As the sink of a replay run (--video), the collector takes the frames and tracks as they come.
extension ReportCollector: FrameSink {
    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws { add(record) }
    public func tracksEnded(_ tracks: [TrackRecord]) throws { tracks.forEach(add) }
    public func finish(_ summary: SummaryRecord) throws { finish() }
}
