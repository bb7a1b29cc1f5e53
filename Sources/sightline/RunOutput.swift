import Foundation
import Sightline

/// The ordered end of an `analyze` or `capture` run, the same for files and cameras: track ids,
/// the records, the rendered video and thumbnails, progress, and the summary.
final class RunOutput {
    private let tracking: TrackingStage
    private let writer: JSONLinesWriter
    private let renderer: OverlayRenderer?
    private let thumbnails: ThumbnailCollector?
    private let progress: Progress
    private let started = ContinuousClock.now
    private(set) var summary = SummaryRecord()
    /// Whether frames go to the rendered video now (SIGUSR1 pauses a capture's recording).
    var rendering: () -> Bool = { true }
    /// More for the progress line, given the frame just written.
    var progressNote: (FrameRecord) -> String = { _ in "" }
    /// The last frame the analyzers saw: a dropped frame is drawn with its overlays, so they do
    /// not flicker in a recording.
    private var lastAnalyzed: FrameRecord?

    init(tracking: TrackingStage, writer: JSONLinesWriter, renderer: OverlayRenderer?, thumbnails: ThumbnailCollector?,
         progress: Progress) {
        self.tracking = tracking
        self.writer = writer
        self.renderer = renderer
        self.thumbnails = thumbnails
        self.progress = progress
    }

    /// One frame, in order, as the pipeline hands it out.
    func take(_ analyzed: FrameRecord, frame: VideoFrame) throws {
        let (record, ended) = tracking.process(analyzed, frame: frame)
        try writer.write(record.json)
        let dropped = record.faceStatus == .dropped || record.codeStatus == .dropped
        if !dropped { lastAnalyzed = record }
        if let renderer, rendering() { try renderer.render(dropped ? lastAnalyzed ?? record : record, on: frame) }
        try thumbnails?.observe(record, frame: frame)
        summary.add(record)
        try end(ended)
        progress.update(frames: record.index + 1, seconds: record.t, note: progressNote(record))
    }

    /// Closes the video, the tracks still live and the thumbnails, then writes the summary
    /// (`amend` adds what only the caller knows).
    func finish(_ result: AnalysisPipeline.Result, timing: Bool, amend: (inout SummaryRecord) -> Void = { _ in }) throws {
        progress.finish()
        try renderer?.finish()
        try end(tracking.finish())
        try thumbnails?.finish()
        summary.analyzerErrors = result.analyzerErrors.count + tracking.errors
        summary.damage = result.damage
        summary.interrupted = result.interrupted
        if timing { summary.wallSeconds = (ContinuousClock.now - started).seconds }
        amend(&summary)
        try writer.write(summary.json)
    }

    private func end(_ tracks: [TrackRecord]) throws {
        for track in tracks {
            try writer.write(track.json)
            try thumbnails?.trackEnded(track.id)
        }
        summary.tracks += tracks.count
    }
}
