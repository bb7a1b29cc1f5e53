import Foundation

/// Restores presentation order: workers finish frames in any order, the synchronizer hands
/// records out strictly by frame index, exactly once each.
final class Synchronizer: @unchecked Sendable {
    private var pending: [Int: FrameRecord] = [:]
    private var nextIndex = 0
    private var total: Int?
    private var cancelled = false
    private let condition = NSCondition()

    /// A worker's finished record.
    func deliver(_ record: FrameRecord) {
        condition.lock()
        pending[record.index] = record
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until frame `index` may enter the pipeline: at most `capacity` frames are in flight
    /// (dispatched but not yet handed out). False once cancelled.
    func waitForRoom(index: Int, capacity: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && index - nextIndex >= capacity { condition.wait() }
        return !cancelled
    }

    /// The consumer stopped: release everyone waiting for room.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// No frames after `count` will come (the source ended or stopped).
    func finish(count: Int) {
        condition.lock()
        total = count
        condition.broadcast()
        condition.unlock()
    }

    /// The next record in order, waiting for it; nil once every frame has been handed out.
    func next() -> FrameRecord? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let record = pending.removeValue(forKey: nextIndex) {
                nextIndex += 1
                condition.broadcast()   // room for one more frame
                return record
            }
            if let total, nextIndex >= total { return nil }
            condition.wait()
        }
    }
}
