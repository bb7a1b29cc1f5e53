import CVision
import Foundation
import Synchronization

/// What the reading thread does when the analyzers are behind.
public enum BackpressurePolicy: Sendable {
    /// Wait for them (files: every frame is analyzed, memory stays bounded).
    case wait
    /// Live sources: a frame that finds every worker busy is not analyzed; it stays on the
    /// timeline with a `dropped` record. Reading never waits on analysis.
    case dropLateFrames
    /// Live sources that must analyze every frame: up to `backlog` frames wait for analysis;
    /// past that, reading waits (and a camera driver drops frames instead).
    case queue(backlog: Int)
}

/// Read → analyze in parallel → restore order.
///
/// A reading thread takes frames from the source; a pool of workers, each with analyzers of its
/// own, turns frames into records; the caller's thread receives the records in presentation
/// order. The frames read but not yet handed out are bounded (by the policy), so memory is
/// bounded by the frames in flight, not by the video's length.
public final class AnalysisPipeline: @unchecked Sendable {
    // @unchecked Sendable: during `run` the source is used only by the reading thread and each
    // analyzer only by its own worker thread; the shared state lives in the locked queue and
    // synchronizer and in the atomic stop flag.
    private let source: FrameSource
    private let analyzers: [FrameAnalyzer]
    private let policy: BackpressurePolicy
    private let schedule: Schedule
    /// Whether the workers read codes (the whole-frame search on the schedule's frames).
    private let readsCodes: Bool
    /// Whether the workers also make each frame's shot image (for cut detection in frame order).
    private let shotImages: Bool
    private let stopRequested = Atomic(false)
    /// The shot image of the frame before the first one read (a run that starts later in the
    /// stream), set by the reading thread before the first frame is handed on.
    private let shotBefore = Mutex<ShotImage?>(nil)
    var shotBeforeStart: ShotImage? { shotBefore.withLock { $0 } }

    public struct Result: Sendable {
        public var frames = 0
        public var damage = DecodeDamage()
        /// One message per analyzer failure on a frame (only the count is written to records).
        public var analyzerErrors: [String] = []
        public var interrupted = false
    }

    /// Creates `threads` workers' analyzers up front, so a detector that cannot load fails before
    /// any output is written. `faces` must be resolved (`resolvingModel`). The schedule's
    /// full-frame detection runs on every `detectEvery`th frame only (the others are left to the
    /// tracking stage's region search).
    init(source: FrameSource, faces: FaceDetectorOptions, codes: CodeReaderOptions, threads: Int,
         schedule: Schedule, policy: BackpressurePolicy, shotImages: Bool = false) throws {
        self.source = source
        self.shotImages = shotImages
        self.policy = policy
        self.schedule = schedule
        readsCodes = codes.backend != .off
        let workers = Self.workers(threads: threads, faces: faces, readsCodes: readsCodes, policy: policy,
                                   width: source.info.displayWidth, height: source.info.displayHeight)
        // The pipeline parallelizes over frames; OpenCV's own pool would only oversubscribe the cores.
        slv_set_num_threads(1)
        analyzers = try (0..<workers).map { _ in try FrameAnalyzer(faces: faces, codes: codes) }
    }

    /// The analysis workers for `threads` threads. A DNN detector on OpenVINO whose whole-frame
    /// input is so large that workers share a stream (`OpenVINORuntime.requestsPerStream`: 1080p
    /// at the full size) gets one worker per stream instead, whose inference runs on the stream's
    /// threads: a second worker on the same stream only waited for it, and held a network input
    /// (25 MB of floats at 1920x1088), an infer request and its outputs (about 55 MB in all).
    /// Not when the workers also read codes (they search the whole frame without the network),
    /// nor for a live source (fewer workers would drop more frames).
    static func workers(threads: Int, faces: FaceDetectorOptions, readsCodes: Bool, policy: BackpressurePolicy,
                        width: Int, height: Int) -> Int {
        let workers = max(1, threads)
        guard !readsCodes, case .wait = policy, faces.backend.model != nil, faces.runtime == .openvino,
              let input = faces.networkInputSize(width: width, height: height) else { return workers }
        let perStream = OpenVINORuntime.requestsPerStream(width: input.width, height: input.height)
        return (workers + perStream - 1) / perStream
    }

