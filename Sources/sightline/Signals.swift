import Dispatch
import Foundation
import Sightline
import Synchronization

/// Set from a signal handler, read by the loop it stops (or the recording it pauses).
final class SignalFlag: Sendable {
    private let flag = Atomic(false)
    func request() { flag.store(true, ordering: .relaxed) }
    var isRequested: Bool { flag.load(ordering: .relaxed) }
    /// Flips the flag; returns the new value.
    func toggle() -> Bool { !flag.logicalXor(true, ordering: .relaxed).oldValue }
}

/// Calls `handler` on SIGINT or SIGTERM instead of ending the process (and ignores SIGPIPE, so a
/// closed pipe is a write error).
func stopOnSignals(_ handler: @escaping @Sendable () -> Void) -> [SignalHandler] {
    signal(SIGPIPE, SIG_IGN)
    return [SIGINT, SIGTERM].map { onSignal($0, handler) }
}

/// Runs `handler` (on a dispatch queue, not in the signal handler) when the process gets `number`,
/// until `cancel()`.
func onSignal(_ number: Int32, _ handler: @escaping @Sendable () -> Void) -> SignalHandler {
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler(handler: handler)
    source.resume()
    return SignalHandler(number: number, source: source)
}

/// A signal taken over by `onSignal`. `cancel()` gives the signal its default action back, so a
/// process that is slow to end after its run still ends on Ctrl-C or SIGTERM (the dispatch
/// source's own handler stayed installed, catching them for nobody).
struct SignalHandler {
    let number: Int32
    let source: DispatchSourceSignal

    func cancel() {
        source.cancel()
        signal(number, SIG_DFL)
    }
}

extension Run {
    /// Runs into `sinks`; SIGINT or SIGTERM stops reading, and the frames in flight are finished
    /// (the summary says interrupted).
    func runStoppable(into sinks: [FrameSink]) throws -> SummaryRecord {
        let signals = stopOnSignals { self.stop() }
        defer { signals.forEach { $0.cancel() } }
        return try run(into: sinks)
    }
}
