import Foundation
import SightlineFrames

/// A bounded first-in first-out queue between threads. `push` waits while it is full, `pop`
/// while it is empty; after `close`, pushes are refused and pops drain what is left, then get nil.
package final class BlockingQueue<Element>: @unchecked Sendable {
    // @unchecked Sendable: all state is guarded by `condition`.
    /// A ring buffer; a popped slot is cleared at once so the queue never keeps an element alive.
    private var slots: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false
    private let condition = NSCondition()

    package init(capacity: Int) { slots = Array(repeating: nil, count: max(1, capacity)) }

    /// False if the queue was closed (the element is dropped).
    @discardableResult
    package func push(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed && count == slots.count { condition.wait() }
        guard !closed else { return false }
        slots[(head + count) % slots.count] = element
        count += 1
        condition.broadcast()
        return true
    }

    /// Adds the element only if there is room right now; false if full or closed.
    package func tryPush(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, count < slots.count else { return false }
        slots[(head + count) % slots.count] = element
        count += 1
        condition.broadcast()
        return true
    }

    package func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while !closed && count == 0 { condition.wait() }
        guard count > 0 else { return nil }
        let element = slots[head].take()
        head = (head + 1) % slots.count
        count -= 1
        condition.broadcast()
        return element
    }

    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
