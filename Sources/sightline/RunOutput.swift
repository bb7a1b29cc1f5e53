import Foundation
import Sightline

/// The ordered end of an `analyze` or `capture` run, the same for files and cameras: track ids,
/// the records, the rendered video and thumbnails, progress, and the summary.
final class RunOutput {
    private let tracking: TrackingStage
    private let writer: JSONLinesWriter
    /// nil once it failed: a failing output never costs the others theirs.
    private var renderer: OverlayRenderer?
    private var thumbnails: ThumbnailCollector?
    /// The records could not be written any more (closed pipe, disk full).
    private var recordsFailed = false
    /// The first output that failed, thrown once everything else is finished.
    private var failure: Error?
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

    /// Frames before this time (seconds) are a shard's warm-up: tracked, written as `warmup`
    /// records only, and left out of everything else (tracks ending there too).
    var warmupEnds: Double?

    /// One frame, in order, as the pipeline hands it out. An output that fails is closed with
    /// what it has and left out from then on; the run stops only when no output is left.
    func take(_ analyzed: FrameRecord, frame: VideoFrame) throws {
        let (record, ended) = tracking.process(analyzed, frame: frame)
        if let warmupEnds, record.t < warmupEnds - 1e-9 {
            writeRecord(record.warmupJSON)
            if recordsFailed, let failure { throw failure }
            return
        }
        writeRecord(record.json)
        // Drawn and pictured as written, as `render` from the records will.
        let drawn = renderer != nil || thumbnails != nil ? record.written : record
        let dropped = record.faceStatus == .dropped || record.codeStatus == .dropped
        if !dropped { lastAnalyzed = drawn }
        if let renderer, rendering() {
            do { try renderer.render(dropped ? lastAnalyzed ?? drawn : drawn, on: frame) } catch { renderFailed(error) }
        }
        do { try thumbnails?.observe(drawn, frame: frame) } catch { thumbnailsFailed(error) }
        summary.add(record)
        end(ended)
        progress.update(frames: summary.frames, seconds: record.t, note: progressNote(record))
        if recordsFailed && renderer == nil && thumbnails == nil, let failure { throw failure }
    }

    /// Closes the video, the tracks still live and the thumbnails, then writes the summary
    /// (`amend` adds what only the caller knows). Throws the first output failure, if any, after
    /// the summary is written.
    func finish(_ result: AnalysisPipeline.Result, timing: Bool, amend: (inout SummaryRecord) -> Void = { _ in }) throws {
        progress.finish()
        if let renderer {
            do { try renderer.finish() } catch { renderFailed(error) }
        }
        end(tracking.finish())
        if let thumbnails {
            do { try thumbnails.finish() } catch { thumbnailsFailed(error) }
        }
        summary.analyzerErrors = result.analyzerErrors.count + tracking.errors
        summary.damage = result.damage
        summary.interrupted = result.interrupted
        if timing { summary.wallSeconds = (ContinuousClock.now - started).seconds }
        amend(&summary)
        writeRecord(summary.json)
        if let failure { throw failure }
    }

    private func writeRecord(_ record: JSON) {
        guard !recordsFailed else { return }
        do { try writer.write(record) } catch { recordsFailed = true; failed(error) }
    }

    /// The video keeps what was written: the encoder is drained and the file closed.
    private func renderFailed(_ error: Error) {
        let renderer = self.renderer
        self.renderer = nil
        failed(error)
        try? renderer?.finish()
    }

    private func thumbnailsFailed(_ error: Error) {
        thumbnails = nil
        failed(error)
    }

    private func failed(_ error: Error) {
        if failure == nil { failure = error }
        summary.outputErrors.append("\(error)")
    }

    private func end(_ tracks: [TrackRecord]) {
        for track in tracks {
            writeRecord(track.json)
            do { try thumbnails?.trackEnded(track.id) } catch { thumbnailsFailed(error) }
        }
        summary.tracks += tracks.count
    }
}
