import Foundation
import SightlineFrames
import SightlineMedia
import SightlineTracking
import Synchronization

/// One run: one loop over the analyzed frames in presentation order (from the detectors'
/// workers, or from saved records), each taken through cut → tracking (region search, ids) →
/// identities → sinks. The commands build a `RunConfiguration` and their sinks; everything in
/// between is here.
///
/// Sinks get every frame in presentation order. One that fails is closed with what it has and
/// left out; the run stops only when no output is left, and `run` throws the first failure after
/// the others are finished (the summary names it in `output_errors`).
public final class Run: @unchecked Sendable {
    // @unchecked Sendable: `stop` is the one method called from other threads; it only sets
    // atomic flags.
    public let configuration: RunConfiguration
    /// Face detection as resolved for this run (the model file found and hashed, the runtime
    /// loaded and its version known): what the stream record reports.
    public let faces: ResolvedFaceDetector?
    public let codes: CodeReaderOptions?
    /// The tracking settings, as the stream record reports them (nil without tracking).
    public let tracking: TrackingConfiguration?
    /// The frames' schedule: the configuration's, with the tiles of this source's frames.
    public let schedule: Schedule
    /// Where the analyzed frames come from: the detectors' pipeline, or saved records.
    private let frames: AnalyzedFrames
    private let trackingStage: TrackingStage?
    private let cutDetector: CutDetector?
    private let identityLinker: IdentityLinker?
    private let stopRequested = Atomic(false)
    /// The first analyzer error of the run, which the summary only counts.
    private var firstAnalyzerError: String?
    /// The run stopped because its cool-down was done (not interrupted).
    private var cooledDown = false
    /// A run with a cool-down: its track records are made from the frames it hands out, without
    /// the cool-down's (whose frames are not written).
    private var handedOut: TrackBook?

    /// Sets up the analyzers of every worker, so a detector that cannot load fails before any
    /// output is written.
    public init(_ configuration: RunConfiguration) throws {
        self.configuration = configuration
        switch configuration.analysis {
        case let .detect(resolved, codeOptions):
            self.faces = resolved
            let faces = configuration.source.isLive ? resolved.forLiveSource : resolved
            codes = codeOptions
            // Small faces are searched on tiles in turn where the whole-frame pass cannot see them.
            var schedule = configuration.schedule
            let info = configuration.source.info
            schedule.tiles = faces.options.tileGrid(width: info.displayWidth, height: info.displayHeight)?.count ?? 0
            self.schedule = schedule
            // A live frame that finds every worker busy is searched around the known objects, if
            // there is a tracking stage to search it (see `BackpressurePolicy.dropLateFrames`).
            let searchesBusyFrames = configuration.backpressure.dropsLateFrames && configuration.tracking != nil
            trackingStage = try configuration.tracking.map {
                try TrackingStage(tracker: $0, detectEvery: schedule.detectEvery, lanes: configuration.threads,
                                  faces: faces, codes: codeOptions, holdsFrames: configuration.lookBack, busyFrames: searchesBusyFrames)
            }
            // A live source starts streaming when the pipeline is made: its region search is made
            // ready before. A file's is made when a search first needs it: most files' faces are
            // all found whole, and its networks cost a short run about 0.35 s of CPU.
            if configuration.source.isLive { trackingStage?.prepareSearch() }
            frames = try AnalysisPipeline(source: configuration.source, faces: faces, codes: codeOptions,
                                          threads: configuration.threads, schedule: schedule,
                                          policy: configuration.backpressure, shotImages: configuration.cuts != nil,
                                          shared: configuration.sharedWorkers, searchesBusyFrames: searchesBusyFrames)
        case .replay(let recorded):
            faces = nil
            codes = nil
            schedule = configuration.schedule
            frames = ReplayedFrames(source: configuration.source, recorded: recorded)
            trackingStage = nil
        }
        tracking = trackingStage?.configuration
        // Saved records carry their cuts already (they are not replayed).
        if case .detect = configuration.analysis { cutDetector = configuration.cuts.map(CutDetector.init) } else { cutDetector = nil }
        // Identities need track ids and the five landmarks the DNN detectors give.
        if configuration.outputEnds != nil { handedOut = TrackBook() }
        if let options = configuration.identities, trackingStage != nil, faces?.model != nil {
            identityLinker = try IdentityLinker(options: options, lanes: configuration.threads, shard: configuration.warmupEnds != nil)
        } else {
            identityLinker = nil
        }
    }

    /// The run's analyzer errors (`summary`, the summary `run` returned) as one error naming
    /// `path`, or nil when there were none. `consequence` says what they cost the output.
    public func analysisFailure(_ summary: SummaryRecord, path: String, consequence: String = "") -> SightlineError? {
        guard summary.analyzerErrors > 0 else { return nil }
        let first = firstAnalyzerError.map { ", the first: \($0)" } ?? ""
        return .analysisFailed(path: path, reason: "\(summary.analyzerErrors) analyzer errors\(first)\(consequence)")
    }

