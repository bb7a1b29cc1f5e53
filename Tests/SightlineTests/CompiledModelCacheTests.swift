import Foundation
import XCTest
@testable import Sightline

/// Known networks kept compiled between runs (`CompiledModelCache`): a kept network is imported
/// instead of compiled, gives the records compiling gives, and a damaged file is compiled again
/// and replaced.
final class CompiledModelCacheTests: XCTestCase {
    func testAKeptNetworkIsImportedAndADamagedOneIsCompiledAgain() throws {
        let model = try XCTUnwrap(KnownModel.named("centerface"))
        let path = try Fixtures.sharedModelOrSkip(model)
        let runtime = try OpenVINORuntime.loaded()
        let dir = try Fixtures.temporaryDirectory(self)
        let cache = CompiledModelCache(directory: dir.path)
        func compile(sha256: String? = model.sha256) throws -> Bool {
            try runtime.compileOrImport(path: path, outputs: FaceModelKind.centerface.outputs, width: 320, height: 192, streams: 1,
                                        threads: 1, precision: .f32, knownSHA256: sha256, cache: cache).wasImported
        }
        func kept() throws -> [URL] {
            try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil).filter { $0.pathExtension == "ovnet" }
        }

        XCTAssertFalse(try compile(), "nothing kept yet")
        let file = try XCTUnwrap(try kept().first)
        XCTAssertEqual(try kept().count, 1)
        XCTAssertTrue(try compile(), "kept by the first compile")

        // One byte of the network flipped, then the file cut short: each time it is not given
        // to OpenVINO, the model is compiled and kept again, and the next one imports it.
        var damaged = try Data(contentsOf: file)
        damaged[damaged.count - 1000] ^= 0xff
        for bytes in [damaged, damaged.prefix(damaged.count / 2)] {
            try bytes.write(to: file)
            XCTAssertFalse(try compile(), "a damaged file was imported")
            XCTAssertTrue(try compile(), "the damaged file was not replaced")
        }
        XCTAssertEqual(try kept().count, 1)

        // A model file not checked against the registry is never kept.
        try FileManager.default.removeItem(at: file)
        XCTAssertFalse(try compile(sha256: nil))
        XCTAssertEqual(try kept().count, 0)
    }

    func testTheLeastRecentlyUsedNetworkGoesFirst() throws {
        let model = try XCTUnwrap(KnownModel.named("centerface"))
        let path = try Fixtures.sharedModelOrSkip(model)
        let runtime = try OpenVINORuntime.loaded()
        let dir = try Fixtures.temporaryDirectory(self)
        let cache = CompiledModelCache(directory: dir.path, capacity: 2)
        func compile(width: Int) throws -> Bool {
            try runtime.compileOrImport(path: path, outputs: FaceModelKind.centerface.outputs, width: width, height: 96, streams: 1,
                                        threads: 1, precision: .f32, knownSHA256: model.sha256, cache: cache).wasImported
        }
        XCTAssertFalse(try compile(width: 96))
        XCTAssertFalse(try compile(width: 128))
        XCTAssertTrue(try compile(width: 96))    // used again: 128 is now the least recently used
        XCTAssertFalse(try compile(width: 160))  // a third: 128 goes
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".ovnet") }.count, 2)
        XCTAssertTrue(try compile(width: 96))
        XCTAssertTrue(try compile(width: 160))
        XCTAssertFalse(try compile(width: 128))
    }

    func testRunsGiveTheSameRecordsWithTheCacheOffColdOrWarmOrUnwritable() throws {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let dir = try Fixtures.temporaryDirectory(self)
        let blocked = dir.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocked)
        // Tracking mode compiles CenterFace for three inputs: the whole frame, the tile, and the
        // crops one at a time. A file's networks for region searches are made when first needed:
        // the sample never shows four faces to search at once, so never the one for four crops.
        func analyze(_ environment: [String: String]) throws -> Data {
            let run = try runProcess(Fixtures.binary, ["analyze", Fixtures.sample, "-q", "--detect-every", "5", "--duration", "0.5"],
                                     environment: ["XDG_CACHE_HOME": dir.path, "SIGHTLINE_MODELS": ""].merging(environment) { $1 })
            XCTAssertEqual(run.status, 0, run.stderr)
            return run.stdout
        }
        let compiled = dir.appendingPathComponent("sightline/compiled")
        let off = try analyze(["SIGHTLINE_COMPILED_CACHE": "off"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: compiled.path))
        XCTAssertEqual(try analyze([:]), off, "compiled and kept")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: compiled.path).filter { $0.hasSuffix(".ovnet") }.count, 3)
        XCTAssertEqual(try analyze([:]), off, "imported")
        XCTAssertEqual(try analyze(["XDG_CACHE_HOME": blocked.path]), off, "cache folder not writable")
    }

    /// OpenVINO refuses to import a network compiled under another oneDNN instruction limit
    /// (`ONEDNN_MAX_CPU_ISA`, Scripts/avx2.sh's): a run held to AVX2 keeps networks of its own
    /// beside the native ones, rather than finding theirs, compiling every time and keeping none.
    func testARunHeldToAVX2KeepsNetworksOfItsOwn() throws {
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("centerface")))
        let dir = try Fixtures.temporaryDirectory(self)
        let compiled = dir.appendingPathComponent("sightline/compiled")
        func analyze(_ environment: [String: String]) throws -> Set<String> {
            let run = try runProcess(Fixtures.binary, ["analyze", Fixtures.sample, "-q", "--codes", "off", "--duration", "0.2"],
                                     environment: ["XDG_CACHE_HOME": dir.path, "SIGHTLINE_MODELS": ""].merging(environment) { $1 })
            XCTAssertEqual(run.status, 0, run.stderr)
            return Set(try FileManager.default.contentsOfDirectory(atPath: compiled.path).filter { $0.hasSuffix(".ovnet") })
        }
        // ALL (no limit) rather than none: the suite itself may run held to AVX2.
        let native = try analyze(["ONEDNN_MAX_CPU_ISA": "ALL"])
        XCTAssertFalse(native.isEmpty)
        let both = try analyze(["ONEDNN_MAX_CPU_ISA": "AVX2"])
        XCTAssertTrue(native.isSubset(of: both))
        XCTAssertEqual(both.count, 2 * native.count)
        XCTAssertEqual(try analyze(["ONEDNN_MAX_CPU_ISA": "ALL"]), both)
    }
}
