import Foundation
import Synchronization
import SightlineFrames
import SightlineMedia

/// What the reading thread does when the analyzers are behind.
public enum BackpressurePolicy: Sendable {
    /// Wait for them (files: every frame is analyzed, memory stays bounded).
    case wait
    /// Live sources: a frame goes to a worker only if one is free now. One that finds every worker
    /// busy gets no full detection: the tracking stage searches it around the known objects (as
    /// between detections with a stride), or, with more frames than that in flight, it stays on
    /// the timeline with a `dropped` record. Reading never waits on analysis.
    case dropLateFrames
    /// Live sources that must analyze every frame: up to `backlog` frames wait for analysis;
    /// past that, reading waits (and a camera driver drops frames instead).
    case queue(backlog: Int)

    var dropsLateFrames: Bool {
        if case .dropLateFrames = self { return true }
        return false
    }
}

/// Frames with what was found in them, in presentation order, pulled one at a time by `Run`:
/// from the detectors (`AnalysisPipeline`) or from saved records (`ReplayedFrames`).
package protocol AnalyzedFrames: AnyObject {
    /// The next frame, waiting for it; nil at the end of the source or after `stop`.
    func next() throws -> AnalyzedFrame?
    /// After `next` gave nil: what reading and analysis counted.
    func finish() throws -> AnalysisResult
    /// Stops reading new frames; frames already read still come. Safe from any thread.
    func stop()
    /// The consumer gave up: stop at once and release every thread.
    func cancel()
}

/// What a run's reading and analysis counted.
public struct AnalysisResult: Sendable {
    public var frames = 0
    public var damage = DecodeDamage()
    /// One per analyzer failure on a frame (only the count is written to records).
    public var analyzerErrors: [AnalyzerError] = []
    /// Saved records only: tracks whose record comes after the last frame record.
    package var endedTracks: [TrackRecord] = []
}

