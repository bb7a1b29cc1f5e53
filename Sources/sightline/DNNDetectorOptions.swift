import ArgumentParser
import Foundation
import Sightline

/// Which DNN face detector runs and on what: shared by the commands that only take the DNN
/// backends (`anonymize`, `leaks`). Each command keeps its own input size, smallest face and
/// threshold, whose defaults differ by purpose.
struct DNNDetectorOptions: ParsableArguments {
    @Option(help: "Face detector: centerface, yunet, ultraface or ultraface-640 (see analyze --faces).")
    var faces: FaceBackend = .centerface

    @Option(name: .customLong("face-model"), help: "Model file for the detector, instead of the installed one.")
    var faceModel: String?

    @Option(name: .customLong("dnn-runtime"), help: "What runs the detector: openvino or opencv ($SIGHTLINE_DNN_RUNTIME sets the default).")
    var dnnRuntime: DNNRuntime = .commandDefault

    func validate() throws {
        if faces.model == nil { throw ValidationError("--faces must be a DNN detector (centerface, yunet, ultraface, ultraface-640), not \(faces.rawValue).") }
    }

    /// The detector settings, resolved (model found and checked, runtime loaded).
    func resolved(minFace: Int, detectWidth: Int, threshold: Double, workers: Int) throws -> FaceDetectorOptions {
        var detector = FaceDetectorOptions(backend: faces, minFace: minFace, detectWidth: detectWidth)
        detector.threshold = threshold
        detector.modelPath = faceModel
        detector.runtime = dnnRuntime
        detector.workers = workers
        return try detector.resolvingModel()
    }
}

extension DNNRuntime {
    /// `--dnn-runtime`'s default: `$SIGHTLINE_DNN_RUNTIME` when set, else OpenVINO.
    static var commandDefault: DNNRuntime {
        ProcessInfo.processInfo.environment["SIGHTLINE_DNN_RUNTIME"].flatMap(DNNRuntime.init(rawValue:)) ?? .openvino
    }
}
