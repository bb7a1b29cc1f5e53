import Foundation
import XCTest

/// A real mosquitto broker on the loopback for one test: a password file, a plain listener, and a
/// TLS listener whose certificate (for 127.0.0.1) is signed by a CA made here with openssl.
/// Persistence on, so a subscriber's session and the retained messages survive a restart.
private final class TestBroker {
    let dir: URL
    let port = Int.random(in: 20_000..<40_000), tlsPort = Int.random(in: 40_000..<60_000)
    let user = "door-camera", password = "correct horse 7"
    var ca: String { dir.appendingPathComponent("ca.pem").path }
    /// A CA that did not sign the broker's certificate.
    var otherCA: String { dir.appendingPathComponent("other-ca.pem").path }
    private var process: Process?
    private var subscribers: [Process] = []

    init(in dir: URL) throws {
        self.dir = dir
        for tool in ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_passwd", "/usr/bin/mosquitto_sub", "/usr/bin/openssl"]
            where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed (Scripts/install-deps.sh --tests installs mosquitto, mosquitto-clients and openssl)")
        }
        func openssl(_ arguments: [String]) throws {
            let run = try runProcess("/usr/bin/openssl", arguments)
            guard run.status == 0 else { throw "openssl \(arguments.first ?? ""): \(run.stderr)" }
        }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        for name in ["ca", "other-ca"] {
            try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=\(name)",
                         "-keyout", path("\(name).key"), "-out", path("\(name).pem")])
        }
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: path("san.ext"), atomically: true, encoding: .utf8)
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", path("server.key"), "-out", path("server.csr")])
        try openssl(["x509", "-req", "-in", path("server.csr"), "-CA", ca, "-CAkey", path("ca.key"), "-CAcreateserial", "-days", "2",
                     "-extfile", path("san.ext"), "-out", path("server.pem")])
        let passwd = try runProcess("/usr/bin/mosquitto_passwd", ["-c", "-b", path("passwords"), user, password])
        XCTAssertEqual(passwd.status, 0, passwd.stderr)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("db"), withIntermediateDirectories: true)
        // Started as root, mosquitto would drop to its own user, who cannot read this folder.
        try """
            \(getuid() == 0 ? "user root" : "")
            per_listener_settings false
            allow_anonymous false
            password_file \(path("passwords"))
            persistence true
            persistence_location \(path("db"))/
            listener \(port) 127.0.0.1
            listener \(tlsPort) 127.0.0.1
            cafile \(ca)
            certfile \(path("server.pem"))
            keyfile \(path("server.key"))

            """.write(toFile: path("mosquitto.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    /// Starts the broker and waits until both listeners accept connections.
    func start() throws {
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        broker.arguments = ["-c", dir.appendingPathComponent("mosquitto.conf").path]
        broker.standardOutput = FileHandle.nullDevice
        broker.standardError = try FileHandle(forWritingTo: logFile())
        try broker.run()
        process = broker
        waitUntil(seconds: 10) { [port, tlsPort].allSatisfy(Self.accepts) }
        guard broker.isRunning else { throw "mosquitto did not start: \(try String(contentsOf: logFile(), encoding: .utf8))" }
    }

    private func logFile() throws -> URL {
        let url = dir.appendingPathComponent("mosquitto.log")
        if !FileManager.default.fileExists(atPath: url.path) { FileManager.default.createFile(atPath: url.path, contents: nil) }
        return url
    }

    /// Stops it as a service manager would (SIGTERM: it saves its state).
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit {
        subscribers.forEach { $0.terminate() }
        stop()
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Starts `mosquitto_sub` on `topic` at QoS 1 with a session the broker keeps (it gets what
    /// was published while it was away), writing "TOPIC PAYLOAD" lines to the file it returns. It
    /// runs until this broker is released.
    func subscribe(_ topic: String) throws -> URL {
        let output = dir.appendingPathComponent("received.txt")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let sub = Process()
        sub.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        sub.arguments = ["-h", "127.0.0.1", "-p", String(port), "-u", user, "-P", password, "-t", topic, "-q", "1",
                         "-c", "-i", "test-subscriber-\(port)", "-F", "%t %p"]
        sub.standardOutput = try FileHandle(forWritingTo: output)
        sub.standardError = FileHandle.nullDevice
        try sub.run()
        subscribers.append(sub)
        return output
    }
}

/// `capture --publish`: the records reach a real MQTT broker (mosquitto) as they are written,
/// byte for byte; the broker going away costs nothing that fits the queue; refused credentials and
/// a CA that does not match stop the capture before any frame; a killed capture reads `offline`.
final class PublishTests: XCTestCase {
    private let streamPorts = (Int.random(in: 20_000..<40_000), Int.random(in: 40_000..<60_000))
    private var source: String { "udp://127.0.0.1:\(streamPorts.0)" }
    private var otherSource: String { "udp://127.0.0.1:\(streamPorts.1)" }

    /// ffmpeg sending `seconds` of the sample to `url` at its real rate (in the background).
    private func sender(_ url: String, seconds: Double) throws -> Process {
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-t", String(seconds), "-i", Fixtures.sample,
                            "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "15", "-threads", "1",
                            "-f", "mpegts", url + "?pkt_size=1316"]
        try ffmpeg.run()
        return ffmpeg
    }

    /// `sightline capture ARGUMENTS --publish mqtt://…/shop` as a process, with the credentials in
    /// its environment.
    private func startCapture(_ arguments: [String], broker: TestBroker, stderr: URL) throws -> Process {
        FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let capture = Process()
        capture.executableURL = URL(fileURLWithPath: Fixtures.binary)
        capture.arguments = ["capture"] + arguments + ["--publish", "mqtt://127.0.0.1:\(broker.port)/shop"]
        capture.environment = ProcessInfo.processInfo.environment.merging(
            ["SIGHTLINE_MQTT_USERNAME": broker.user, "SIGHTLINE_MQTT_PASSWORD": broker.password]) { $1 }
        capture.standardError = try FileHandle(forWritingTo: stderr)
        try capture.run()
        return capture
    }

    /// The subscriber's messages on `topic`, in order.
    private func messages(_ file: URL, topic: String) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            line.hasPrefix(topic + " ") ? String(line.dropFirst(topic.count + 1)) : nil
        }
    }

    /// Two cameras, each fed the sample for 6 s by a UDP sender, in one capture; the broker is
    /// stopped for 3 s in the middle and started again. For each camera, every observed frame
    /// record of its file reaches the subscriber, in order, byte for byte (QoS 1 may deliver those
    /// in flight again across the restart); its stream record is retained and names it; its status reads
    /// online, and offline at the end; its track records come as events, and its summary counts
    /// nothing unpublished and gives the latency.
    func testTwoCamerasReachTheBrokerByteForByteAcrossABrokerRestart() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let broker = try TestBroker(in: dir)
        let received = try broker.subscribe("shop/#")
        usleep(300_000)
        let out = dir.appendingPathComponent("records")
        let stderrFile = dir.appendingPathComponent("stderr.txt")
        let capture = try startCapture(["--camera", "door=\(source)", "--camera", "till=\(otherSource)", "-q", "-o", out.path,
                                        "--min-face", "40"], broker: broker, stderr: stderrFile)
        usleep(500_000)
        let senders = [try sender(source, seconds: 6), try sender(otherSource, seconds: 6)]
        sleep(2)
        broker.stop()
        sleep(3)
        try broker.start()
        senders.forEach { $0.waitUntilExit() }
        usleep(500_000)
        kill(capture.processIdentifier, SIGINT)
        XCTAssertTrue(waitForExit(of: capture, timeout: 30), "capture did not stop on SIGINT")
        let stderr = try String(contentsOf: stderrFile, encoding: .utf8)
        XCTAssertEqual(capture.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("door: mqtt://127.0.0.1:\(broker.port)/shop: connection lost"), stderr)
        XCTAssertTrue(stderr.contains("connected again"), stderr)
        for camera in ["door", "till"] {
            let lines = try String(contentsOf: out.appendingPathComponent("\(camera).jsonl"), encoding: .utf8)
                .split(separator: "\n").map(String.init)
            let observed = lines.filter { $0.hasPrefix(#"{"type":"frame""#) && ($0.contains(#""faces":[{"#) || $0.contains(#""codes":[{"#)) }
            // Two 720p cameras on two cores: most frames are dropped, the others show faces and codes.
            XCTAssertGreaterThan(observed.count, 10, "\(camera): the sample shows faces and codes on every frame")
            // The subscriber is given time to be sent what its session kept.
            var frames: [String] = []
            try waitUntil(seconds: 15) {
                // QoS 1: the messages whose acknowledgements the restart lost come again (all
                // those in flight, so a run of them), as a subscriber sees them: a frame record it
                // already has (its index) is dropped.
                var seen = Set<String>()
                frames = try self.messages(received, topic: "shop/\(camera)/frame").filter { seen.insert($0).inserted }
                return frames.count >= observed.count
            }
            XCTAssertEqual(frames.count, observed.count, camera)
            XCTAssertEqual(frames, observed, "\(camera): the published frame records are the file's observed frames, in order")
            XCTAssertEqual(try messages(received, topic: "shop/\(camera)/stream").first, lines.first, camera)
            XCTAssertTrue(lines.first?.contains(#""camera_name":"\#(camera)""#) == true, lines.first ?? "")
            // Online once connected; offline while the broker's restart stood for the capture's
            // last will, online again, and offline at the end.
            let statuses = try messages(received, topic: "shop/\(camera)/status")
            XCTAssertTrue(statuses.contains("online"), "\(camera): \(statuses)")
            XCTAssertEqual(statuses.last, "offline", camera)
            let events = try messages(received, topic: "shop/\(camera)/event")
            let tracks = lines.filter { $0.hasPrefix(#"{"type":"track""#) }
            XCTAssertFalse(tracks.isEmpty, camera)
            XCTAssertEqual(Set(events.filter { $0.hasPrefix(#"{"type":"track""#) }), Set(tracks), camera)
            XCTAssertTrue(events.contains { $0.hasPrefix(#"{"type":"event","event":"track_begun""#) }, "\(events.prefix(3))")
            let summary = try XCTUnwrap(try jsonLines(Data((lines.last ?? "").utf8)).first)
            XCTAssertEqual(summary["unpublished"] as? Int, 0, "\(summary)")
            let latency = try XCTUnwrap(summary["latency_ms"] as? [String: Any], "\(summary)")
            XCTAssertEqual(latency["frames"] as? Int, summary["frames"] as? Int)
            XCTAssertEqual(events.last, lines.last, "\(camera): the summary is the last event")
        }
        // The files, and every message, against the schemas (event records among them).
        let script = Fixtures.repo.appendingPathComponent("Scripts/validate_records.py").path
        for camera in ["door", "till"] {
            let valid = try runProcess("/usr/bin/python3", ["-W", "ignore", script, out.appendingPathComponent("\(camera).jsonl").path])
            XCTAssertEqual(valid.status, 0, valid.stdoutText + valid.stderr)
        }
        let payloads = dir.appendingPathComponent("payloads.jsonl")
        let records = try String(contentsOf: received, encoding: .utf8).split(separator: "\n")
            .compactMap { $0.split(separator: " ", maxSplits: 1).last }.filter { $0.hasPrefix("{") }
        try (records.joined(separator: "\n") + "\n").write(to: payloads, atomically: true, encoding: .utf8)
        let messages = try runProcess("/usr/bin/python3", ["-W", "ignore", script, "--messages", payloads.path])
        XCTAssertEqual(messages.status, 0, messages.stdoutText + messages.stderr)
        XCTAssertTrue(records.contains { $0.hasPrefix(#"{"type":"event""#) })
    }

    /// A wrong password, and a CA that did not sign the broker's certificate: one line each with
    /// the documented code (77, 69), the password in neither, and no records file (no frame analyzed).
    func testRefusedCredentialsAndAForeignCAStopBeforeAnyFrame() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let broker = try TestBroker(in: dir)
        let out = dir.appendingPathComponent("never.jsonl").path
        let wrong = sightline(["capture", source, "-q", "-o", out, "--publish", "mqtt://127.0.0.1:\(broker.port)/shop"],
                              environment: ["SIGHTLINE_MQTT_USERNAME": broker.user, "SIGHTLINE_MQTT_PASSWORD": "not the password"])
        XCTAssertEqual(wrong.status, 77, wrong.stderr)
        XCTAssertEqual(wrong.stderr.split(separator: "\n").count, 1, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("refused the credentials"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("not the password"), wrong.stderr)

        // TLS through the binary: one handshake per process, as a capture makes (OpenSSL keeps a
        // failed handshake's errors for the thread that made it).
        let credentials = dir.appendingPathComponent("credentials").path
        try "\(broker.user)\n\(broker.password)\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        let foreign = try sightlineBinary("capture", source, "-q", "-o", out, "--publish", "mqtts://127.0.0.1:\(broker.tlsPort)/shop",
                                          "--publish-ca", broker.otherCA, "--publish-credentials", credentials)
        XCTAssertEqual(foreign.status, 69, foreign.stderr)
        XCTAssertEqual(foreign.stderr.split(separator: "\n").count, 1, foreign.stderr)
        XCTAssertTrue(foreign.stderr.contains("TLS handshake failed"), foreign.stderr)
        XCTAssertFalse(foreign.stderr.contains(broker.password), foreign.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))

        // The right CA and credentials over TLS: the broker takes the connection (the capture then
        // waits for its stream, which never comes: 66).
        let tls = try sightlineBinary("capture", source, "-q", "-o", out, "--publish", "mqtts://127.0.0.1:\(broker.tlsPort)/shop",
                                      "--publish-ca", broker.ca, "--publish-credentials", credentials, "--faces", "off")
        XCTAssertEqual(tls.status, 66, tls.stderr)
        XCTAssertTrue(tls.stderr.contains(source), tls.stderr)
    }

    /// Options that cannot work are refused before anything opens: one line, exit 64.
    func testCameraAndBrokerOptionsThatCannotWorkAreRefused() {
        for arguments in [["--camera", "door=\(source)", "--camera", "door=\(otherSource)", "-o", "/tmp"],
                          ["--camera", "door=\(source)"],
                          ["--camera", "door=http://127.0.0.1/x", "-o", "/tmp"],
                          ["--camera", "=\(source)", "-o", "/tmp"],
                          ["--camera", "door=\(source)", source, "-o", "/tmp"],
                          [source, "--publish", "http://127.0.0.1/shop"],
                          [source, "--publish", "mqtt://user:secret@127.0.0.1/shop"],
                          [source, "--publish", "mqtt://127.0.0.1/shop", "--publish-ca", "/tmp/ca.pem"],
                          [source, "--publish-credentials", "/tmp/credentials"]] {
            let run = sightline(["capture"] + arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("secret"), run.stderr)
        }
    }

    /// A capture killed with SIGKILL cannot say goodbye: the broker publishes its last will, and
    /// the retained status reads `offline`.
    func testAKilledCaptureReadsOffline() throws {
        let dir = try Fixtures.temporaryDirectory(self)
        let broker = try TestBroker(in: dir)
        let received = try broker.subscribe("shop/+/status")
        let capture = try startCapture([source, "-q", "-o", dir.appendingPathComponent("r.jsonl").path, "--faces", "off"],
                                       broker: broker, stderr: dir.appendingPathComponent("stderr.txt"))
        let send = try sender(source, seconds: 4)
        defer { send.terminate() }
        try waitUntil(seconds: 10) { try messages(received, topic: "shop/camera/status") == ["online"] }
        XCTAssertEqual(try messages(received, topic: "shop/camera/status"), ["online"])
        kill(capture.processIdentifier, SIGKILL)
        capture.waitUntilExit()
        try waitUntil(seconds: 10) { try messages(received, topic: "shop/camera/status").last == "offline" }
        XCTAssertEqual(try messages(received, topic: "shop/camera/status"), ["online", "offline"])
    }
}

/// Checks `condition` every 50 ms until it holds or `seconds` have passed (the caller asserts after).
private func waitUntil(seconds: Double, _ condition: () throws -> Bool) rethrows {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition(), Date() < deadline { usleep(50_000) }
}
