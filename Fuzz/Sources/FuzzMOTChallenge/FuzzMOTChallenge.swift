import Foundation
import CFuzzerDriver
import FuzzSupport
import Sightline

/// MOTChallenge text as `audit` and `diff` read it, as prediction and as truth; what parses must
/// write back out as MOTChallenge text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMOTChallenge(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(FuzzInput.bytes(data, size))
    _ = MOTChallengeText.isMOTChallenge(path: "fuzz.txt", data: bytes)
    _ = MOTChallengeText.isMOTChallenge(path: "fuzz.jsonl", data: bytes)
    for truth in [false, true] {
        if let file = try? MOTChallengeText.parse(bytes, path: "fuzz.txt", truth: truth) {
            _ = MOTChallengeText.text(of: file.frames)
        }
    }
    return 0
}

/// The executable's entry point in debug builds (SwiftPM renames `main`): libFuzzer's driver.
@_cdecl("FuzzMOTChallenge_main")
func fuzzMOTChallengeMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    sightline_fuzz_main(argc, argv) { data, size in fuzzMOTChallenge(data, size) }
}
