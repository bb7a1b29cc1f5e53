import Foundation

/// A bounded first-in first-out queue between threads. `push` waits while it is full, `pop`
/// while it is empty; after `close`, pushes are refused and pops drain what is left, then get nil.
final class BlockingQueue<Element>: @unchecked Sendable {
    private var items: [Element] = []
    private var head = 0
    private var closed = false
    private let capacity: Int
    private let condition = NSCondition()

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// False if the queue was closed (the element is dropped).
    @discardableResult
    func push(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed && items.count - head >= capacity { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while !closed && head == items.count { condition.wait() }
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {   // compact now and then
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
