import Foundation
import Synchronization
import XCTest
@testable import Sightline
@testable import sightline

/// Paths and process helpers shared by the end-to-end tests.
enum Fixtures {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sample = repo.appendingPathComponent("Samples/faces-and-codes-720p.mp4").path
    static let sampleTruth = repo.appendingPathComponent("Samples/faces-and-codes-720p.truth.jsonl").path
    static let sharedData = repo.deletingLastPathComponent().appendingPathComponent("shared/data")
    static let sharedModels = repo.deletingLastPathComponent().appendingPathComponent("shared/models")

    /// The `sightline` executable built next to the test bundle.
    static var binary: String {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("sightline").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return repo.appendingPathComponent(".build/debug/sightline").path
    }

    /// A fresh temporary directory, removed when the test ends.
    static func temporaryDirectory(_ test: XCTestCase) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// A model file from ../shared/models (see its README), or a skip when it is not there. A
    /// model from a registry package (centerface) is taken from the system models folder, where
    /// Scripts/install-deps.sh installs it.
    static func sharedModelOrSkip(_ model: KnownModel) throws -> String {
        let folder = model.registryPackage == nil ? sharedModels.path : ModelStore.defaultSystemDirectory
        let path = folder + "/" + model.file
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("\(path) is not present (the shared model files sit beside the repository; Scripts/install-deps.sh installs centerface)")
        }
        return path
    }

    static func sharedDataOrSkip(_ relative: String) throws -> URL {
        let url = sharedData.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("\(url.path) is not present (the shared test data sits beside the repository)")
        }
        return url
    }
}

/// Outputs several test classes read, made once per suite run: in the folder that
/// `Scripts/test.sh` gives all its test processes (`SIGHTLINE_TEST_SHARED_DIR`), or in one of
/// this process's own when the suite runs in one process.
enum SharedOutputs {
    static let root: URL = {
        if let dir = ProcessInfo.processInfo.environment["SIGHTLINE_TEST_SHARED_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-shared-\(getpid())")
        atexit { try? FileManager.default.removeItem(at: SharedOutputs.root) }
        return dir
    }()

    /// The folder `name` of `root`, made by `make` unless it is there already (`madeOnce`).
    static func folder(_ name: String, _ make: (URL) throws -> Void) throws -> URL {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return try madeOnce(root.appendingPathComponent(name), make)
    }
}

/// The folder `dir`, made by `make` unless it is there already: into a folder of this process's,
/// then renamed whole, so no process ever sees half of it; under a lock beside it, so a process
/// that needs it while another makes it waits instead of making it too.
func madeOnce(_ dir: URL, _ make: (URL) throws -> Void) throws -> URL {
    let lock = open(dir.path + ".lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
    guard lock >= 0 else { throw "cannot open \(dir.path).lock: \(String(cString: strerror(errno)))" }
    defer { close(lock) }   // which releases the lock
    while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
    if FileManager.default.fileExists(atPath: dir.path) { return dir }
    let making = URL(fileURLWithPath: dir.path + ".making-\(getpid())")
    try? FileManager.default.removeItem(at: making)
    try FileManager.default.createDirectory(at: making, withIntermediateDirectories: true)
    do { try make(making) } catch {
        try? FileManager.default.removeItem(at: making)
        throw error
    }
    try FileManager.default.moveItem(at: making, to: dir)
    return dir
}

/// Whole `analyze` runs that several test classes read, each made once per suite run
/// (`SharedOutputs`; the tests only read the file): `input` analyzed with `options`, `-q -o FILE`.
enum SharedRuns {
    static func analyzed(_ input: String, _ options: [String]) throws -> String {
        // The sample's default run is the render fixture's (the same command, with its outputs).
        if input == Fixtures.sample && options.isEmpty {
            try RenderFixture.ready()
            return RenderFixture.records
        }
        let key = SHA256.hex(of: Data(([input] + options).joined(separator: "\u{0}").utf8)).prefix(16)
        let folder = try SharedOutputs.folder("whole-run-\(key)") { dir in
            let run = sightline(["analyze", input, "-q", "-o", dir.appendingPathComponent("records.jsonl").path] + options)
            guard run.status == 0 else { throw "analyze \(input) \(options): \(run.stderr)" }
        }
        return folder.appendingPathComponent("records.jsonl").path
    }
}

struct ProcessResult: Sendable {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs a program to completion and collects its output.
@discardableResult
func runProcess(_ executable: String, _ arguments: [String], stdin: URL? = nil,
                environment: [String: String]? = nil) throws -> ProcessResult {
    let started = ProfileClock()
    defer { profileLog(executable, arguments, started) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    let out = Pipe()
    // Standard error goes to a file, so a chatty process never blocks on a full pipe.
    let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errPath) }
    process.standardOutput = out
    process.standardError = try FileHandle(forWritingTo: errPath)
    if let stdin { process.standardInput = try FileHandle(forReadingFrom: stdin) }
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    // Through FileHandle: Data(contentsOf:) leaks its buffer on an empty file (swift-foundation).
    let errData = (try? FileHandle(forReadingFrom: errPath).readToEnd()).flatMap { $0 } ?? Data()
    return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
}

/// Starts `sightline` in the background (for signal tests).
func startSightline(_ arguments: [String], environment: [String: String]? = nil) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Fixtures.binary)
    process.arguments = arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    try process.run()
    return process
}

