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
        let delivered = expectation(description: "the handler ran")
        let taken = onSignal(SIGUSR2) { delivered.fulfill() }
        XCTAssertNotNil(handler(of: SIGUSR2), "no handler while the source is live")
        raise(SIGUSR2)
        wait(for: [delivered], timeout: 10)
        taken.cancel()
        XCTAssertNil(handler(of: SIGUSR2), "the signal is still caught after cancel()")
    }
}
