import Foundation
import CFuzzerDriver
import FuzzSupport
import Sightline

/// `sightline models fetch NAME --from http://…`: the input is the server's whole answer (status
/// line, headers, body) on a local socket. Every answer must end in an installed model or a clean
/// fetch or checksum error, with no partial file left in the cache.
private let server = OneShotHTTPServer()
private let store: ModelStore = {
    let cache = NSTemporaryDirectory() + "sightline-fuzz-models-\(getpid())"
    return ModelStore(environment: ["XDG_CACHE_HOME": cache])
}()
private let model = KnownModel.all[0]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelFetch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    server.answer = Data(FuzzInput.bytes(data, size))
    _ = try? store.fetch(model, from: "http://127.0.0.1:\(server.port)/\(model.file)")
    // Nothing of this input outlives it (the leak check at exit would count it).
    server.answer = Data()
    let left = (try? FileManager.default.contentsOfDirectory(atPath: store.cacheDirectory)) ?? []
    precondition(!left.contains { $0.hasSuffix(".part") }, "a partial download was left in the cache: \(left)")
    // An installed file would make the next fetch a no-op.
    for file in left { unlink(store.cacheDirectory + "/" + file) }
    return 0
}

/// Answers each connection on 127.0.0.1 with `answer`, then closes it.
final class OneShotHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `answer` is only touched under `lock`. (A fetch may give up before the
    // server has sent everything; setting the next answer then raced with the send and leaked
    // the old answer's storage, found by the fuzzer's leak check.)
    private var stored = Data()
    private let lock = NSLock()
    var answer: Data {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
    let port: UInt16
    private let listener: Int32

    init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                precondition(bind(listener, pointer, length) == 0 && listen(listener, 16) == 0, "cannot listen")
                getsockname(listener, pointer, &length)
            }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            // Read the request head (up to the blank line), then answer and close.
            var request = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
                let n = read(client, &chunk, chunk.count)
                if n <= 0 { break }
                request += chunk[0..<n]
            }
            let answer = self.answer
            answer.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = send(client, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(client)
        }
    }
}

/// The executable's entry point in debug builds (SwiftPM renames `main`): libFuzzer's driver.
@_cdecl("FuzzModelFetch_main")
func fuzzModelFetchMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    sightline_fuzz_main(argc, argv) { data, size in fuzzModelFetch(data, size) }
}
