import Foundation
import XCTest

/// The Ray driver (integrations/ray) against a real two-node Ray cluster on this machine: its
/// pytest suite, run with the sightline binary just built. Ray comes from
/// `Scripts/install-deps.sh --tests` (Scripts/deps/tests/ray.sh).
final class RayDriverTests: XCTestCase {
    func testDriverRunsShardsOnARayClusterAndMergesThem() throws {
        // Debian's Python, the one Scripts/deps/tests/ray.sh installs Ray into.
        let python = "/usr/bin/python3"
        let probe = try runProcess(python, ["-c", "import ray, pytest; print(ray.__version__)"])
        guard probe.status == 0 else {
            return XCTFail("python3 cannot import ray and pytest (run Scripts/install-deps.sh --tests): \(probe.stderr)")
        }
        let tests = Fixtures.repo.appendingPathComponent("integrations/ray/tests").path
        let run = try runProcess(python, ["-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", tests],
                                 environment: ["SIGHTLINE_BINARY": Fixtures.binary, "RAY_USAGE_STATS_ENABLED": "0"])
        // pytest's report, with the driver's progress and the wall times it measured.
        print(run.stdoutText)
        XCTAssertEqual(run.status, 0, "pytest failed:\n\(run.stdoutText)\n\(run.stderr)")
    }
}
