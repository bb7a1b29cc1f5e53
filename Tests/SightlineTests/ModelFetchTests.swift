import Foundation
import XCTest
@testable import Sightline

/// `sightline models list` and `models fetch`, from a folder and from a real HTTP server on
/// 127.0.0.1 started by the test (Python's http.server, with two extra paths that misbehave).
final class ModelFetchTests: XCTestCase {
    /// Serves FOLDER on 127.0.0.1 at a free port, printed on the first line of standard output.
    /// /truncated/NAME sends NAME's full Content-Length, half the bytes, then closes the connection;
    /// /slow/NAME sends 64 KiB and then stalls. Stops by itself after 120 s.
    private static let serverScript = #"""
        import http.server, os, socket, sys, threading, time
        root = sys.argv[1]
        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=root, **kwargs)
            def log_message(self, *args):
                pass
            def do_GET(self):
                for mode in ("truncated", "slow"):
                    prefix = "/" + mode + "/"
                    if self.path.startswith(prefix):
                        with open(os.path.join(root, os.path.basename(self.path[len(prefix):])), "rb") as f:
                            data = f.read()
                        self.send_response(200)
                        self.send_header("Content-Type", "application/octet-stream")
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        if mode == "truncated":
                            self.wfile.write(data[: len(data) // 2])
                            self.wfile.flush()
                            self.connection.shutdown(socket.SHUT_RDWR)
                        else:
                            self.wfile.write(data[:65536])
                            self.wfile.flush()
                            time.sleep(30)
                        self.close_connection = True
                        return
                super().do_GET()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print(server.server_address[1], flush=True)
        threading.Timer(120, server.shutdown).start()
        server.serve_forever()
        """#

    private struct Server {
        var process: Process
        var base: String
    }

    /// Starts the server on a copy of ../shared/models (`corrupt`: these files get one byte flipped).
    private func startServer(corrupt: [KnownModel] = []) throws -> (Server, URL) {
        let dir = try Fixtures.temporaryDirectory(self)
        let served = dir.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        for model in KnownModel.all {
            let source = try Fixtures.sharedModelOrSkip(model)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            if corrupt.contains(model) { bytes[bytes.count / 3] ^= 0x01 }
            try bytes.write(to: served.appendingPathComponent(model.file))
        }
        let script = dir.appendingPathComponent("server.py")
        try Self.serverScript.write(to: script, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, served.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        addTeardownBlock {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        // The first line is the port.
        var line = Data()
        let deadline = Date().addingTimeInterval(15)
        while !line.contains(UInt8(ascii: "\n")) && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let port = try XCTUnwrap(Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
                                 "the test server did not start")
        return (Server(process: process, base: "http://127.0.0.1:\(port)"), dir)
    }

    private func fetch(_ arguments: [String], cache: URL) throws -> ProcessResult {
        sightline(["models", "fetch"] + arguments,
                       environment: ["XDG_CACHE_HOME": cache.path, "SIGHTLINE_MODELS": ""])
    }

    private func installed(_ cache: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("sightline/models").path)) ?? []).sorted()
    }

    func testListShowsEveryModelWithItsPinnedSourceAndWhereItIs() throws {
        let cache = try Fixtures.temporaryDirectory(self)
        let noSystem = ["XDG_CACHE_HOME": cache.path, "SIGHTLINE_MODELS": "", "SIGHTLINE_SYSTEM_MODELS": ""]
        var run = sightline(["models", "list"], environment: noSystem)
        XCTAssertEqual(run.status, 0, run.stderr)
        for model in KnownModel.all {
            XCTAssertTrue(run.stdoutText.contains("\(model.name)  (--faces \(model.name))"), run.stdoutText)
            XCTAssertTrue(run.stdoutText.contains(model.sha256))
            if let package = model.registryPackage {
                XCTAssertTrue(run.stdoutText.contains("\(package.member) in \(package.file) (package registry, sha256 \(package.sha256))"), run.stdoutText)
            } else {
                XCTAssertTrue(run.stdoutText.contains("\(model.repository) at commit \(model.commit)"))
                XCTAssertTrue(run.stdoutText.contains(model.sourceURL))
            }
            XCTAssertTrue(run.stdoutText.contains(model.registryPackage == nil ? "no (sightline models fetch \(model.name))" : "no (Scripts/install-deps.sh)"))
        }
        // CenterFace's INT8 network, shipped in the source tree.
        let int8 = KnownModel.centerfaceInt8
        XCTAssertTrue(run.stdoutText.contains("\(int8.name)  (--faces centerface --dnn-precision int8, the default)"), run.stdoutText)
        XCTAssertTrue(run.stdoutText.contains("Models/centerface-int8.onnx in Sightline's source tree (derived from centerface.onnx)"), run.stdoutText)
        XCTAssertTrue(run.stdoutText.contains(int8.sha256))

        // centerface as Scripts/install-deps.sh installs it: in the system folder, checked.
        let centerface = try XCTUnwrap(KnownModel.named("centerface"))
        let system = URL(fileURLWithPath: try Fixtures.sharedModelOrSkip(centerface)).deletingLastPathComponent().path
        run = sightline(["models", "list"], environment: ["XDG_CACHE_HOME": cache.path, "SIGHTLINE_MODELS": ""])
        XCTAssertTrue(run.stdoutText.contains("installed  \(system)/centerface.onnx (sha256 checked)"), run.stdoutText)
        // Without --from, fetch says where centerface comes from.
        run = try fetch(["centerface"], cache: cache)
        XCTAssertEqual(run.status, 64)
        XCTAssertTrue(run.stderr.contains("Scripts/install-deps.sh"), run.stderr)
        _ = try Fixtures.sharedModelOrSkip(try XCTUnwrap(KnownModel.named("yunet")))
        XCTAssertEqual(try fetch(["yunet", "--from", Fixtures.sharedModels.path], cache: cache).status, 0)
        run = sightline(["models", "list"], environment: ["XDG_CACHE_HOME": cache.path, "SIGHTLINE_MODELS": ""])
        XCTAssertTrue(run.stdoutText.contains("installed  \(cache.path)/sightline/models/yunet_legacy_120x160.onnx"), run.stdoutText)
    }

    func testFetchFromAFolderAndFromAFile() throws {
        let cache = try Fixtures.temporaryDirectory(self)
        let yunet = try XCTUnwrap(KnownModel.named("yunet"))
        let file = try Fixtures.sharedModelOrSkip(yunet)
        var run = try fetch(["yunet", "--from", Fixtures.sharedModels.path], cache: cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdoutText.contains("yunet: installed"), run.stdoutText)
        XCTAssertEqual(installed(cache), [yunet.file])
        XCTAssertEqual(try SHA256.hex(ofFile: cache.path + "/sightline/models/" + yunet.file), yunet.sha256)
        run = try fetch(["yunet", "--from", file], cache: cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdoutText.contains("already installed"), run.stdoutText)

        // A file that is not the model: checksum error, nothing installed.
        let other = try Fixtures.temporaryDirectory(self)
        run = try fetch(["ultraface", "--from", file], cache: other)
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stderr.contains("nothing was installed"), run.stderr)
        XCTAssertEqual(installed(other), [])
        // A source that does not exist: exit 66.
        XCTAssertEqual(try fetch(["yunet", "--from", other.appendingPathComponent("nowhere").path], cache: other).status, 66)
        XCTAssertEqual(try fetch(["nosuchmodel"], cache: other).status, 64)
    }

    func testFetchOverHTTPGoodCorruptAndCutShort() throws {
        let ultraface = try XCTUnwrap(KnownModel.named("ultraface"))
        let yunet = try XCTUnwrap(KnownModel.named("yunet"))
        let (server, dir) = try startServer(corrupt: [yunet])

        // A good download.
        let cache = dir.appendingPathComponent("cache")
        var run = try fetch(["ultraface", "--from", server.base + "/"], cache: cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdoutText.contains("from \(server.base)/\(ultraface.file)"), run.stdoutText)
        XCTAssertEqual(installed(cache), [ultraface.file])
        XCTAssertEqual(try SHA256.hex(ofFile: cache.path + "/sightline/models/" + ultraface.file), ultraface.sha256)
        // The installed model works.
        let analyze = sightline(["analyze", Fixtures.sample, "-q", "--faces", "ultraface", "--duration", "0.2"],
                                     environment: ["XDG_CACHE_HOME": cache.path, "SIGHTLINE_MODELS": ""])
        XCTAssertEqual(analyze.status, 0, analyze.stderr)

        // A corrupted file (one bit flipped): checksum error, nothing left behind.
        run = try fetch(["yunet", "--from", server.base], cache: cache)
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stderr.contains("sha256"), run.stderr)
        XCTAssertTrue(run.stderr.contains("nothing was installed"), run.stderr)
        XCTAssertEqual(installed(cache), [ultraface.file])

        // The server closes the connection half-way through (after announcing the full length).
        run = try fetch(["ultraface-640", "--from", server.base + "/truncated/"], cache: cache)
        XCTAssertEqual(run.status, 75, run.stderr)
        XCTAssertTrue(run.stderr.contains("ultraface-640: fetch from \(server.base)/truncated/"), run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertEqual(installed(cache), [ultraface.file])

        // centerface comes from a registry package, but fetches --from a URL like the others.
        let centerface = try XCTUnwrap(KnownModel.named("centerface"))
        run = try fetch(["centerface", "--from", server.base], cache: cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try SHA256.hex(ofFile: cache.path + "/sightline/models/" + centerface.file), centerface.sha256)
        try FileManager.default.removeItem(atPath: cache.path + "/sightline/models/" + centerface.file)

        // Not found, and nothing listening.
        run = try fetch(["ultraface-640", "--from", server.base + "/missing/"], cache: cache)
        XCTAssertEqual(run.status, 75)
        XCTAssertTrue(run.stderr.contains("HTTP status 404"), run.stderr)
        XCTAssertEqual(installed(cache), [ultraface.file])
    }

    func testInterruptedFetchLeavesNothing() throws {
        let (server, dir) = try startServer()
        let cache = dir.appendingPathComponent("cache")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.binary)
        process.arguments = ["models", "fetch", "ultraface-640", "--from", server.base + "/slow/"]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache.path, "SIGHTLINE_MODELS": ""]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the temporary file holds the first bytes, then interrupt.
        let deadline = Date().addingTimeInterval(20)
        var partial: [String] = []
        while Date() < deadline {
            partial = installed(cache).filter { $0.hasSuffix(".partial") }
            if let name = partial.first,
               let size = try? FileManager.default.attributesOfItem(atPath: cache.path + "/sightline/models/" + name)[.size] as? Int,
               size > 0 { break }
            usleep(50_000)
        }
        XCTAssertEqual(partial.count, 1, "no temporary file appeared")
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(installed(cache), [])
    }
}
