import CVision
import Foundation
import SightlineFrames

/// The arithmetic a DNN face detector is computed in on OpenVINO.
public enum DNNPrecision: String, CaseIterable, Sendable {
    /// The model's INT8 network where it has one (CenterFace: shipped in `Models/`, see
    /// `KnownModel.int8Variant`), about a third of f32's cost with the same faces; the layers it
    /// keeps in floats, and models without an INT8 network, in f32. The default.
    case int8
    /// 32-bit floats throughout: the reference the INT8 network is held to.
    case f32
    /// bfloat16 on CPUs that have it (faster on some; boxes move by a few pixels and depend on the
    /// machine); elsewhere the plugin computes in f32.
    case bf16

    /// OpenVINO's INFERENCE_PRECISION_HINT: what the layers that are not quantized compute in.
    /// bf16 only where oneDNN may use it (`OneDNNLimit.allowsBF16`); f32 is what a CPU without bf16
    /// computes anyway.
    package var inferenceHint: String { self == .bf16 && OneDNNLimit.allowsBF16 ? "bf16" : "f32" }
}

/// oneDNN's limit on the CPU's instructions (`ONEDNN_MAX_CPU_ISA`, as Scripts/avx2.sh sets it),
/// read once. OpenVINO's CPU kernels follow it, but its CPU plugin reads the CPU's flags instead,
/// and a network compiled under one limit is refused under another.
package enum OneDNNLimit {
    /// The instruction set named, or nil when there is no limit.
    package static let isa = ProcessInfo.processInfo.environment["ONEDNN_MAX_CPU_ISA"]?.uppercased()
    /// False under a limit without bf16: the plugin would still choose bf16 layers that oneDNN then
    /// cannot make ("could not create a primitive descriptor for the deconvolution").
    package static let allowsBF16 = isa.map { !withoutBF16.contains($0) } ?? true
    private static let withoutBF16: Set = ["SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX512_CORE", "AVX512_CORE_VNNI"]
}

/// One output of a network run: a view of the runtime's buffer, valid until the session runs
/// again (not copied: CenterFace's outputs at 1920x1088 are 7.8 MB a frame).
package struct Tensor {
    package let values: UnsafeBufferPointer<Float>

    /// Image `index`'s part of a batch of `count` images' output.
    package func item(_ index: Int, of count: Int) -> Tensor {
        let size = values.count / max(1, count)
        return Tensor(values: UnsafeBufferPointer(rebasing: values[index * size..<(index + 1) * size]))
    }
}

/// The network input: batch x 3 x height x width floats, as made by `NetworkInput` (one image)
/// or `NetworkInputBatch`.
package struct NetworkInputImage {
    package var batch = 1
    package let width: Int
    package let height: Int
    /// Valid until the next `NetworkInput.make`.
    package let data: UnsafePointer<Float>
}

/// A network ready to run, owned by one worker (not thread-safe).
package protocol InferenceSession: AnyObject {
    /// Runs the network on `input`; the outputs in the order the session was made with (of a
    /// batch, each output holds the images' results one after another).
    func run(_ input: NetworkInputImage) throws -> [Tensor]
    /// Starts making the network ready for `batch` inputs of `width` x `height` on another
    /// thread, so the first `run` at that size waits less (its errors surface there). Nothing by default.
    func prepare(width: Int, height: Int, batch: Int)
    /// Whether `run` takes more than one image at once (OpenVINO).
    var runsBatches: Bool { get }
}

extension InferenceSession {
    package func prepare(width: Int, height: Int, batch: Int) {}
    package func prepare(width: Int, height: Int) { prepare(width: width, height: height, batch: 1) }
    package var runsBatches: Bool { false }
}

/// What the inference layer reports. Setup failures (`runtimeMissing`, `modelUnusable`,
/// `wrongModel`) stop a run before it reads anything; `failed` is one frame's error.
public enum InferenceError: Error, CustomStringConvertible, Sendable {
    /// The runtime library cannot be loaded.
    case runtimeMissing(runtime: DNNRuntime, reason: String)
    /// The model file cannot be read or compiled by the runtime.
    case modelUnusable(path: String, reason: String)
    /// The file is a network, but not the kind the backend decodes (other inputs or outputs).
    case wrongModel(path: String, reason: String)
    /// A run failed.
    case failed(String)

    public var description: String {
        switch self {
        case let .runtimeMissing(runtime, reason): return "the \(runtime.rawValue) runtime is not available: \(reason)"
        case let .modelUnusable(path, reason): return "\(path): \(reason)"
        case let .wrongModel(path, reason): return "\(path): \(reason)"
        case let .failed(message): return message
        }
    }
}

/// What the placement of a network's compiled models puts first (`OpenVINORuntime.network`).
public enum NetworkPriority: Sendable, Equatable {
    /// Frames per second (a file's run): each worker runs a frame's passes on a compiled copy of
    /// its own, on its own thread.
    case speed
    /// A quick start (a live source, which starts streaming once its networks are ready): the
    /// workers share one compiled model, a stream each, for one import instead of one per worker.
    case start
    /// Memory (`anonymize`, bound by its encoder): shared, and two workers to a stream from
    /// smaller inputs (`OpenVINORuntime.requestsPerStream`).
    case memory
}

/// Makes a session for one worker: `outputs` are the tensor names the backend decodes.
/// `knownSHA256`: the file is a known model (its sha256 matched this), so OpenVINO does not read
/// it to check its input and outputs before it first compiles it, and keeps it compiled between
/// runs (`CompiledModelCache`). `priority`: how OpenVINO's compiled models are placed.
package func makeInferenceSession(runtime: DNNRuntime, modelPath: String, outputs: [String], workers: Int,
                                  priority: NetworkPriority = .speed,
                                  precision: DNNPrecision = .f32, knownSHA256: String? = nil) throws -> InferenceSession {
    switch runtime {
    case .openvino:
        return try OpenVINOSession(runtime: OpenVINORuntime.loaded(), modelPath: modelPath, outputs: outputs, workers: workers,
                                   priority: priority, precision: precision, knownSHA256: knownSHA256)
    case .opencv:
        return try OpenCVSession(modelPath: modelPath, outputs: outputs)
    }
}

/// Name and version of a runtime, for the stream record ("openvino 2026.4.1-…", "opencv 4.6.0").
public func inferenceRuntimeVersion(_ runtime: DNNRuntime) -> String {
    switch runtime {
    case .openvino: return (try? OpenVINORuntime.loaded().version).map { "openvino \($0)" } ?? "openvino"
    case .opencv: return "opencv " + String(cString: slv_opencv_version())
    }
}
