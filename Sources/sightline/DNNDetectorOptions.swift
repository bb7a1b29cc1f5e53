import ArgumentParser
import Foundation
import Sightline

/// Which DNN face detector runs and on what: shared by the commands that only take the DNN
/// backends (`anonymize`, `leaks`), each with its own `--min-face` and `--face-width` defaults
/// (`Size`); each keeps its own threshold option, whose meaning differs by purpose.
struct DNNDetectorOptions<Size: FaceSizeDefaults>: ParsableArguments {
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

    @OptionGroup var size: FaceSizeOptions<Size>

    func validate() throws {
        if faces.model == nil { throw ValidationError("--faces must be a DNN detector (centerface, yunet, ultraface, ultraface-640), not \(faces.rawValue).") }
        try dnnPrecision?.validate(faces: faces, runtime: dnnRuntime)
    }

    /// The detector settings; `precision` is the command's default for --dnn-precision.
    func options(threshold: Double?, precision: DNNPrecision) -> FaceDetectorOptions {
        var detector = FaceDetectorOptions(backend: faces, minFace: size.minFace(for: faces), detectWidth: size.faceWidth)
        detector.modelPath = faceModel
        detector.runtime = dnnRuntime
        detector.precision = dnnPrecision ?? precision
        detector.threshold = threshold
        return detector
    }
}

extension DNNRuntime {
    /// `--dnn-runtime`'s default: `$SIGHTLINE_DNN_RUNTIME` when set, else OpenVINO.
    static var commandDefault: DNNRuntime {
        ProcessInfo.processInfo.environment["SIGHTLINE_DNN_RUNTIME"].flatMap(DNNRuntime.init(rawValue:)) ?? .openvino
    }
}
