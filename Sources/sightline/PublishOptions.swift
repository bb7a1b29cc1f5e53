import ArgumentParser
import Foundation
import Sightline

/// `capture --publish`: the MQTT broker the records also go to, and how to reach it safely.
struct PublishOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        Also publish the records to this MQTT broker (QoS 1), NAME being the camera's (--camera \
        NAME=SOURCE; "camera" for a single one): PREFIX/NAME/stream (retained), \
        PREFIX/NAME/frame, PREFIX/NAME/event and PREFIX/NAME/status (online/offline, retained, with a \
        last will). mqtts:// uses TLS (port 8883 unless given). User name and password come from \
        --publish-credentials or SIGHTLINE_MQTT_USERNAME and SIGHTLINE_MQTT_PASSWORD, never the URL. \
        Unreachable broker or failed TLS handshake: exit 69; credentials refused: exit 77; both \
        before any frame is analyzed.
        """, valueName: "mqtt://HOST[:PORT]/PREFIX"))
    var publish: String?

    @Option(name: .customLong("publish-frames"), help: "Which frame records to publish: all, observed (a face or a code), or none.")
    var frames: PublishedFrames = .observed

    @Option(name: .customLong("publish-credentials"), help: ArgumentHelp(
        "A file whose first line is the user name and second line the password.", valueName: "FILE"))
    var credentials: String?

    @Option(name: .customLong("publish-ca"), help: ArgumentHelp("mqtts://: the CA certificate that signed the broker's (default: the system's CAs).", valueName: "FILE"))
    var caFile: String?

    @Option(name: .customLong("publish-cert"), help: ArgumentHelp("mqtts://: a client certificate (with --publish-key).", valueName: "FILE"))
    var certFile: String?

    @Option(name: .customLong("publish-key"), help: ArgumentHelp("mqtts://: the client certificate's private key.", valueName: "FILE"))
    var keyFile: String?

    func validate() throws {
        guard let publish else {
            if credentials != nil || caFile != nil || certFile != nil || keyFile != nil {
                throw ValidationError("--publish-credentials, --publish-ca, --publish-cert and --publish-key need --publish.")
            }
            return
        }
        let options: BrokerOptions
        do { options = try BrokerOptions(url: publish) } catch { throw ValidationError("--publish: \(error)") }
        if !options.tls, caFile != nil || certFile != nil || keyFile != nil {
            throw ValidationError("--publish-ca, --publish-cert and --publish-key are for mqtts:// URLs.")
        }
        if (certFile == nil) != (keyFile == nil) { throw ValidationError("give --publish-cert and --publish-key together.") }
    }

    /// The broker's settings, with the credentials read from their file or the environment.
    func broker() throws -> BrokerOptions? {
        guard let publish else { return nil }
        var options = try BrokerOptions(url: publish)
        (options.caFile, options.certFile, options.keyFile) = (caFile, certFile, keyFile)
        if let credentials {
            guard let text = try? String(contentsOfFile: credentials, encoding: .utf8) else {
                throw SightlineError.inputUnreadable(path: credentials, reason: "cannot read the credentials file")
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .init(charactersIn: "\r")) }
            guard let user = lines.first, !user.isEmpty else {
                throw SightlineError.inputUnreadable(path: credentials, reason: "the first line (the user name) is empty")
            }
            (options.username, options.password) = (user, lines.count > 1 ? lines[1] : nil)
        } else if let user = ProcessInfo.processInfo.environment["SIGHTLINE_MQTT_USERNAME"], !user.isEmpty {
            (options.username, options.password) = (user, ProcessInfo.processInfo.environment["SIGHTLINE_MQTT_PASSWORD"])
        }
        return options
    }
}

extension PublishedFrames: ExpressibleByArgument {}
