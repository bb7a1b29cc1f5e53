import Foundation
import SightlineFrames
import SightlineRecords

/// Known networks kept compiled between runs, in `$XDG_CACHE_HOME/sightline/compiled` (default
/// `~/.cache/sightline/compiled`). Reading, reshaping and compiling CenterFace for the CPU takes
/// about 0.14 s of every run with faces; importing the network OpenVINO compiled and exported
/// before takes about 0.05 s, and infers bit for bit the same.
///
/// Only known models are kept (their sha256 matched the registry), one file per `Key`: the
/// model's sha256, OpenVINO's build, the input's size and batch, streams, threads and precision,
/// and the CPU with oneDNN's limit on its instructions (its compiled kernels use them, and a home
/// folder may be shared by several machines). A file starts with those facts and the size and
/// sha256 of the network after them, all checked before OpenVINO sees the network: a truncated,
/// damaged or mismatched file is compiled again and replaced. Files are written whole or not at
/// all, so runs may share the folder; the least recently used go when there are more than
/// `capacity`. The cache only saves time: a folder that cannot be written is not an error.
/// `SIGHTLINE_COMPILED_CACHE=off` turns it off; the folder can be deleted at any time.
package struct CompiledModelCache: Sendable {
    package let directory: String
    /// The most networks kept (about 7.5 MB each for CenterFace); the least recently used go first.
    package let capacity: Int

    /// The cache for this user, or nil when turned off.
    package init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard environment["SIGHTLINE_COMPILED_CACHE"] != "off" else { return nil }
        self.init(directory: ModelStore.cacheRoot(environment: environment) + "/compiled")
    }

    package init(directory: String, capacity: Int = 32) {
        self.directory = directory
        self.capacity = capacity
    }

    /// What a compiled network depends on, one fact per line.
    package struct Key: Sendable {
        package var modelSHA256: String
        package var runtimeVersion: String
        /// Inputs per inference (region searches run several crops at once).
        package var batch = 1
        package var width: Int
        package var height: Int
        package var streams: Int
        package var threads: Int
        package var precision: DNNPrecision

        package var text: String {
            """
            model sha256 \(modelSHA256)
            openvino \(runtimeVersion)
            input \(batch > 1 ? "\(batch) x " : "")\(width)x\(height)
            streams \(streams) threads \(threads) precision \(precision.rawValue)
            cpu \(Self.cpu)
            """
        }

        /// The CPU's model name, a digest of its instruction flags, and oneDNN's limit on them
        /// (`OneDNNLimit`): OpenVINO refuses to import a network compiled under another limit
        /// ("built for a different runtime configuration").
        package static let cpu: String = {
            let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
            func field(_ name: String) -> String {
                info.split(separator: "\n").first { $0.hasPrefix(name) }
                    .flatMap { $0.split(separator: ":", maxSplits: 1).last }
                    .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
            }
            let limit = OneDNNLimit.isa.map { ", oneDNN limited to \($0)" } ?? ""
            return field("model name") + ", flags " + SHA256.hex(of: Data(field("flags").utf8)) + limit
        }()
    }

    package func path(for key: Key) -> String {
        directory + "/" + SHA256.hex(of: Data(key.text.utf8)) + ".ovnet"
    }

    /// The compiled network kept for `key`, checked, or nil (a slice of the file read, not a
    /// copy). A file used is marked as recently used.
    package func load(_ key: Key) -> Data? {
        let path = path(for: key)
        guard let file = FileManager.default.contents(atPath: path),
              let end = file.firstRange(of: Data("\n\n".utf8)) else { return nil }
        let network = file[end.upperBound...]
        guard String(decoding: file[..<end.lowerBound], as: UTF8.self) == Self.header(key, network: network) else { return nil }
        utimes(path, nil)
        return network
    }

    /// Keeps the network `export` writes to the path it is given (true when it did).
    package func store(_ key: Key, export: (String) -> Bool) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = path(for: key)
        let scratch = path + ".\(getpid()).\(UUID().uuidString).export"
        defer { unlink(scratch) }
        guard export(scratch), let network = FileManager.default.contents(atPath: scratch), !network.isEmpty,
              let file = try? AtomicFile(path: path, unique: true) else { return }
        do {
            try file.write(Data((Self.header(key, network: network) + "\n\n").utf8))
            try file.write(network)
            try file.commit()
        } catch {
            file.discard()
        }
        removeLeastRecentlyUsed()
    }

    /// Keeps the newest `capacity` networks (a folder of videos of many sizes adds one per size).
    private func removeLeastRecentlyUsed() {
        let folder = URL(fileURLWithPath: directory)
        guard let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey]),
              case let networks = files.filter({ $0.pathExtension == "ovnet" }), networks.count > capacity else { return }
        func used(_ url: URL) -> Date { (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantPast }
        for old in networks.sorted(by: { used($0) > used($1) }).dropFirst(capacity) { unlink(old.path) }
    }

    private static func header(_ key: Key, network: Data) -> String {
        "sightline compiled network 1\n" + key.text + "\nnetwork \(network.count) bytes, sha256 " + SHA256.hex(of: network)
    }
}
