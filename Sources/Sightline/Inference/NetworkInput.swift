import CVision
import Foundation

/// Makes a network's input image from a frame's planes, once per frame, with reused buffers
/// (CVision's dnn.cpp). Not thread-safe: one per worker.
final class NetworkInput {
    private let handle: OpaquePointer

    init() throws {
        guard let handle = slv_dnn_input_create() else { throw InferenceError.failed("out of memory for the network input") }
        self.handle = handle
    }

    deinit { slv_dnn_input_destroy(handle) }

    /// The frame at `width` x `height`, turned for display, in the model's channel order and
    /// value range; in colour when `color` and the frame has chroma planes.
    func make(_ frame: VideoFrame, width: Int, height: Int, kind: FaceModelKind, color: Bool) throws -> NetworkInputImage {
        var image = frame.yuv
        var o = slv_dnn_input_options()
        o.width = Int32(width)
        o.height = Int32(height)
        o.rotation = Int32(frame.rotation.degrees)
        let layout = kind.layout
        o.rgb = layout.rgb ? 1 : 0
        o.scale = layout.scale
        o.offset = layout.offset
        o.use_color = color ? 1 : 0
        var error = [CChar](repeating: 0, count: 512)
        guard let data = slv_dnn_input_make(handle, &image, &o, &error, error.count) else {
            throw InferenceError.failed("network input: " + error.cString)
        }
        return NetworkInputImage(width: width, height: height, data: data)
    }
}

/// OpenCV's non-maximum suppression (the boxes kept, best score first).
func nonMaximumSuppression(_ candidates: [FaceCandidate], threshold: Float, overlap: Float) throws -> [Int] {
    guard !candidates.isEmpty else { return [] }
    let boxes = candidates.flatMap { [$0.x, $0.y, $0.w, $0.h] }
    let scores = candidates.map(\.score)
    var keep = [Int32](repeating: 0, count: candidates.count)
    var error = [CChar](repeating: 0, count: 256)
    let n = slv_nms_boxes(boxes, scores, Int32(candidates.count), threshold, overlap, &keep, &error, error.count)
    guard n >= 0 else { throw InferenceError.failed(error.cString) }
    return keep.prefix(Int(n)).map(Int.init)
}