/// Read → analyze in parallel → restore order.
///
/// A reading thread takes frames from the source and gives each its `FramePlan`; a pool of
/// workers, each with analyzers of its own, turns frames into records; `next()` hands them out
/// in presentation order on the caller's thread. The frames read but not yet handed out are
/// bounded (by the policy), so memory is bounded by the frames in flight, not by the video's length.
package final class AnalysisPipeline: AnalyzedFrames, @unchecked Sendable {
    // @unchecked Sendable: once started, the source is used only by the reading thread; the
    // shared state lives in the workers' lane, the synchronizer and the atomic stop flag.
    private let source: FrameSource
    private let workers: AnalysisWorkers
    /// The workers are this pipeline's own (not shared with other sources): it shuts them down.
    private let ownsWorkers: Bool
    private let lane: AnalysisWorkers.Lane
    private let policy: BackpressurePolicy
    private let schedule: Schedule
    private let stopRequested = Atomic(false)
    private let synchronizer = Synchronizer<AnalyzedFrame>()
    /// Frames read but not yet handed out, at most.
    private let inFlight: Int
    private let reading = DispatchGroup()
    private var started = false
    private let sourceError = Mutex<Error?>(nil)
    private let delivered = Atomic(0)
    /// `dropLateFrames`: a frame that finds every worker busy is searched by the tracking stage
    /// (false: no tracking stage, it is dropped).
    private let searchesBusyFrames: Bool

    /// Creates `threads` workers' analyzers up front, so a detector that cannot load fails before
    /// any output is written; or uses `shared` workers (a capture of several cameras).
    /// `searchesBusyFrames`: see `BackpressurePolicy.dropLateFrames`.
    package init(source: FrameSource, faces: ResolvedFaceDetector, codes: CodeReaderOptions, threads: Int,
                 schedule: Schedule, policy: BackpressurePolicy, shotImages: Bool = false,
                 shared: AnalysisWorkers? = nil, searchesBusyFrames: Bool = false) throws {
        self.source = source
        self.policy = policy
        self.searchesBusyFrames = searchesBusyFrames
        self.schedule = schedule
        if let shared {
            (workers, ownsWorkers) = (shared, false)
        } else {
            let count = Self.workers(threads: threads, faces: faces, readsCodes: codes.backend != .off, policy: policy,
                                     width: source.info.displayWidth, height: source.info.displayHeight)
            (workers, ownsWorkers) = (try AnalysisWorkers(faces: faces, codes: codes, count: count, sharing: max(1, threads)), true)
        }
        let count = workers.count
        // Frames waiting for a worker, and frames read but not yet handed out.
        let queued: Int
        switch policy {
        // Reading runs a stride per worker ahead, so with --detect-every N every worker can be on
        // a full detection at once, not each waiting for the frames before its own to be handed out;
        // and up to a code-search stride ahead (at most 16 frames), so while one worker searches a
        // frame whole for codes (as long as a dozen other frames take) the others go on.
        case .wait:
            let ahead = max(count * max(2, schedule.detectEvery), codes.backend != .off ? min(schedule.codeFullEvery, 16) : 0)
            (queued, inFlight) = (count * 2, ahead + 2)
        // Only as many waiting frames as workers: a frame is analyzed soon or not at all. The
        // wider in-flight bound only holds back a consumer that falls behind.
        case .dropLateFrames: (queued, inFlight) = (count, count * 2 + 64)
        case .queue(let backlog): (queued, inFlight) = (max(1, backlog), max(1, backlog) + count + 2)
        }
        lane = workers.lane(capacity: queued, synchronizer: synchronizer, shotImages: shotImages)
        // A live source's first frames must not wait for the networks to compile (each record
        // after them would too): they are made ready first, then the source starts.
        if source.isLive {
            workers.prepare(width: source.info.displayWidth, height: source.info.displayHeight,
                            plan: FramePlan(fullDetection: true, fullCodeSearch: true, tile: schedule.tile(at: 0)))
            try source.start()
        }
    }

    deinit {
        workers.close(lane, discarding: true)
        if ownsWorkers { workers.shutdown() }
    }

    /// The analysis workers for `threads` threads: one each, unless memory comes first
    /// (`NetworkPriority.memory`: `anonymize`). Then a DNN detector on OpenVINO whose
    /// whole-frame input is so large that workers share a stream (`OpenVINORuntime.requestsPerStream`:
    /// 1080p) gets one worker per stream instead, whose inference runs on the stream's threads: a
    /// second worker on the same stream only waited for it, and held a network input (25 MB of
    /// floats at 1920x1088), an infer request and its outputs (about 55 MB in all).
    /// Not when the workers also read codes (they search the whole frame without the network),
    /// nor for a live source (fewer workers would drop more frames).
    package static func workers(threads: Int, faces: ResolvedFaceDetector, readsCodes: Bool, policy: BackpressurePolicy,
                                width: Int, height: Int) -> Int {
        let workers = max(1, threads)
        guard faces.options.networkPriority == .memory, !readsCodes, case .wait = policy, faces.model != nil,
              faces.options.runtime == .openvino,
              let input = faces.networkInputSize(width: width, height: height) else { return workers }
        let perStream = OpenVINORuntime.requestsPerStream(width: input.width, height: input.height, priority: .memory)
        return (workers + perStream - 1) / perStream
    }

    package func stop() { stopRequested.store(true, ordering: .relaxed) }

    package func next() throws -> AnalyzedFrame? {
        if !started { start() }
        if let analyzed = synchronizer.next() { return analyzed }
        reading.wait()
        if ownsWorkers { workers.shutdown() }
        if let error = sourceError.withLock({ $0 }) { throw error }
        return nil
    }

    package func finish() throws -> AnalysisResult {
        var result = AnalysisResult()
        result.frames = delivered.load(ordering: .relaxed)
        result.damage = source.damage
        result.analyzerErrors = workers.errors(of: lane)
        return result
    }

    package func cancel() {
        stop()
        synchronizer.cancel()
        workers.close(lane, discarding: true)
        if started { reading.wait() }
        if ownsWorkers { workers.shutdown() }
    }

    /// Starts the reading thread.
    private func start() {
        started = true
        let dropLate = policy.dropsLateFrames
        let (workers, lane, synchronizer, inFlight) = (self.workers, self.lane, self.synchronizer, self.inFlight)
        // A busy frame is searched while the frames before it still in flight are few: it waits
        // for them (records leave in order), so past that it would be late.
        let searchBusy = searchesBusyFrames, busyBacklog = workers.count * 2 + 2
        let live = source.isLive
        reading.enter()
        let reader = Thread { [self] in
            defer { reading.leave() }
            var count = 0
            var planner = schedule.planner()
            defer {
                workers.close(lane)
                synchronizer.finish(count: count)
                delivered.store(count, ordering: .relaxed)
            }
            // A file is read one frame ahead, so its last frame is known as the last when it is
            // planned (`FramePlanner.plan(at:last:)`); a live source's frame goes on at once.
            var ahead: VideoFrame?
            /// Plans the frame and hands it to a worker; false: the workers are closed.
            func push(_ frame: VideoFrame, last: Bool = false) -> Bool {
                var shotBefore: ShotImage?
                if count == 0, lane.shotImages, let before = source.frameBeforeStart, before.position == frame.position - 1 {
                    shotBefore = try? ShotImage(before)
                }
                let job = (frame: frame, plan: planner.plan(at: frame.position, last: last), shotBefore: shotBefore)
                if dropLate {
                    if workers.tryPush(job, to: lane) {
                        planner.analyzed(at: frame.position, job.plan)
                    } else {
                        let searched = searchBusy && synchronizer.inFlight(before: frame.index) < busyBacklog
                        let record = searched ? workers.skippedRecord(frame) : workers.droppedRecord(frame)
                        // A searched frame is compared for cuts too (a track must not follow its object across one).
                        let shot = searched && lane.shotImages ? try? ShotImage(frame) : nil
                        synchronizer.deliver(AnalyzedFrame(record: record, frame: frame, shot: shot, shotBefore: shotBefore),
                                             index: frame.index)
                    }
                } else {
                    guard workers.push(job, to: lane) else { return false }
                    planner.analyzed(at: frame.position, job.plan)
                }
                count += 1
                return true
            }
            // Frames read are analyzed, also the one read ahead when reading stops or fails.
            defer { if let frame = ahead { _ = push(frame) } }
            while !stopRequested.load(ordering: .relaxed), synchronizer.waitForRoom(index: count, capacity: inFlight) {
                do {
                    let frame = try source.nextFrame()
                    if let held = ahead {
                        ahead = nil
                        guard push(held, last: frame == nil) else { return }
                    }
                    guard let frame else { return }
                    if live {
                        frame.arrival = .now
                        guard push(frame) else { return }
                    } else {
                        ahead = frame
                    }
                } catch {
                    sourceError.withLock { $0 = error }
                    return
                }
            }
        }
        reader.name = "sightline.read"
        reader.start()
    }
}
