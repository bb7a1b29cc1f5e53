import CVision
import Foundation
import SightlineFrames

/// An ONNX network run by OpenCV's dnn module, one thread, for one worker.
package final class OpenCVSession: InferenceSession {
    private let handle: OpaquePointer
    private let outputCount: Int
    private var results: [slv_tensor]

    package init(modelPath: String, outputs: [String]) throws {
        var error = [CChar](repeating: 0, count: 1024)
        let names = outputs.map { strdup($0) }
        defer { names.forEach { free($0) } }
        let pointers = names.map { UnsafePointer<CChar>($0) }
        guard let handle = pointers.withUnsafeBufferPointer({
            slv_cv_net_create(modelPath, $0.baseAddress, Int32(outputs.count), &error, error.count)
        }) else {
            let reason = error.cString
            if reason.hasPrefix("it has no output") { throw InferenceError.wrongModel(path: modelPath, reason: reason) }
            throw InferenceError.modelUnusable(path: modelPath, reason: reason)
        }
        self.handle = handle
        outputCount = outputs.count
        results = [slv_tensor](repeating: slv_tensor(), count: outputs.count)
    }

    deinit { slv_cv_net_destroy(handle) }

    package func run(_ input: NetworkInputImage) throws -> [Tensor] {
        guard input.batch == 1 else { throw InferenceError.failed("OpenCV DNN: one image at a time") }
        var error = [CChar](repeating: 0, count: 512)
        guard slv_cv_net_run(handle, input.data, Int32(input.width), Int32(input.height), &results, &error, error.count) == 0 else {
            throw InferenceError.failed("OpenCV DNN: " + error.cString)
        }
        return results.map { Tensor(values: UnsafeBufferPointer(start: $0.data, count: $0.count)) }
    }
}
