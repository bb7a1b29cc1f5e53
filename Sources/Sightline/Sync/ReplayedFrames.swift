import Synchronization
import SightlineFrames
import SightlineMedia

/// Saved records paired with the decoded frames they were made from (`render`, `report
/// --video`, `snapshot --records`): the run's second source of analyzed frames, beside the
/// detectors' `AnalysisPipeline`.
package final class ReplayedFrames: AnalyzedFrames, @unchecked Sendable {
    // @unchecked Sendable: only `stop` is called from other threads; it sets an atomic flag.
    private let source: FrameSource
    private let recorded: RecordedFrames
    private let stopRequested = Atomic(false)
    private var count = 0

    package init(source: FrameSource, recorded: RecordedFrames) {
        self.source = source
        self.recorded = recorded
    }

    package func next() throws -> AnalyzedFrame? {
        guard !stopRequested.load(ordering: .relaxed), let picture = try source.nextFrame() else { return nil }
        var analyzed = AnalyzedFrame(record: try recorded.record(for: picture), frame: picture)
        analyzed.endedTracks = recorded.takeEndedTracks()
        count += 1
        return analyzed
    }

    package func finish() throws -> AnalysisResult {
        var result = AnalysisResult()
        if !stopRequested.load(ordering: .relaxed) {
            try recorded.finish(framesDecoded: count)
            // Track records after the last frame record.
            result.endedTracks = recorded.takeEndedTracks()
        }
        result.frames = count
        result.damage = source.damage
        return result
    }

    package func stop() { stopRequested.store(true, ordering: .relaxed) }
    package func cancel() { stop() }
}
