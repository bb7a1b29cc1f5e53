import COpenVINO
import Foundation
import Synchronization
import SightlineFrames

/// OpenVINO's CPU runtime, loaded once per process from the library Scripts/install-deps.sh
/// installs (see COpenVINO/shim.h for why it is loaded at run time). It keeps the compiled models
/// per model file and input size: a copy for each worker, or one the workers share (small and
/// large inputs, a live source's, and when memory comes first: `network`); each worker makes its
/// own infer request.
package final class OpenVINORuntime: @unchecked Sendable {
    // @unchecked Sendable: `api` is immutable after loading; the table of compiled models is
    // used under `state`'s lock, each model is compiled under its slot's lock (OpenVINO's core is
    // thread-safe), and infer requests belong to one worker each.

    /// Where libopenvino_c is looked for: `$SIGHTLINE_OPENVINO_LIBRARY` when set (another
    /// installation, or a path that does not exist to run as on a machine without OpenVINO),
    /// else the install script's prefix, then the dynamic loader's own search.
    package static let installedLibrary = "/opt/sightline/openvino-2026.4.1/lib/libopenvino_c.so.2641"

    package static func libraryCandidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let custom = environment["SIGHTLINE_OPENVINO_LIBRARY"], !custom.isEmpty { return [custom] }
        return [installedLibrary, "libopenvino_c.so.2641"]
    }

    private static let shared: Result<OpenVINORuntime, InferenceError> = Result { try OpenVINORuntime() }
        .mapError { $0 as? InferenceError ?? .failed("\($0)") }

    /// The process's runtime, loaded on first use.
    package static func loaded() throws -> OpenVINORuntime { try shared.get() }

    package let api: slv_openvino_api
    /// "2026.4.1-…" (OpenVINO's build number).
    package let version: String

    private struct Key: Hashable {
        var path: String; var batch: Int; var width: Int; var height: Int; var streams: Int; var threads: Int; var precision: DNNPrecision
    }
    private struct State {
        var core: OpaquePointer
        /// The models the workers share, by key.
        var shared: [Key: CompileSlot] = [:]
        /// The workers' own copies, by key, and those a session holds now (`network`, `release`).
        var copies: [Key: [CompileSlot]] = [:]
        var leased: Set<ObjectIdentifier> = []
        /// Model files already checked, with the outputs asked for (each worker's session asks).
        var validated: Set<[String]> = []
        /// A checked model not compiled yet, by file and outputs: the first compilation takes it
        /// instead of reading the file again (SFace takes about 70 ms to read).
        var unused: [[String]: OpaquePointer] = [:]
    }
    private let state: Mutex<State>

    /// Where one key's compiled model is made once: the first caller compiles it (outside the
    /// runtime's lock, so models of other sizes compile at the same time on other threads), and
    /// later callers wait for it and share it, or its error.
    fileprivate final class CompileSlot: Sendable {
        let made = Mutex<Result<CompiledModel, InferenceError>?>(nil)
    }

    /// A compiled model; freed with the runtime (never: it lives for the process).
    package final class CompiledModel: @unchecked Sendable {
        // @unchecked Sendable: OpenVINO's compiled models may make infer requests from any thread.
        package let handle: OpaquePointer
        /// The exported network an imported model was made from: OpenVINO keeps using its bytes
        /// (the weights are not copied), so they are kept as long as the model, for the process.
        private let imported: UnsafeMutableRawBufferPointer?
        package init(handle: OpaquePointer, imported: UnsafeMutableRawBufferPointer? = nil) {
            self.handle = handle
            self.imported = imported
        }

        /// True when made from a network kept in the cache.
        package var wasImported: Bool { imported != nil }
    }

    private init() throws {
        // Before OpenVINO starts its threads: see the shim.
        slv_limit_malloc_arenas(Self.mallocArenas)
        slv_fix_mmap_threshold(Self.mmapThreshold)
        var api = slv_openvino_api()
        var reasons: [String] = []
        var loaded = false
        for path in Self.libraryCandidates() {
            var missing: UnsafePointer<CChar>?
            if let failure = slv_openvino_load(path, &api, &missing) {
                reasons.append(missing.map { "\(path): \(String(cString: $0)) not found" } ?? String(cString: failure))
                continue
            }
            loaded = true
            break
        }
        guard loaded else {
            throw InferenceError.runtimeMissing(runtime: .openvino, reason: reasons.joined(separator: "; "))
        }
        self.api = api
        var v = ov_version_t()
        if api.get_openvino_version(&v).rawValue == 0, let build = v.buildNumber {
            version = String(cString: build)
            api.version_free(&v)
        } else {
            version = "unknown"
        }
        var core: OpaquePointer?
        let status = api.core_create(&core)
        guard status.rawValue == 0, let core else {
            throw InferenceError.runtimeMissing(runtime: .openvino, reason: "cannot create its core: " + Self.message(api, status))
        }
        state = Mutex(State(core: core))
    }

    /// OpenVINO's message for a failed call: its last error, else the status's description.
    package static func message(_ api: slv_openvino_api, _ status: ov_status_e) -> String {
        if let last = api.get_last_err_msg(), case let text = String(cString: last).trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            // Its messages span lines (file, line, check); one line for ours.
            return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        }
        return api.get_error_info(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
    }

    private func check(_ status: ov_status_e, _ what: @autoclosure () -> String) throws {
        guard status.rawValue == 0 else { throw InferenceError.failed("OpenVINO: \(what()): " + Self.message(api, status)) }
    }

    /// Reads the model file and checks that it has one input and the `outputs` named (so a wrong
    /// file fails before the run starts). Returns the model, to be freed by the caller.
    private func readModel(_ core: OpaquePointer, path: String, outputs: [String]) throws -> OpaquePointer {
        var model: OpaquePointer?
        let status = api.core_read_model(core, path, nil, &model)
        guard status.rawValue == 0, let model else {
            throw InferenceError.modelUnusable(path: path, reason: "OpenVINO cannot read it: " + Self.message(api, status))
        }
        var ok = false
        defer { if !ok { api.model_free(model) } }
        var inputs = 0
        try check(api.model_inputs_size(model, &inputs), "inputs of \(path)")
        guard inputs == 1 else { throw InferenceError.wrongModel(path: path, reason: "it has \(inputs) inputs, not one image") }
        for name in outputs {
            var port: OpaquePointer?
            if api.model_const_output_by_name(model, name, &port).rawValue == 0, let port {
                api.output_const_port_free(port)
                continue
            }
            throw InferenceError.wrongModel(path: path, reason: "it has no output '\(name)' (its outputs: \(outputNames(model).joined(separator: ", ")))")
        }
        ok = true
        return model
    }

    private func outputNames(_ model: OpaquePointer) -> [String] {
        var count = 0
        guard api.model_outputs_size(model, &count).rawValue == 0 else { return [] }
        return (0..<count).compactMap { i in
            var port: OpaquePointer?
            guard api.model_const_output_by_index(model, i, &port).rawValue == 0, let port else { return nil }
            defer { api.output_const_port_free(port) }
            var name: UnsafeMutablePointer<CChar>?
            guard api.port_get_any_name(port, &name).rawValue == 0, let name else { return nil }
            defer { api.free_string(name) }
            return String(cString: name)
        }
    }

    /// Checks the model file (readable, one input, these outputs) without compiling it, once per
    /// process: reading CenterFace takes about 50 ms, and every worker's session asks.
    package func validate(path: String, outputs: [String]) throws {
        try state.withLock { state in
            guard !state.validated.contains([path] + outputs) else { return }
            state.unused[[path] + outputs] = try readModel(state.core, path: path, outputs: outputs)
            state.validated.insert([path] + outputs)
        }
    }

    /// Compilations started ahead of use (`InferenceSession.prepare`).
    package static let background = DispatchQueue(label: "sightline.openvino.prepare", attributes: .concurrent)
    package static let preparing = DispatchGroup()

    /// Waits for the compilations started ahead of use, also those of sessions still alive; the
    /// process calls it before it exits. OpenVINO must not be torn down under a thread still
    /// compiling, and an exit handler is too late: the CPU plugin, loaded by the first
    /// compilation, registers its own teardown after ours, so it ran first (a run shorter than
    /// the compile then crashed or hung at exit).
    package static func finishPreparations() { preparing.wait() }

    /// glibc malloc arenas for the whole process, set when OpenVINO is first loaded.
    package static let mallocArenas: Int32 = 2
    /// Allocations from this size get a mapping of their own (see the shim).
    package static let mmapThreshold: Int32 = 1 << 20

    /// Workers per stream for an input of `width` x `height`: 1, each worker on a model of its
    /// own (`network`), or 2, two workers taking turns on one stream of two threads. One each is
    /// the faster way on 2 cores: as a stream each, it took the default run's wall time down by
    /// about 9 % at 640x352 (720p's default input; the two-thread stream's per-layer
    /// synchronisation costs more than it gains) and 4 % at 960x544 (1080p's), for 24 MiB more.
    /// The activation buffers grow with the input, so two workers share a stream above
    /// `maxPixelsPerWorkerStream` (the full-size 1080p frame), and above
    /// `maxPixelsPerWorkerStreamMemoryFirst` when memory comes first
    /// (`NetworkPriority.memory`: `anonymize` at 1080p, 42 MiB less for the same time).
    package static func requestsPerStream(width: Int, height: Int, priority: NetworkPriority = .speed) -> Int {
        width * height <= (priority == .memory ? maxPixelsPerWorkerStreamMemoryFirst : maxPixelsPerWorkerStream) ? 1 : 2
    }
    package static let maxPixelsPerWorkerStream = 960 * 544
    package static let maxPixelsPerWorkerStreamMemoryFirst = 640 * 384
    /// The smallest input a worker gets a copy of its own for (`network`): the frames' passes,
    /// whole (640x352 at 720p) and tiled (256x288).
    package static let minPixelsPerCopy = 256 * 256

    /// The network one worker runs a batch x 3 x height x width input on, for `workers` workers
    /// (one thread each) in the arithmetic `precision`. When speed comes first (`priority`) and
    /// each worker would have a stream of its own for a frame's pass, it gets a copy of the
    /// model of its own instead, compiled without streams, so that its inference runs on the
    /// worker's own thread rather than being handed to a stream's thread and back: the 720p
    /// camera-like copy in 0.88 of the wall time (1080p: 0.93), for 13 MiB more. The copy is
    /// the worker's until it is `release`d, then the next worker's (a process that runs again
    /// reuses it). Else (small and large inputs, a quick start or memory first) the workers share
    /// one model: a stream each, or two to a stream (`requestsPerStream`).
    /// Made on first use; a known model (`knownSHA256`) goes through the compiled-model cache.
    /// `leased` false (a compilation ahead of use): a copy is made and left to the next worker
    /// that asks, which waits for it if it is still being made.
    package func network(path: String, outputs: [String], batch: Int = 1, width: Int, height: Int, workers: Int,
                         priority: NetworkPriority = .speed, precision: DNNPrecision = .f32, knownSHA256: String? = nil,
                         leased: Bool = true) throws -> Network {
        let perStream = Self.requestsPerStream(width: width, height: height, priority: priority)
        // Each copy is one more import (0.1-0.2 s), or compile (about 2 s) when the compiled-network
        // cache does not hold it. A live source waits for its networks before it starts, so it
        // keeps the streams; so does memory first (`anonymize`, bound by its encoder: copies took
        // it the same time for 10 MiB more at 720p), and so do the small networks (the region
        // search's 96x96 crops, SFace's 112x112), whose passes are short and few.
        let own = perStream == 1 && priority == .speed && width * height >= Self.minPixelsPerCopy
        let streams = own ? 0 : (max(1, workers) + perStream - 1) / perStream
        let key = Key(path: path, batch: batch, width: width, height: height, streams: streams, threads: own ? 1 : max(1, workers),
                      precision: precision)
        let slot = state.withLock { state in
            guard own else {
                let slot = state.shared[key] ?? CompileSlot()
                state.shared[key] = slot
                return slot
            }
            let free = state.copies[key, default: []].first { !state.leased.contains(ObjectIdentifier($0)) }
            let slot = free ?? CompileSlot()
            if free == nil { state.copies[key, default: []].append(slot) }
            if leased { state.leased.insert(ObjectIdentifier(slot)) }
            return slot
        }
        do {
            let model = try slot.made.withLock { made in
                if made == nil {
                    made = Result {
                        try compileOrImport(path: path, outputs: outputs, batch: batch, width: width, height: height, streams: key.streams,
                                            threads: key.threads, precision: precision, knownSHA256: knownSHA256, cache: cache)
                    }.mapError { $0 as? InferenceError ?? .failed("\($0)") }
                }
                return try made!.get()
            }
            return Network(model: model, copy: own && leased ? slot : nil)
        } catch {
            if own && leased { unlease(slot) }
            throw error
        }
    }

    /// A compiled model a worker runs on (`network`): shared, or its own copy until released.
    package struct Network: Sendable {
        package let model: CompiledModel
        fileprivate let copy: CompileSlot?
    }

    /// The worker is done with `network`: its own copy goes to the next worker that asks.
    package func release(_ network: Network) {
        if let copy = network.copy { unlease(copy) }
    }

    private func unlease(_ copy: CompileSlot) {
        _ = state.withLock { $0.leased.remove(ObjectIdentifier(copy)) }
    }

    /// Compiles the model; a known model (`knownSHA256`) is imported from `cache` when it was
    /// kept there, and kept there when it was not.
    package func compileOrImport(path: String, outputs: [String], batch: Int = 1, width: Int, height: Int, streams: Int, threads: Int,
                                 precision: DNNPrecision, knownSHA256: String?, cache: CompiledModelCache?) throws -> CompiledModel {
        let core = state.withLock { $0.core }
        let key = knownSHA256.map {
            CompiledModelCache.Key(modelSHA256: $0, runtimeVersion: version, batch: batch, width: width, height: height,
                                   streams: streams, threads: threads, precision: precision)
        }
        let kept = key.flatMap { cache?.load($0) }
        if let kept, let key, let model = imported(core, network: kept, key: key) { return model }
        let compiled = try compile(core, path: path, outputs: outputs, batch: batch, width: width, height: height, streams: streams,
                                   threads: threads, precision: precision)
        // Not over a sound file this OpenVINO cannot import: every run would write it again.
        if kept == nil, let key, let cache {
            cache.store(key) { api.compiled_model_export_model(compiled.handle, $0).rawValue == 0 }
        }
        return compiled
    }

    /// Where known models are kept compiled between runs (nil: turned off).
    private let cache = CompiledModelCache()
    /// Held while the CPU's defaults are set for an import and the import reads them.
    private let importing = Mutex(())

    /// The exported `network` imported with the settings of `key` (checked on the result), or nil.
    private func imported(_ core: OpaquePointer, network: Data, key: CompiledModelCache.Key) -> CompiledModel? {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: network.count, alignment: 64)
        network.copyBytes(to: bytes)
        let model = importing.withLock { _ -> CompiledModel? in
            let set = withUnsafePointer(to: api) {
                slv_openvino_set_cpu_defaults($0, core, String(key.streams), String(key.threads), key.precision.inferenceHint)
            }
            var handle: OpaquePointer?
            guard set.rawValue == 0,
                  api.core_import_model(core, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, "CPU", &handle).rawValue == 0,
                  let handle else { return nil }
            guard property(handle, "NUM_STREAMS") == String(key.streams),
                  // A model compiled without streams says 0: it runs on its caller's thread.
                  property(handle, "INFERENCE_NUM_THREADS") == String(key.streams == 0 ? 0 : key.threads),
                  property(handle, "INFERENCE_PRECISION_HINT") == key.precision.inferenceHint else {
                api.compiled_model_free(handle)
                return nil
            }
            return CompiledModel(handle: handle, imported: bytes)
        }
        if model == nil { bytes.deallocate() }
        return model
    }

    private func property(_ compiled: OpaquePointer, _ name: String) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard api.compiled_model_get_property(compiled, name, &value).rawValue == 0, let value else { return nil }
        defer { api.free_string(value) }
        return String(cString: value)
    }

    /// Reads, reshapes and compiles the model (OpenVINO's core may be used from several threads).
    private func compile(_ core: OpaquePointer, path: String, outputs: [String], batch: Int, width: Int, height: Int, streams: Int,
                         threads: Int, precision: DNNPrecision) throws -> CompiledModel {
        let model = try state.withLock { $0.unused.removeValue(forKey: [path] + outputs) } ?? readModel(core, path: path, outputs: outputs)
        defer { api.model_free(model) }
        var shape = ov_partial_shape_t()
        let dims: [Int64] = [Int64(batch), 3, Int64(height), Int64(width)]
        try check(api.partial_shape_create_static(4, dims, &shape), "input shape")
        defer { _ = api.partial_shape_free(&shape) }
        let reshaped = api.model_reshape_single_input(model, shape)
        guard reshaped.rawValue == 0 else {
            throw InferenceError.wrongModel(path: path, reason: "it does not take a \(width)x\(height) colour image: " + Self.message(api, reshaped))
        }
        var handle: OpaquePointer?
        let status = withUnsafePointer(to: api) {
            slv_openvino_compile_cpu($0, core, model, String(streams), String(threads), precision.inferenceHint, &handle)
        }
        guard status.rawValue == 0, let handle else {
            throw InferenceError.modelUnusable(path: path, reason: "OpenVINO cannot compile it for the CPU: " + Self.message(api, status))
        }
        return CompiledModel(handle: handle)
    }
}

