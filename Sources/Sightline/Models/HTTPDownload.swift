import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streams the body of an http(s) URL into a sink, chunk by chunk, with Foundation's URLSession
/// (libcurl on Linux). Fails on a non-2xx status, on a transfer cut short (fewer bytes than the
/// Content-Length), on a body larger than `limit`, and when the sink throws.
///
/// `@unchecked Sendable`: the delegate callbacks run one at a time on the session's serial queue,
/// and `run` reads the state only after the completion callback has signalled the semaphore.
final class HTTPDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let sink: (Data) throws -> Void
    private let limit: Int
    private var failure: Error?
    private var received = 0
    private var expectedLength: Int64 = -1
    private let done = DispatchSemaphore(value: 0)

    private init(limit: Int, sink: @escaping (Data) throws -> Void) {
        self.limit = limit
        self.sink = sink
    }

    /// Downloads `url`; returns when the transfer is complete, or throws.
    /// `timeout`: seconds without any data before giving up.
    static func run(url: URL, limit: Int, timeout: TimeInterval = 30, sink: @escaping (Data) throws -> Void) throws {
        let download = HTTPDownload(limit: limit, sink: sink)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: queue)
        var request = URLRequest(url: url)
        request.setValue("sightline/\(sightlineVersion)", forHTTPHeaderField: "User-Agent")
        let task = session.dataTask(with: request)
        task.resume()
        download.done.wait()
        session.finishTasksAndInvalidate()
        if let failure = download.failure { throw failure }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            failure = "HTTP status \(http.statusCode) (\(HTTPURLResponse.localizedString(forStatusCode: http.statusCode)))"
            completionHandler(.cancel)
            return
        }
        expectedLength = response.expectedContentLength
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil else { return }
        received += data.count
        if received > limit {
            failure = "the server sent more than the \(limit - 1) bytes expected"
            dataTask.cancel()
            return
        }
        do {
            try sink(data)
        } catch {
            failure = error
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if failure == nil, let error {
            let code = (error as? URLError)?.code
            failure = code == .networkConnectionLost && expectedLength >= 0
                ? "the connection closed after \(received) of \(expectedLength) bytes"
                : "\(ModelStore.reason(error))"
        }
        if failure == nil, expectedLength >= 0, Int64(received) != expectedLength {
            failure = "the connection closed after \(received) of \(expectedLength) bytes"
        }
        done.signal()
    }
}