    /// The identity settings, as the stream record reports them (nil: no identities).
    public var identities: IdentityOptions? { identityLinker?.options }

    /// The cut settings, as the stream record reports them (nil: no cut detection).
    public var cuts: CutOptions? { cutDetector?.options }

    /// Stops reading new frames; frames already read are still delivered. Safe from any thread.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
        frames.stop()
        configuration.source.interruptReading()
    }

    /// Runs to the end of the source (or `stop`, or the frame limit) and returns the summary the
    /// sinks were finished with. Sinks are finished in the order given: give the records last, so
    /// their summary counts the other outputs' failures.
    @discardableResult
    public func run(into sinks: [FrameSink]) throws -> SummaryRecord {
        let delivery = Delivery(sinks: sinks)
        let started = ContinuousClock.now
        var count = 0
        let result: AnalysisResult
        // The frames written (a span's warm-up and cool-down are analyzed, not written): only
        // their analyzer errors count, as the cool-down ends after a number of frames that varies.
        var written: ClosedRange<Int>?
        let info = configuration.source.info
        let streamSize = FrameSize(width: info.displayWidth, height: info.displayHeight)
        do {
            while var analyzed = try frames.next() {
                let picture = analyzed.frame
                if isOutput(analyzed.record) { written = (written?.lowerBound ?? analyzed.record.index)...analyzed.record.index }
                if picture.displaySize != streamSize { analyzed.record.frameSize = picture.displaySize }
                // A run that starts later compares its first frame with the one before, as the whole run.
                if let before = analyzed.shotBefore { cutDetector?.prime(before) }
                // A clock jump or a size change ends every track, as a cut does: no track spans
                // two pieces of the stream.
                if var discontinuity = picture.discontinuity {
                    (discontinuity.index, discontinuity.pts, discontinuity.t) = (analyzed.record.index, analyzed.record.pts, analyzed.record.t)
                    endEveryTrack(streamEnded: false, delivery)
                    cutDetector?.restart()
                    if isOutput(analyzed.record) { delivery.discontinuity(discontinuity) }
                }
                // A cut ends every track before its frame is tracked: no track spans two shots.
                if let cut = cutDetector?.next(analyzed.shot, frame: analyzed.record) {
                    endEveryTrack(streamEnded: false, delivery)
                    if isOutput(analyzed.record) { delivery.each { try $0.cut(cut) } }
                }
                // The tracking stage holds frames until what looking back may still find on them
                // is known; the frames it lets go are settled.
                let settled = trackingStage?.process(analyzed.record, frame: picture)
                    ?? [TrackingStage.Settled(record: analyzed.record, frame: picture, ended: [])]
                for frame in settled { deliver(frame, delivery) }
                delivery.end(analyzed.endedTracks)
                try delivery.checkOutputsLeft()
                count += 1
                if let limit = configuration.frameLimit, count >= limit { stop() }
                // Every frame of the span settled: the cool-down has done its work, and the frames
                // read after this one are not analyzed (so it always ends on the same frame).
                if let end = configuration.outputEnds, settled.contains(where: { $0.record.t >= end - 1e-6 }) {
                    cooledDown = true
                    configuration.source.interruptReading()
                    frames.cancel()
                    break
                }
            }
            result = try frames.finish()
        } catch {
            frames.cancel()
            // The frames read before the failure still reach the outputs, as without tracking.
            trackingStage?.finish().frames.forEach { deliver($0, delivery) }
            delivery.abandonAll()
            throw error
        }
        delivery.end(result.endedTracks)
        endEveryTrack(streamEnded: true, delivery)
        if let identityLinker {
            let rate = configuration.source.info.frameRate
            let people = identityLinker.finish(frameDuration: rate.num > 0 ? Double(rate.den) / Double(rate.num) : 0)
            delivery.each { try $0.identitiesFound(people) }
        }

        var summary = delivery.summary
        let errors = result.analyzerErrors.filter { written?.contains($0.frame) == true }
        summary.analyzerErrors = errors.count + (trackingStage?.errors ?? 0) + (identityLinker?.errors ?? 0)
        firstAnalyzerError = errors.first.map(String.init(describing:))
        summary.damage = result.damage
        summary.interrupted = stopRequested.load(ordering: .relaxed) && !cooledDown
            && !(configuration.frameLimit.map { count >= $0 } ?? false)
        summary.live = configuration.source.isLive
        summary.lostFrames = configuration.source.lostFrames
        summary.framesBeforeStart = configuration.source.framesBeforeStart
        if summary.live { summary.latency = delivery.latency }
        if configuration.timing {
            let elapsed = (ContinuousClock.now - started).components
            summary.wallSeconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
        }
        return try delivery.finish(summary)
    }

    /// A frame of a shard's warm-up: analyzed and tracked, not part of the output.
    private func isWarmup(_ record: FrameRecord) -> Bool {
        configuration.warmupEnds.map { record.t < $0 - 1e-6 } ?? false
    }

    /// The records of tracks that ended, as the frames handed out hold them (with a cool-down; a
    /// track seen on its frames only has none).
    private func handedOutRecords(_ ended: [TrackRecord]) -> [TrackRecord] {
        guard handedOut != nil else { return ended }
        return ended.compactMap { track in
            guard var record = handedOut?.end(track.id) else { return nil }
            record.identity = track.identity
            return record
        }
    }

    /// A frame of the cool-down: analyzed and tracked, not written at all.
    private func isCooldown(_ record: FrameRecord) -> Bool {
        configuration.outputEnds.map { record.t >= $0 - 1e-6 } ?? false
    }

    private func isOutput(_ record: FrameRecord) -> Bool { !isWarmup(record) && !isCooldown(record) }

    /// A settled frame gets its identities and goes to the sinks with the tracks that ended on it.
    private func deliver(_ settled: TrackingStage.Settled, _ delivery: Delivery) {
        if !isCooldown(settled.record) { handedOut?.observe(settled.record) }
        var (record, ended) = (settled.record, handedOutRecords(settled.ended))
        var samples: [IdentitySample] = []
        if let identityLinker {
            samples = identityLinker.process(&record, frame: settled.frame)
            identityLinker.tracksEnded(&ended)
        }
        if isCooldown(record) {
            delivery.end(ended)
        } else if isWarmup(record) {
            delivery.each { try $0.warmupFrame(record) }
        } else {
            delivery.frame(record, picture: settled.frame)
            // A shard run (one with a warm-up) writes its samples: merge links the shards'
            // tracks into people with them, as the whole run does.
            if configuration.warmupEnds != nil, !samples.isEmpty { delivery.each { try $0.identitySamples(samples) } }
            delivery.end(ended)
        }
    }

    /// Every held frame, then every live track ended: at a cut and at the end of the stream.
    private func endEveryTrack(streamEnded: Bool, _ delivery: Delivery) {
        guard let trackingStage else { return }
        let (held, finished) = trackingStage.finish()
        held.forEach { deliver($0, delivery) }
        var ended = handedOutRecords(finished)
        identityLinker?.tracksEnded(&ended, more: !streamEnded)
        delivery.end(ended)
    }
}