/// One worker's infer requests (one per input size the frames need), each on the worker's own
/// compiled model or on one the workers share (`OpenVINORuntime.network`).
package final class OpenVINOSession: InferenceSession {
    private let runtime: OpenVINORuntime
    private let modelPath: String
    private let outputs: [String]
    private let workers: Int
    private let priority: NetworkPriority
    private let precision: DNNPrecision
    private let knownSHA256: String?
    private var requests: [Shape: (request: OpaquePointer, network: OpenVINORuntime.Network)] = [:]
    /// The floats each request's input tensor views, by the same key.
    private var bound: [Shape: UnsafePointer<Float>] = [:]
    /// An input's shape: one request per shape the frames need.
    private struct Shape: Hashable { var batch: Int; var width: Int; var height: Int }

    /// Checks the model now (unless it is a known model, `knownSHA256`); compiles (or takes a
    /// compiled model) at the first frame, when the input size is known.
    package init(runtime: OpenVINORuntime, modelPath: String, outputs: [String], workers: Int, priority: NetworkPriority = .speed,
                 precision: DNNPrecision = .f32, knownSHA256: String? = nil) throws {
        self.runtime = runtime
        self.precision = precision
        self.modelPath = modelPath
        self.outputs = outputs
        self.workers = workers
        self.priority = priority
        self.knownSHA256 = knownSHA256
        if knownSHA256 == nil { try runtime.validate(path: modelPath, outputs: outputs) }
    }

    /// This session's compilations started ahead of use: a session waits for them when it is
    /// freed, so whoever asked for one (a run, a test) has it finished by the time it is done.
    private let preparing = DispatchGroup()

    deinit {
        preparing.wait()
        for (request, network) in requests.values {
            runtime.api.infer_request_free(request)
            runtime.release(network)
        }
    }

    package var runsBatches: Bool { true }

    package func prepare(width: Int, height: Int, batch: Int) {
        // Only the compiled model, for whichever worker asks first (not leased to this one): the
        // infer requests belong to the session's thread.
        let (runtime, path, outputs, workers, priority, precision, sha256) =
            (runtime, modelPath, outputs, workers, priority, precision, knownSHA256)
        let groups = [preparing, OpenVINORuntime.preparing]
        groups.forEach { $0.enter() }
        OpenVINORuntime.background.async {
            _ = try? runtime.network(path: path, outputs: outputs, batch: batch, width: width, height: height, workers: workers,
                                     priority: priority, precision: precision, knownSHA256: sha256, leased: false)
            groups.forEach { $0.leave() }
        }
    }

    private func request(_ key: Shape) throws -> OpaquePointer {
        if let found = requests[key] { return found.request }
        let network = try runtime.network(path: modelPath, outputs: outputs, batch: key.batch, width: key.width, height: key.height,
                                          workers: workers, priority: priority, precision: precision, knownSHA256: knownSHA256)
        var request: OpaquePointer?
        let status = runtime.api.compiled_model_create_infer_request(network.model.handle, &request)
        guard status.rawValue == 0, let request else {
            runtime.release(network)
            throw InferenceError.failed("OpenVINO: cannot make an infer request: " + OpenVINORuntime.message(runtime.api, status))
        }
        requests[key] = (request, network)
        return request
    }

    package func run(_ input: NetworkInputImage) throws -> [Tensor] {
        let api = runtime.api
        let key = Shape(batch: input.batch, width: input.width, height: input.height)
        let request = try request(key)
        func check(_ status: ov_status_e, _ what: String) throws {
            guard status.rawValue == 0 else { throw InferenceError.failed("OpenVINO: \(what): " + OpenVINORuntime.message(api, status)) }
        }
        // The input tensor is a view of the caller's floats (no copy), set again only when they
        // moved (the caller's buffer is usually the same from one frame to the next).
        if bound[key] != input.data {
            var shape = ov_shape_t()
            let dims: [Int64] = [Int64(input.batch), 3, Int64(input.height), Int64(input.width)]
            try check(api.shape_create(4, dims, &shape), "input shape")
            defer { _ = api.shape_free(&shape) }
            var tensor: OpaquePointer?
            try check(api.tensor_create_from_host_ptr(F32, shape, UnsafeMutableRawPointer(mutating: input.data), &tensor), "input tensor")
            defer { api.tensor_free(tensor) }
            bound[key] = nil
            try check(api.infer_request_set_input_tensor(request, tensor), "set input")
            bound[key] = input.data
        }
        try check(api.infer_request_infer(request), "inference")
        return try outputs.map { name in
            var output: OpaquePointer?
            try check(api.infer_request_get_tensor(request, name, &output), "output \(name)")
            defer { api.tensor_free(output) }
            var data: UnsafeMutableRawPointer?
            var count = 0
            try check(api.tensor_data(output, &data), "output \(name)")
            try check(api.tensor_get_size(output, &count), "output \(name)")
            guard let data else { throw InferenceError.failed("OpenVINO: output \(name) has no data") }
            // The request's own buffer: it outlives the tensor handle freed here.
            return Tensor(values: UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count))
        }
    }
}
