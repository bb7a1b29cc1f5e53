import Foundation
import XCTest
@testable import sightline

/// The command line takes SIGINT and SIGTERM over while a run can stop cleanly, and gives them
/// back when it is done: a process slow to end after its run (it once hung at exit) must still
/// end on Ctrl-C or SIGTERM. Checked in-process on SIGUSR2, which nothing else here uses.
final class SignalHandlingTests: XCTestCase {
    /// The signal's handler as `sigaction` reports it (nil: the default action).
    private func handler(of number: Int32) -> UnsafeRawPointer? {
        var action = sigaction()
        sigaction(number, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: UnsafeRawPointer?.self)
    }

    func testACancelledHandlerGivesTheSignalItsDefaultActionBack() {
        XCTAssertNil(handler(of: SIGUSR2), "SIGUSR2 already taken over")
        let delivered = DispatchSemaphore(value: 0)
        let taken = onSignal(SIGUSR2) { delivered.signal() }
        XCTAssertNotNil(handler(of: SIGUSR2), "no handler while the source is live")
        // To the process, as a user's signal comes, and again until it arrives: the source's
        // registration may still be under way when the first one is sent.
        var ran = false
        for _ in 0..<50 where !ran {
            kill(getpid(), SIGUSR2)
            ran = delivered.wait(timeout: .now() + 0.2) == .success
        }
        XCTAssertTrue(ran, "the handler never ran")
        taken.cancel()
        XCTAssertNil(handler(of: SIGUSR2), "the signal is still caught after cancel()")
    }
}
