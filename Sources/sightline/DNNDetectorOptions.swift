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

    @Option(name: .customLong("dnn-precision"), help: """
        The detector's arithmetic: int8, f32 or bf16 (see analyze --dnn-precision). Default: int8 \
        for anonymize; f32 for leaks, so the audit computes in the reference arithmetic.
        """)
    var dnnPrecision: DNNPrecision?

    func validate() throws {
        if faces.model == nil { throw ValidationError("--faces must be a DNN detector (centerface, yunet, ultraface, ultraface-640), not \(faces.rawValue).") }
        try dnnPrecision?.validate(faces: faces, runtime: dnnRuntime)
    }

    /// The detector settings, resolved (model found and checked, runtime loaded, the precision
    /// in effect set); `precision` is the command's default for --dnn-precision.
    func resolved(minFace: Int, detectWidth: Int, threshold: Double?, workers: Int, precision: DNNPrecision) throws -> FaceDetectorOptions {
        var detector = FaceDetectorOptions(backend: faces, minFace: minFace, detectWidth: detectWidth)
        detector.modelPath = faceModel
        detector.runtime = dnnRuntime
        detector.precision = dnnPrecision ?? precision
        detector.threshold = threshold
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
