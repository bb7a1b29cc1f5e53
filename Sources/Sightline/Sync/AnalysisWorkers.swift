import CVision
import Foundation
import SightlineFrames
import SightlineMedia

/// The analysis threads: a pool of workers, each with analyzers of its own, turning frames into
/// records. A run over one source has a pool of its own; a capture of several cameras shares one
/// (one compiled network, one set of threads), and its workers take the cameras' frames in turn,
/// so no camera starves when the CPU is short.
///
/// Each source feeds the pool through a `Lane`: a bounded queue of its frames, and where their
/// records go (its synchronizer).
package final class AnalysisWorkers: @unchecked Sendable {
    // @unchecked Sendable: the lanes and the turn are guarded by `condition`; each analyzer is
    // used only by its own worker thread.
    private let analyzers: [FrameAnalyzer]
    private let condition = NSCondition()
    private var lanes: [Lane] = []
    /// The lane the next free worker looks at first.
    private var turn = 0
    /// Workers analyzing a frame now.
    private var busy = 0
    /// A frame each worker analyzes once, before its next job, and throws away (see `prepare`).
    private var warmUps: [(frame: VideoFrame, plan: FramePlan)?]
    private var warmedSizes: Set<[Int]> = []
    private let warming = DispatchGroup()
    private var shutDown = false
    private let threads = DispatchGroup()

    /// A frame for a worker, its plan, and (first frame only) the shot image of the frame before it.
    package typealias Job = (frame: VideoFrame, plan: FramePlan, shotBefore: ShotImage?)

    /// One source's frames waiting for a worker (at most `capacity`), and where their records go.
    package final class Lane: @unchecked Sendable {
        // @unchecked Sendable: guarded by the pool's condition.
        fileprivate var jobs: [Job] = []
        fileprivate let capacity: Int
        fileprivate var closed = false
        fileprivate let synchronizer: Synchronizer<AnalyzedFrame>
        /// Whether the workers also make each frame's shot image (cut detection).
        package let shotImages: Bool
        /// Analyzer errors met on this source's frames.
        fileprivate var errors: [AnalyzerError] = []

        fileprivate init(capacity: Int, synchronizer: Synchronizer<AnalyzedFrame>, shotImages: Bool) {
            self.capacity = max(1, capacity)
            self.synchronizer = synchronizer
            self.shotImages = shotImages
        }
    }

    /// Creates `count` workers' analyzers (a detector that cannot load fails here, before any
    /// output) and starts their threads. `sharing`: how many workers share the compiled network.
    package init(faces: ResolvedFaceDetector, codes: CodeReaderOptions, count: Int, sharing: Int) throws {
        // The workers parallelize over frames; OpenCV's own pool would only oversubscribe the cores.
        slv_set_num_threads(1)
        analyzers = try (0..<max(1, count)).map { _ in try FrameAnalyzer(faces: faces, codes: codes, workers: max(1, sharing)) }
        warmUps = Array(repeating: nil, count: analyzers.count)
        for (i, analyzer) in analyzers.enumerated() {
            threads.enter()
            let worker = Thread { [self] in
                defer { threads.leave() }
                while let work = take(worker: i) {
                    switch work {
                    case .job(let job, let lane):
                        analyze(job, lane, with: analyzer)
                        condition.withLock { busy -= 1 }
                    case .warmUp(let frame, let plan):
                        _ = analyzer.analyze(frame, plan: plan)
                        warming.leave()
                    }
                }
            }
            worker.name = "sightline.analyze.\(i)"
            worker.start()
        }
    }

    package var count: Int { analyzers.count }

    /// The record of a frame that is not analyzed (a live source's frame too late to be searched).
    package func droppedRecord(_ frame: VideoFrame) -> FrameRecord { analyzers[0].droppedRecord(frame) }
    /// The record of a frame without full detection (a live source's frame that found the workers busy).
    package func skippedRecord(_ frame: VideoFrame) -> FrameRecord { analyzers[0].skippedRecord(frame) }

    /// Makes the networks for frames of this size ready, and waits for them; then, the first time
    /// for this size, every worker analyzes a blank frame with `plan` (a detection frame's: its
    /// tile too). A live source does this before its first frame: the first frames analyzed
    /// would otherwise hold every record after them for the compilation's time, and then for
    /// each network's first inference on each worker (its memory and kernels made: about 0.6 s).
    package func prepare(width: Int, height: Int, plan: FramePlan) {
        analyzers[0].prepare(width: width, height: height)
        OpenVINORuntime.finishPreparations()
        guard condition.withLock({ warmedSizes.insert([width, height]).inserted }),
              let blank = VideoFrame.blank(width: width, height: height) else { return }
        condition.withLock {
            for i in warmUps.indices {
                warming.enter()
                warmUps[i] = (blank, plan)
            }
            condition.broadcast()
        }
        warming.wait()
    }

    /// A new source's lane.
    package func lane(capacity: Int, synchronizer: Synchronizer<AnalyzedFrame>, shotImages: Bool) -> Lane {
        let lane = Lane(capacity: capacity, synchronizer: synchronizer, shotImages: shotImages)
        condition.withLock { lanes.append(lane) }
        return lane
    }

    /// Queues a frame, waiting while the lane is full; false once the lane is closed.
    package func push(_ job: Job, to lane: Lane) -> Bool {
        condition.withLock {
            while !lane.closed && lane.jobs.count >= lane.capacity { condition.wait() }
            guard !lane.closed else { return false }
            lane.jobs.append(job)
            condition.broadcast()
            return true
        }
    }

    /// Queues a frame only if a worker is free to take it now, no frame of any lane waiting
    /// before it (a live source: a frame that would wait is searched around the known objects
    /// instead, or dropped; a record waiting for a worker is a record late).
    package func tryPush(_ job: Job, to lane: Lane) -> Bool {
        condition.withLock {
            guard !lane.closed, lane.jobs.count < lane.capacity,
                  busy + lanes.reduce(0, { $0 + $1.jobs.count }) < analyzers.count else { return false }
            lane.jobs.append(job)
            condition.broadcast()
            return true
        }
    }

    /// No more frames for this lane; those queued are still analyzed unless `discarding`.
    package func close(_ lane: Lane, discarding: Bool = false) {
        condition.withLock {
            lane.closed = true
            if discarding { lane.jobs = [] }
            condition.broadcast()
        }
    }

    /// The analyzer errors met on a lane's frames, in frame order (the workers meet them in any).
    package func errors(of lane: Lane) -> [AnalyzerError] { condition.withLock { lane.errors }.sorted { $0.frame < $1.frame } }

    /// Ends the worker threads once every lane's queued frames are analyzed, and waits for them.
    package func shutdown() {
        condition.withLock {
            shutDown = true
            condition.broadcast()
        }
        threads.wait()
    }

    private enum Work {
        case job(Job, Lane)
        case warmUp(VideoFrame, FramePlan)
    }

    /// Worker `worker`'s next work: its warm-up, else a job from the lanes in turn; nil once shut
    /// down with nothing left.
    private func take(worker: Int) -> Work? {
        condition.withLock {
            while true {
                if let warmUp = warmUps[worker] {
                    warmUps[worker] = nil
                    return .warmUp(warmUp.frame, warmUp.plan)
                }
                lanes.removeAll { $0.closed && $0.jobs.isEmpty }
                for step in 0..<lanes.count {
                    let i = (turn + step) % lanes.count
                    guard !lanes[i].jobs.isEmpty else { continue }
                    let lane = lanes[i]
                    turn = (i + 1) % lanes.count
                    let job = lane.jobs.removeFirst()
                    busy += 1
                    condition.broadcast()   // room in the lane
                    return .job(job, lane)
                }
                if shutDown { return nil }
                condition.wait()
            }
        }
    }

    private func analyze(_ job: Job, _ lane: Lane, with analyzer: FrameAnalyzer) {
        let known = analyzer.errors.count
        let record = analyzer.analyze(job.frame, plan: job.plan)
        if analyzer.errors.count > known {
            let new = analyzer.errors[known...]
            condition.withLock { lane.errors += new }
        }
        // Every frame, stride frames too: a cut can fall on any of them.
        let shot = lane.shotImages ? try? ShotImage(job.frame) : nil
        lane.synchronizer.deliver(AnalyzedFrame(record: record, frame: job.frame, shot: shot, shotBefore: job.shotBefore),
                                  index: job.frame.index)
    }
}
