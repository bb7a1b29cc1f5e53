import CMosquitto
import Foundation
import Synchronization
import SightlineFrames

/// Where and how `capture --publish` reaches its MQTT broker.
public struct BrokerOptions: Sendable {
    public var host: String
    public var port: Int
    /// The topics' first levels (`PREFIX/NAME/frame`…); may be empty.
    public var prefix: String
    public var tls: Bool
    /// TLS: the CA that signed the broker's certificate, and a client certificate and key if given.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// Read from a file or the environment, never from the command line.
    public var username: String?
    public var password: String?
    /// Messages handed to the client and not yet acknowledged by the broker, at most: past that,
    /// records are not published (counted as `unpublished`).
    public var queueCapacity = 600
    /// How long the end of a run waits for the queue to drain.
    public var drainSeconds = 5.0

    /// Parses `mqtt://HOST[:PORT]/PREFIX` or `mqtts://HOST[:PORT]/PREFIX` (port 1883 or 8883).
    public init(url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "mqtt" || scheme == "mqtts", let host = components.host, !host.isEmpty else {
            throw SightlineError.brokerUnavailable(url: url, reason: "not an mqtt:// or mqtts:// URL with a host")
        }
        guard components.user == nil, components.password == nil else {
            var shown = components
            (shown.user, shown.password) = (nil, nil)
            throw SightlineError.brokerUnavailable(url: shown.string ?? "the --publish URL",
                                                   reason: "credentials never go in the URL (use --publish-credentials or SIGHTLINE_MQTT_USERNAME and SIGHTLINE_MQTT_PASSWORD)")
        }
        self.host = host
        tls = scheme == "mqtts"
        port = components.port ?? (tls ? 8883 : 1883)
        prefix = components.path.split(separator: "/").joined(separator: "/")
        guard !prefix.contains("+"), !prefix.contains("#") else {
            throw SightlineError.brokerUnavailable(url: url, reason: "the topic prefix may not hold + or #")
        }
    }

    /// The topic `NAME/LEAF` under the prefix.
    public func topic(_ camera: String, _ leaf: String) -> String {
        (prefix.isEmpty ? "" : prefix + "/") + camera + "/" + leaf
    }

    /// The URL as messages show it.
    var safeURL: String { "\(tls ? "mqtts" : "mqtt")://\(host):\(port)/\(prefix)" }
}

/// One camera's MQTT connection (libmosquitto, MQTT 3.1.1, QoS 1), with its status topic as the
/// connection's last will.
///
/// Publishing never waits for the broker: a message is handed to libmosquitto, which keeps it until
/// the broker acknowledges it and sends it again after a reconnection (its network thread
/// reconnects with back-off). At most `queueCapacity` messages wait; a message that finds the
/// queue full is not published and counted. Connecting waits for the broker's answer, so refused
/// credentials or a failed TLS handshake stop a capture before any frame is analyzed.
public final class MQTTPublisher: @unchecked Sendable {
    // @unchecked Sendable: the handle is used through libmosquitto's thread-safe calls; the
    // counters live in the mutex.
    public let options: BrokerOptions
    private let client: OpaquePointer
    /// Told of connection changes and of messages not published (standard error).
    private let log: @Sendable (String) -> Void

    private struct State {
        var connected = false
        /// The first CONNACK's result (nil: none yet).
        var firstAnswer: Int32?
        /// What the client logged when the connection failed before the broker answered.
        var failure: String?
        /// Messages handed to the client, not yet acknowledged.
        var waiting = 0
        var unpublished = 0
    }
    private let state = Mutex(State())
    private let answered = DispatchSemaphore(value: 0)
    /// `firstAnswer` when the connection closed before any CONNACK.
    private static let closedUnanswered: Int32 = -1
    /// The camera's retained status topic: `online` while connected, `offline` at the end (the
    /// last will says it if the process dies).
    private let statusTopic: String

