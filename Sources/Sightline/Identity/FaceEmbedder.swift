import CVision
import Foundation
import SightlineFrames
import SightlineMedia
import SightlineTracking

extension AlignedFace {
    /// The face with `landmarks` (displayed-frame pixels) in `frame`, through the similarity
    /// transform onto the ArcFace template (bilinear).
    package init(_ frame: VideoFrame, landmarks: FaceLandmarks) throws {
        let rotation = frame.rotation
        let points = [landmarks.leftEye, landmarks.rightEye, landmarks.nose, landmarks.mouthLeft, landmarks.mouthRight]
            .map { rotation.coded($0) }.flatMap { [Float($0.x), Float($0.y)] }
        var yuv = frame.yuv
        var error = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: 3 * FaceEmbedder.size * FaceEmbedder.size) { out, count in
            status = slv_align_face(&yuv, points, Int32(FaceEmbedder.size), out.baseAddress, &error, error.count)
            count = out.count
        }
        guard status == 0 else { throw InferenceError.failed("face alignment: \(error.cString)") }
        self.init(pixels: pixels)
    }
}

/// Runs SFace on aligned faces, through the inference layer. One per thread.
package final class FaceEmbedder {
    package static let size = 112
    private let session: InferenceSession
    private var pixels = [Float](repeating: 0, count: 3 * FaceEmbedder.size * FaceEmbedder.size)

    /// `workers`: embedders sharing the compiled model (one per lane). SFace (37 MB; about 0.2 s
    /// of CPU to read and compile) is compiled at the first embedding, which many runs never need
    /// (`IdentityClustering`); the installed copy's sha256 has been checked, so it is not read before.
    package init(model: ModelFile, runtime: DNNRuntime, workers: Int = 1) throws {
        session = try makeInferenceSession(runtime: runtime, modelPath: model.path, outputs: ["fc1"], workers: workers,
                                           knownSHA256: model.verified ? model.sha256 : nil)
    }

    /// SFace's file: `path` (--identity-model) as given, or the installed copy, checked.
    package static func model(path: String?, store: ModelStore = ModelStore()) throws -> ModelFile {
        let sface = KnownModel.sface
        if let path, !FileManager.default.isReadableFile(atPath: path) {
            throw SightlineError.detectorUnavailable(name: sface.name, reason: "--identity-model \(path): not a readable file")
        }
        if path == nil, store.installedPath(sface) == nil {
            throw SightlineError.detectorUnavailable(name: sface.name, reason: "the face embedding model \(sface.file) is not installed (looked in \(store.searchDirectories.joined(separator: ", "))); install it with Scripts/deps/build/sface-model.sh, or pass a file with --identity-model PATH")
        }
        return try store.resolve(sface, override: path)
    }

    /// Starts compiling SFace in the background (the first embedding waits for it).
    package func prepare() { session.prepare(width: Self.size, height: Self.size) }

    package func embed(_ face: AlignedFace) throws -> FaceEmbedding {
        // SFace takes RGB 0..255 as floats, unscaled.
        for i in pixels.indices { pixels[i] = Float(face.pixels[i]) }
        let outputs = try pixels.withUnsafeBufferPointer { buffer in
            try session.run(NetworkInputImage(width: Self.size, height: Self.size, data: buffer.baseAddress!))
        }
        guard let values = outputs.first?.values, values.count == 128, let embedding = FaceEmbedding(Array(values)) else {
            throw InferenceError.failed("SFace gave no 128-number embedding")
        }
        return embedding
    }
}
