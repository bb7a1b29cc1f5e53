import Foundation
import SightlineFrames
import SightlineMedia

/// A frame and what the analyzers found in it. The frame stays alive until the ordered stage
/// (tracking, which may search it again) is done with it.
package struct AnalyzedFrame: @unchecked Sendable {
    // @unchecked Sendable: VideoFrame is Sendable; FrameRecord holds only values.
    package var record: FrameRecord
    package var frame: VideoFrame
    /// The frame as shot-cut detection compares it (nil: cuts off, or the frame was dropped).
    package var shot: ShotImage? = nil
    /// First frame of a run that starts later in the stream: the frame before it, as shot-cut
    /// detection compares it (the whole run compares the two too).
    package var shotBefore: ShotImage? = nil
    /// Saved records: the tracks whose records follow this frame's.
    package var endedTracks: [TrackRecord] = []
}

/// Restores presentation order: workers finish frames in any order, the synchronizer hands
/// them out strictly by frame index, exactly once each.
package final class Synchronizer<Item>: @unchecked Sendable {
    // @unchecked Sendable: all state is guarded by `condition`.
    private var pending: [Int: Item] = [:]
    private var nextIndex = 0
    private var total: Int?
    private var cancelled = false
    private let condition = NSCondition()

    /// A worker's finished frame number `index`.
    package func deliver(_ item: Item, index: Int) {
        condition.lock()
        pending[index] = item
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until frame `index` may enter the pipeline: at most `capacity` frames are in flight
    /// (dispatched but not yet handed out). False once cancelled.
    package func waitForRoom(index: Int, capacity: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && index - nextIndex >= capacity { condition.wait() }
        return !cancelled
    }

    /// Frames dispatched before frame `index` and not yet handed out.
    package func inFlight(before index: Int) -> Int { condition.withLock { index - nextIndex } }

    /// The consumer stopped: release everyone waiting for room.
    package func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// No frames after `count` will come (the source ended or stopped).
    package func finish(count: Int) {
        condition.lock()
        total = count
        condition.broadcast()
        condition.unlock()
    }

    /// The next frame in order, waiting for it; nil once every frame has been handed out.
    package func next() -> Item? {
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