/// Waits until the process ends or `timeout` seconds pass; whether it ended.
@discardableResult
func waitForExit(of process: Process, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    return !process.isRunning
}

/// Waits until `path` has `count` lines (one record per line), the process ends, or time runs out.
func waitForLines(_ count: Int, in path: String, of process: Process, timeout: TimeInterval = 120) {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline, process.isRunning,
          ((try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").count ?? 0) < count {
        usleep(20_000)
    }
}

/// `sightline ARGUMENTS` run in this process, as the binary's `main` runs it (parsed by
/// `SightlineCommand.parseAsRoot`, a failure reported by `SightlineCommand.report`, as the binary reports it): its exit
/// status, standard output and standard error. No process is started, so the runtime and its
/// compiled networks are loaded once for the whole suite. Tests of what only a process shows
/// (exit codes through the shell, signals, the error line of the binary, environment variables
/// read at start-up) use `sightlineBinary` instead.
func sightline(_ arguments: String...) -> ProcessResult { sightline(arguments) }

/// With `environment` set for the command's run (variables read when a command runs, such as
/// the model folders; not those read once per process).
func sightline(_ arguments: [String], environment: [String: String] = [:]) -> ProcessResult {
    InProcessCommand.lock.withLock { _ in
        let started = ProfileClock()
        defer { profileLog("sightline", arguments, started) }
        let saved = environment.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for (name, value) in environment { setenv(name, value, 1) }
        defer { for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } } }
        return InProcessCommand.run(arguments)
    }
}

/// `sightline ARGUMENTS` as a process of the built binary.
func sightlineBinary(_ arguments: String...) throws -> ProcessResult {
    try runProcess(Fixtures.binary, arguments)
}

/// Runs a command with this process's standard output and error sent to files while it runs.
private enum InProcessCommand {
    static let lock = Mutex<Void>(())

    static func run(_ arguments: [String]) -> ProcessResult {
        let capture = { () -> (FileHandle, URL) in
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("sightline-capture-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return (try! FileHandle(forUpdating: url), url)
        }
        let (out, outURL) = capture(), (err, errURL) = capture()
        defer {
            try? out.close(); try? err.close()
            try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL)
        }
        fflush(nil)
        let (savedOut, savedErr) = (dup(1), dup(2))
        dup2(out.fileDescriptor, 1); dup2(err.fileDescriptor, 2)
        var status: Int32 = 0
        do {
            var command = try SightlineCommand.parseAsRoot(arguments)
            try command.run()
        } catch {
            status = SightlineCommand.report(error)
        }
        fflush(nil)
        dup2(savedOut, 1); dup2(savedErr, 2); close(savedOut); close(savedErr)
        let read = { (url: URL) in (try? FileHandle(forReadingFrom: url).readToEnd()).flatMap { $0 } ?? Data() }
        return ProcessResult(status: status, stdout: read(outURL), stderr: String(decoding: read(errURL), as: UTF8.self))
    }
}

func ffmpeg(_ arguments: String...) throws {
    let result = try runProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
    guard result.status == 0 else { throw "ffmpeg failed: \(result.stderr)" }
}

/// The face detector's settings recorded in the stream record of a run's output.
func faceSettings(_ records: Data) throws -> RecordFields {
    let stream = try XCTUnwrap(try RecordFile(jsonLines: records, path: "records").stream, "no stream record")
    return try XCTUnwrap(stream.faceAnalyzer, "no face analyzer in the stream record")
}

/// JSON objects of a JSON Lines buffer.
func jsonLines(_ data: Data) throws -> [[String: Any]] {
    try data.split(separator: UInt8(ascii: "\n")).map {
        guard let object = try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] else { throw "not an object" }
        return object
    }
}

/// Test helpers fail with a plain message (the library itself throws typed errors only).
extension String: @retroactive Error {}

/// When a command started: the time, and the CPU this process and its children had used (a test
/// process runs one command at a time, so the difference is the command's CPU).
private struct ProfileClock {
    let date = Date()
    let cpu = ProfileClock.cpuSeconds()

    static func cpuSeconds() -> Double {
        var total = 0.0
        for who in [RUSAGE_SELF.rawValue, RUSAGE_CHILDREN.rawValue] {
            var usage = rusage()
            getrusage(who, &usage)
            for time in [usage.ru_utime, usage.ru_stime] { total += Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        }
        return total
    }
}

/// With `SIGHTLINE_TEST_PROFILE=FILE`, every command the tests run (in-process `sightline`, the
/// binary, ffmpeg, Python…) is appended to FILE as a line: seconds, CPU seconds, program,
/// arguments. Where the suite's time goes, command by command (docs/testing.md).
private func profileLog(_ program: String, _ arguments: [String], _ started: ProfileClock) {
    guard let path = ProcessInfo.processInfo.environment["SIGHTLINE_TEST_PROFILE"] else { return }
    let line = String(format: "%.3f\t%.3f\t%@\t%@\n", Date().timeIntervalSince(started.date), ProfileClock.cpuSeconds() - started.cpu,
                      program, arguments.joined(separator: " "))
    guard let file = FileHandle(forWritingAtPath: path) else {
        FileManager.default.createFile(atPath: path, contents: Data(line.utf8))
        return
    }
    defer { try? file.close() }
    file.seekToEndOfFile()
    file.write(Data(line.utf8))
}
