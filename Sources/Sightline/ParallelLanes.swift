import CVision
import Dispatch
import SightlineFrames

/// Sightline parallelizes its own work (frames, lanes), so the BLAS that OpenCV links runs on its
/// caller's thread. Called first thing by the command line: OpenBLAS's threads, started when it
/// loads, would otherwise spin for about 0.1 s on the cores that load the models.
public func stopBLASThreads() { slv_stop_blas_threads() }

/// Runs `count` jobs on up to `lanes` threads at once and returns their results in job order
/// (deterministic whatever the timing). Lane k takes jobs k, k + lanes, …, so a job may use
/// lane-owned state (a detector per lane: most of them are not thread-safe).
package func inParallel<Result>(_ count: Int, lanes: Int, _ job: (_ index: Int, _ lane: Int) -> Result) -> [Result] {
    let lanes = max(1, min(lanes, count))
    guard lanes > 1 else { return (0..<count).map { job($0, 0) } }
    var results = [Result?](repeating: nil, count: count)
    results.withUnsafeMutableBufferPointer { out in
        let slots = Slots(out: out)
        withoutActuallyEscaping(job) { job in
            let work = Work(job: job)
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                for i in stride(from: lane, to: count, by: lanes) { slots.out[i] = work.job(i, lane) }
            }
        }
    }
    return results.map { $0! }
}

// @unchecked Sendable: each lane writes only its own slots, and the job only reads shared
// state or uses its lane's own.
private struct Slots<Result>: @unchecked Sendable { let out: UnsafeMutableBufferPointer<Result?> }
private struct Work<Result>: @unchecked Sendable { let job: (Int, Int) -> Result }