    /// Connects (waiting up to 10 s for the broker's answer) and starts the network thread.
    /// `camera`: whose records these are (in the client id: a broker drops the older of two
    /// connections with one id). `will`: the status topic that reads `offline` if the process dies.
    public init(options: BrokerOptions, camera: String, will: String, log: @escaping @Sendable (String) -> Void) throws {
        self.options = options
        self.log = log
        statusTopic = will
        mosquitto_lib_init()
        let id = "sightline-\(ProcessInfo.processInfo.hostName.prefix(40))-\(getpid())-\(camera.prefix(64))"
        guard let client = mosquitto_new(id, true, nil) else {
            throw SightlineError.brokerUnavailable(url: options.safeURL, reason: "cannot create an MQTT client")
        }
        self.client = client
        mosquitto_user_data_set(client, Unmanaged.passUnretained(self).toOpaque())
        do {
            try configure()
            try connect()
        } catch {
            mosquitto_destroy(client)
            throw error
        }
    }

    private func configure() throws {
        let url = options.safeURL
        func check(_ rc: Int32, _ what: String) throws {
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw SightlineError.brokerUnavailable(url: url, reason: "\(what): \(String(cString: mosquitto_strerror(rc)))")
            }
        }
        if let username = options.username {
            try check(mosquitto_username_pw_set(client, username, options.password), "credentials")
        }
        if options.tls {
            for file in [options.caFile, options.certFile, options.keyFile].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
                throw SightlineError.inputUnreadable(path: file, reason: "no such readable file (TLS for \(url))")
            }
            try check(mosquitto_tls_set(client, options.caFile, options.caFile == nil ? "/etc/ssl/certs" : nil,
                                        options.certFile, options.keyFile, nil), "TLS settings")
        }
        try check(mosquitto_will_set(client, statusTopic, 7, "offline", 1, true), "last will")
        mosquitto_reconnect_delay_set(client, 1, 8, true)
        mosquitto_connect_callback_set(client) { _, context, rc in
            MQTTPublisher.from(context)?.connected(rc)
        }
        mosquitto_disconnect_callback_set(client) { _, context, rc in
            MQTTPublisher.from(context)?.disconnected(rc)
        }
        mosquitto_publish_callback_set(client) { _, context, _ in
            MQTTPublisher.from(context)?.acknowledged()
        }
        // A TLS handshake that fails on the network thread only shows in the client's log.
        mosquitto_log_callback_set(client) { _, context, level, message in
            guard level & MOSQ_LOG_ERR != 0, let message else { return }
            MQTTPublisher.from(context)?.failed(String(cString: message))
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTPublisher? {
        context.map { Unmanaged<MQTTPublisher>.fromOpaque($0).takeUnretainedValue() }
    }

    private func connect() throws {
        let url = options.safeURL
        let rc = mosquitto_connect(client, options.host, Int32(options.port), 10)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            let reason = rc == MOSQ_ERR_TLS.rawValue ? "TLS handshake failed (the broker's certificate is not signed by the CA given, or not for \(options.host))"
                : rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
            throw SightlineError.brokerUnavailable(url: url, reason: reason)
        }
        mosquitto_loop_start(client)
        guard answered.wait(timeout: .now() + 10) == .success, let answer = state.withLock({ $0.firstAnswer }) else {
            mosquitto_disconnect(client)
            mosquitto_loop_stop(client, true)
            throw SightlineError.brokerUnavailable(url: url, reason: "no answer to CONNECT within 10 s")
        }
        guard answer == 0 else {
            mosquitto_loop_stop(client, true)
            if answer == Self.closedUnanswered {
                let logged = state.withLock { $0.failure }.map { " (\($0))" } ?? ""
                throw SightlineError.brokerUnavailable(url: url, reason: options.tls
                    ? "TLS handshake failed: the broker's certificate is not for \(options.host), or not signed by the CA given\(logged)"
                    : "the connection closed before the broker answered\(logged)")
            }
            // CONNACK 4: bad user name or password; 5: not authorized.
            if answer == 4 || answer == 5 {
                throw SightlineError.permissionDenied(path: url, reason: "the broker refused the credentials (\(String(cString: mosquitto_connack_string(answer))))")
            }
            throw SightlineError.brokerUnavailable(url: url, reason: "connection refused: \(String(cString: mosquitto_connack_string(answer)))")
        }
    }

    private func connected(_ rc: Int32) {
        let first = state.withLock { state -> Bool in
            let first = state.firstAnswer == nil
            if first { state.firstAnswer = rc }
            state.connected = rc == 0
            return first
        }
        if first {
            answered.signal()
        } else if rc == 0 {
            log("\(options.safeURL): connected again")
            // The broker may have lost its retained messages while it was away.
            announce()
        }
    }

    /// An error the client logged: before the broker's first answer, the connection failed.
    private func failed(_ message: String) {
        let unanswered = state.withLock { state in
            guard state.firstAnswer == nil else { return false }
            state.firstAnswer = Self.closedUnanswered
            state.failure = message
            return true
        }
        if unanswered { answered.signal() }
    }

    private func disconnected(_ rc: Int32) {
        let (wasConnected, unanswered) = state.withLock { state in
            defer { state.connected = false }
            // Closed before the first CONNACK (a TLS handshake the broker or the client gave up).
            let unanswered = state.firstAnswer == nil
            if unanswered { state.firstAnswer = Self.closedUnanswered }
            return (state.connected, unanswered)
        }
        if unanswered { answered.signal() }
        // rc 0: our own disconnect at the end.
        if rc != 0, wasConnected { log("\(options.safeURL): connection lost; records wait (up to \(options.queueCapacity) messages) while it reconnects") }
    }

    private func acknowledged() {
        state.withLock { $0.waiting = max(0, $0.waiting - 1) }
    }

    /// The status topic reads `online`.
    public func announce() { send(statusTopic, Data("online".utf8), retain: true) }

    /// Publishes `payload` at QoS 1; false when the queue is full (the message is dropped).
    @discardableResult
    public func send(_ topic: String, _ payload: Data, retain: Bool = false) -> Bool {
        let (accepted, notPublished) = state.withLock { state -> (Bool, Int) in
            guard state.waiting < options.queueCapacity else {
                state.unpublished += 1
                return (false, state.unpublished)
            }
            state.waiting += 1
            return (true, 0)
        }
        guard accepted else {
            if notPublished == 1 || notPublished % 100 == 0 {
                log("\(options.safeURL): \(options.queueCapacity) messages wait for the broker; \(notPublished) records not published")
            }
            return false
        }
        let rc = payload.withUnsafeBytes { bytes in
            mosquitto_publish(client, nil, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
        }
        // Not connected: libmosquitto keeps a QoS 1 message all the same and sends it once the
        // connection is back (its acknowledgement then counts it off).
        guard rc == MOSQ_ERR_SUCCESS.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue else {
            state.withLock { $0.waiting -= 1; $0.unpublished += 1 }
            return false
        }
        return true
    }

    /// Waits up to `drainSeconds` for the broker to acknowledge every message handed to the
    /// client; returns how many it did not.
    public func drain() -> Int {
        let deadline = Date().addingTimeInterval(options.drainSeconds)
        while state.withLock({ $0.waiting }) > 0, Date() < deadline { usleep(10_000) }
        return state.withLock { $0.waiting }
    }

    /// Sets the status to `offline`, waits for the broker to take what waits, disconnects.
    public func close() {
        send(statusTopic, Data("offline".utf8), retain: true)
        let left = drain()
        if left > 0 { log("\(options.safeURL): \(left) messages not acknowledged by the broker at the end") }
        mosquitto_disconnect(client)
        mosquitto_loop_stop(client, false)
        mosquitto_destroy(client)
    }
}
