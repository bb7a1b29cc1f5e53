import Foundation
import CFuzzerDriver
import FuzzSupport
import Sightline

/// JSON Lines records as `render`/`snapshot` stream them, `tracks` reads them, and `audit`/`diff`
/// read them as prediction or truth (also sniffing MOTChallenge text), and `merge` reads a shard
/// output: every reader must end in a value or an error, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecords(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzInput.file(FuzzInput.bytes(data, size), suffix: ".jsonl")
    if let file = try? RecordFile(path: path) {
        _ = file.frameRate
        _ = MOTChallengeText.text(of: file.frames)
    }
    for truth in [false, true] {
        _ = try? RecordFile(auditInput: path, truth: truth)
    }
    if let reader = try? RecordStreamReader(path: path) {
        while let item = try? reader.next() { _ = item }
    }
    // As `sightline merge` reads a shard output: the file as the only shard of a plan for a.mp4
    // (the source the seeds name).
    let merged = path + ".merged"
    let shard = Shard(input: "a.mp4", number: 0, count: 1, start: 0, duration: nil, warmup: 0, output: path, merged: merged)
    _ = try? ShardMerger().merge(input: "a.mp4", shards: [shard], paths: [path: path], output: merged)
    unlink(merged)
    return 0
}

/// The executable's entry point in debug builds (SwiftPM renames `main`): libFuzzer's driver.
@_cdecl("FuzzRecords_main")
func fuzzRecordsMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    sightline_fuzz_main(argc, argv) { data, size in fuzzRecords(data, size) }
}
