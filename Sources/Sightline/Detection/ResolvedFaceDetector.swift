import SightlineFrames

/// A face detector ready to build: the user's `FaceDetectorOptions` with what they name found and
/// checked once (`FaceDetectorOptions.resolve()`): the DNN model file and its sha256, the runtime
/// loaded and its version, the cascade file. Every worker's and region searcher's detector is
/// built from this one value, and a run, a scan and a leak audit take nothing else, so an
/// unresolved detector cannot reach them.
public struct ResolvedFaceDetector: Sendable, Equatable {
    /// The settings as the user gave them.
    public let options: FaceDetectorOptions
    /// DNN backends: the network file that runs (the INT8 one when it runs).
    public let model: ModelFile?
    /// DNN backends: the runtime's name and version ("openvino 2026.4.1-…").
    public let runtimeVersion: String?
    /// Cascade backends: the cascade file.
    public let cascadePath: String?

    /// What a run without face detection reports.
    public static let off = ResolvedFaceDetector(options: FaceDetectorOptions(backend: .off), model: nil, runtimeVersion: nil,
                                                 cascadePath: nil)

    public var backend: FaceBackend { options.backend }
    /// The arithmetic the network runs in.
    public var precision: DNNPrecision { options.precisionInEffect }
    public var effectiveThreshold: Double { options.effectiveThreshold }

    /// The same detector for a live source, which starts streaming once its networks are ready:
    /// they are placed for a quick start (`NetworkPriority.start`), unless memory comes first.
    package var forLiveSource: ResolvedFaceDetector {
        guard options.networkPriority == .speed else { return self }
        var options = options
        options.networkPriority = .start
        return ResolvedFaceDetector(options: options, model: model, runtimeVersion: runtimeVersion, cascadePath: cascadePath)
    }

    /// The network input size for frames of this displayed size (nil for the cascades).
    public func networkInputSize(width: Int, height: Int) -> (width: Int, height: Int)? {
        options.networkInputSize(width: width, height: height)
    }
}