    /// Stops reading new frames; frames already in flight are still delivered. Safe from any thread.
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    /// Runs to the end of the source (or until `stop`), calling `sink` with each record, its
    /// frame and its shot image in order. An error thrown by `sink` stops the pipeline and is rethrown.
    func run(_ sink: (FrameRecord, VideoFrame, ShotImage?) throws -> Void) throws -> Result {
        // Frames waiting for a worker, and frames read but not yet handed to the sink.
        let workers = analyzers.count
        let (queued, inFlight): (Int, Int)
        switch policy {
        // Reading runs a stride per worker ahead, so with --detect-every N every worker can be on
        // a full detection at once, not each waiting for the frames before its own to be handed out;
        // and up to a code-search stride ahead (at most 16 frames), so while one worker searches a
        // frame whole for codes (as long as a dozen other frames take) the others go on.
        case .wait:
            let ahead = max(workers * max(2, schedule.detectEvery), readsCodes ? min(schedule.codeFullEvery, 16) : 0)
            (queued, inFlight) = (workers * 2, ahead + 2)
        // Only as many waiting frames as workers: a frame is analyzed soon or not at all. The
        // wider in-flight bound only holds back a sink that falls behind.
        case .dropLateFrames: (queued, inFlight) = (workers, workers * 2 + 64)
        case .queue(let backlog): (queued, inFlight) = (max(1, backlog), max(1, backlog) + workers + 2)
        }
        // A frame for a worker, and whether it gets the full-frame detectors.
        typealias Job = (frame: VideoFrame, detect: Bool)
        let jobs = BlockingQueue<Job>(capacity: queued)
        let synchronizer = Synchronizer<AnalyzedFrame>()
        let group = DispatchGroup()
        let sourceError = Mutex<Error?>(nil)
        let delivered = Atomic(0)
        let detectEvery = schedule.detectEvery
        let dropLate: Bool
        if case .dropLateFrames = policy { dropLate = true } else { dropLate = false }

        group.enter()
        let reader = Thread { [self] in
            defer { group.leave() }
            var count = 0
            // Full detection on the first analyzed frame at least `detectEvery` frames after the
            // last one: frames 0, N, 2N… of a file; for a camera, a dropped detection frame passes
            // the duty on to the next frame analyzed, so new objects still appear within N.
            // A run that starts later in the stream (a shard) keeps the whole run's phase: full
            // detection on positions 0, N, 2N…, so both detect on the same frames.
            var lastDetection: Int?
            defer {
                jobs.close()
                synchronizer.finish(count: count)
                delivered.store(count, ordering: .relaxed)
            }
            while !stopRequested.load(ordering: .relaxed), synchronizer.waitForRoom(index: count, capacity: inFlight) {
                do {
                    guard let frame = try source.nextFrame() else { return }
                    if count == 0, shotImages, let before = source.frameBeforeStart, before.position == frame.position - 1 {
                        let image = try? ShotImage(before)
                        shotBefore.withLock { $0 = image }
                    }
                    if lastDetection == nil {
                        let phase = frame.position % detectEvery
                        lastDetection = phase == 0 ? Int.min / 2 : frame.position - phase
                    }
                    let job = (frame: frame, detect: frame.position - lastDetection! >= detectEvery)
                    if dropLate {
                        if jobs.tryPush(job) {
                            if job.detect { lastDetection = frame.position }
                        } else {
                            synchronizer.deliver(AnalyzedFrame(record: analyzers[0].droppedRecord(frame), frame: frame), index: frame.index)
                        }
                    } else {
                        guard jobs.push(job) else { return }
                        if job.detect { lastDetection = frame.position }
                    }
                    count += 1
                } catch {
                    sourceError.withLock { $0 = error }
                    return
                }
            }
        }
        reader.name = "sightline.read"
        reader.start()

        for (i, analyzer) in analyzers.enumerated() {
            group.enter()
            let worker = Thread {
                defer { group.leave() }
                while let job = jobs.pop() {
                    let record = analyzer.analyze(job.frame, detect: job.detect,
                                                  fullCodeSearch: self.schedule.fullCodeSearch(job.frame))
                    // Every frame, stride frames too: a cut can fall on any of them.
                    let shot = self.shotImages ? try? ShotImage(job.frame) : nil
                    synchronizer.deliver(AnalyzedFrame(record: record, frame: job.frame, shot: shot), index: job.frame.index)
                }
            }
            worker.name = "sightline.analyze.\(i)"
            worker.start()
        }

        var sinkError: Error?
        while let analyzed = synchronizer.next() {
            do {
                try sink(analyzed.record, analyzed.frame, analyzed.shot)
            } catch {
                sinkError = error
                stop()
                synchronizer.cancel()
                jobs.close()
                break
            }
        }
        group.wait()
        if let sinkError { throw sinkError }
        if let error = sourceError.withLock({ $0 }) { throw error }

        var result = Result()
        result.frames = delivered.load(ordering: .relaxed)
        result.damage = source.damage
        result.interrupted = stopRequested.load(ordering: .relaxed)
        result.analyzerErrors = analyzers.flatMap(\.errors)
        return result
    }
}
