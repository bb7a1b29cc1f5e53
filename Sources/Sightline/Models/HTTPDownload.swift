import CCurl
import Foundation
import SightlineFrames

/// Why a download failed; the description is the reason `models fetch` prints.
package enum DownloadError: Error, CustomStringConvertible {
    case setup
    case cutShort(received: Int, expected: Int)
    case status(Int)
    case tooLarge(limit: Int)
    case transfer(String)

    package var description: String {
        switch self {
        case .setup: return "cannot set up libcurl"
        case let .cutShort(received, expected): return "the connection closed after \(received) of \(expected) bytes"
        case .status(let status): return "HTTP status \(status)"
        case .tooLarge(let limit): return "the server sent more than the \(limit - 1) bytes expected"
        case .transfer(let reason): return reason
        }
    }
}

/// Streams the body of an http(s) URL into a sink, chunk by chunk, with libcurl. Fails on a
/// non-2xx status, on a transfer cut short (fewer bytes than the Content-Length), on a body
/// larger than `limit`, and when the sink throws.
///
/// libcurl directly, not Foundation's URLSession: URLSession stops the process with a fatal error
/// ("Transfer completed, but there's no response") when a server closes the connection inside its
/// headers, which any server can do (Tests/Regressions/fuzz/FuzzModelFetch).
package final class HTTPDownload {
    private let sink: (Data) throws -> Void
    private let limit: Int
    private var failure: Error?
    private var received = 0
    private let curl: UnsafeMutableRawPointer

    /// libcurl's process-wide setup, done once before the first transfer.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    private init(curl: UnsafeMutableRawPointer, limit: Int, sink: @escaping (Data) throws -> Void) {
        self.curl = curl
        self.limit = limit
        self.sink = sink
    }

    /// Downloads `url`; returns when the transfer is complete, or throws.
    /// `timeout`: seconds without any data before giving up.
    package static func run(url: URL, limit: Int, timeout: TimeInterval = 30, sink: @escaping (Data) throws -> Void) throws {
        guard initialized, let curl = curl_easy_init() else { throw DownloadError.setup }
        defer { curl_easy_cleanup(curl) }
        let download = HTTPDownload(curl: curl, limit: limit, sink: sink)
        let context = Unmanaged.passUnretained(download).toOpaque()
        let seconds = max(1, Int(timeout.rounded(.up)))
        sl_curl_set_string(curl, CURLOPT_URL, url.absoluteString)
        sl_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
        sl_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        sl_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1)
        sl_curl_set_long(curl, CURLOPT_MAXREDIRS, 5)
        sl_curl_set_string(curl, CURLOPT_USERAGENT, "sightline/\(sightlineVersion)")
        sl_curl_set_long(curl, CURLOPT_NOSIGNAL, 1)
        sl_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT, seconds)
        // Less than 1 byte a second for `timeout` seconds: the server has stopped sending.
        sl_curl_set_long(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
        sl_curl_set_long(curl, CURLOPT_LOW_SPEED_TIME, seconds)
        sl_curl_set_callback(curl, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let download = Unmanaged<HTTPDownload>.fromOpaque(context!).takeUnretainedValue()
            return download.receive(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        sl_curl_set_pointer(curl, CURLOPT_WRITEDATA, context)
        let result = curl_easy_perform(curl)
        if let failure = download.failure { throw failure }
        let status = sl_curl_response_code(curl)
        let expected = sl_curl_content_length(curl)
        if result == CURLE_PARTIAL_FILE || (result == CURLE_OK && expected >= 0 && Int64(download.received) != expected) {
            throw DownloadError.cutShort(received: download.received, expected: expected)
        }
        guard result == CURLE_OK else { throw DownloadError.transfer(String(cString: curl_easy_strerror(result))) }
        try checkStatus(status)
    }

    private static func checkStatus(_ status: Int) throws {
        guard (200..<300).contains(status) else { throw DownloadError.status(status) }
    }

    /// One chunk of the body; false stops the transfer.
    private func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        do {
            try Self.checkStatus(sl_curl_response_code(curl))
            received += chunk.count
            if received > limit { throw DownloadError.tooLarge(limit: limit) }
            try sink(Data(chunk))
            return true
        } catch {
            failure = error
            return false
        }
    }
}
