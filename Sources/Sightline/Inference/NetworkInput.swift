import CVision
import Foundation
import SightlineFrames
import SightlineMedia

/// Makes a network's input image from a frame's planes, once per frame, with reused buffers
/// (CVision's dnn.cpp). Not thread-safe: one per worker.
package final class NetworkInput {
    private let handle: OpaquePointer

    package init() throws {
        guard let handle = slv_dnn_input_create() else { throw InferenceError.failed("out of memory for the network input") }
        self.handle = handle
    }

    deinit { slv_dnn_input_destroy(handle) }

    /// The frame at `width` x `height`, turned for display, in the model's channel order and
    /// value range; in colour when `color` and the frame has chroma planes.
    package func make(_ frame: VideoFrame, width: Int, height: Int, layout: InputLayout, color: Bool) throws -> NetworkInputImage {
        try make(frame.yuv, rotation: frame.rotation, width: width, height: height, layout: layout, color: color)
    }

    /// The same from a picture's planes (a whole frame's, or a region's: `VideoFrame.yuv(cropping:)`).
    package func make(_ picture: slv_yuv_image, rotation: Rotation, width: Int, height: Int, layout: InputLayout,
                      color: Bool) throws -> NetworkInputImage {
        var image = picture
        var o = slv_dnn_input_options()
        o.width = Int32(width)
        o.height = Int32(height)
        o.rotation = Int32(rotation.degrees)
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

/// How a network wants its input image: channel order and the map from 0..255 to its values
/// (value × scale + offset).
package struct InputLayout {
    package var rgb: Bool
    package var scale: Float
    package var offset: Float
}

/// Several images of one size side by side in one input (batch x 3 x height x width): a network
/// run once on a batch costs less per image than once per image (CenterFace INT8 on 96x96
/// crops, one thread of an AMD EPYC Zen 3: 2.12 ms each in a batch of 4, 3.05 ms alone), and
/// gives each image exactly what it gives alone. Not thread-safe: one per worker.
package final class NetworkInputBatch {
    private let image: NetworkInput
    private var floats: UnsafeMutablePointer<Float>
    private var capacity = 0

    package init() throws {
        image = try NetworkInput()
        floats = .allocate(capacity: 0)
    }
    deinit { floats.deallocate() }

    /// The pictures (whole frames' or regions' planes) at `width` x `height` each, as one input.
    package func make(_ pictures: [slv_yuv_image], rotation: Rotation, width: Int, height: Int, layout: InputLayout,
                      color: Bool) throws -> NetworkInputImage {
        let size = 3 * width * height
        if capacity < pictures.count * size {
            floats.deallocate()
            capacity = pictures.count * size
            floats = .allocate(capacity: capacity)
        }
        for (i, picture) in pictures.enumerated() {
            let one = try image.make(picture, rotation: rotation, width: width, height: height, layout: layout, color: color)
            (floats + i * size).update(from: one.data, count: size)
        }
        return NetworkInputImage(batch: pictures.count, width: width, height: height, data: floats)
    }
}