/// The sinks of a run still taking frames, the summary counted so far, and the first failure.
private final class Delivery {
    private var active: [FrameSink]
    private(set) var summary = SummaryRecord()
    /// Live sources: each frame's arrival to its record having gone to every sink.
    private(set) var latency = Latency()
    private var failure: Error?

    init(sinks: [FrameSink]) { active = sinks }

    /// Calls `body` on every active sink; one that throws is abandoned.
    func each(_ body: (FrameSink) throws -> Void) {
        var failed: [Int] = []
        for (i, sink) in active.enumerated() {
            do { try body(sink) } catch {
                failed.append(i)
                if failure == nil { failure = error }
                summary.outputErrors.append("\(error)")
                sink.abandon()
            }
        }
        for i in failed.reversed() { active.remove(at: i) }
    }

    func frame(_ record: FrameRecord, picture: VideoFrame) {
        each { try $0.frame(record, picture: picture) }
        summary.add(record)
        if let arrival = picture.arrival {
            let late = (ContinuousClock.now - arrival).components
            latency.add(milliseconds: Double(late.seconds) * 1000 + Double(late.attoseconds) * 1e-15)
        }
    }

    func discontinuity(_ record: DiscontinuityRecord) {
        each { try $0.discontinuity(record) }
        summary.discontinuities += 1
    }

    func end(_ tracks: [TrackRecord]) {
        guard !tracks.isEmpty else { return }
        each { try $0.tracksEnded(tracks) }
        summary.tracks += tracks.count
    }

    /// Stops the run (with the first failure) once no output is left.
    func checkOutputsLeft() throws {
        if let failure, !active.contains(where: \.isOutput) { throw failure }
    }

    func abandonAll() {
        active.forEach { $0.abandon() }
        active = []
    }

    /// Finishes the sinks in order, each with the failures of those before it; then throws the
    /// first failure, if any.
    func finish(_ counted: SummaryRecord) throws -> SummaryRecord {
        summary = counted
        for sink in active { sink.complete(&summary) }
        for sink in active {
            do { try sink.finish(summary) } catch {
                if failure == nil { failure = error }
                summary.outputErrors.append("\(error)")
                sink.abandon()
            }
        }
        if let failure { throw failure }
        return summary
    }
}
