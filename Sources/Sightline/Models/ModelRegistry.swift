import CVision
import Foundation

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
    /// Fixed input size of the network (width, height); nil when it takes any size.
    public let inputWidth: Int?
    public let inputHeight: Int?
    let kind: Int32


    /// The file at the pinned commit, served raw by GitHub: the default download source.
    public var sourceURL: String { "https://raw.githubusercontent.com/\(repository)/\(commit)/\(pathInRepository)" }

    public static let all: [KnownModel] = [
        KnownModel(
            name: "yunet", file: "yunet_legacy_120x160.onnx",
            format: "ONNX, YuNet 2022 (libfacedetection; outputs loc, conf, iou), any input size, BGR 0..255, 5 landmarks",
            size: 345_478, license: "MIT",
            repository: "ShiqiYu/libfacedetection.train", commit: "1688402dbd9b9fc4a3a6793810f558b7407ff384",
            pathInRepository: "tasks/task1/onnx/yunet_120x160.onnx",
            sha256: "50ef07f702a31741ca46a4c0d947773b64143b9362780237bf0d427d6c79bab7",
            defaultThreshold: 0.9, inputWidth: nil, inputHeight: nil, kind: Int32(SLV_DNN_YUNET_LEGACY)),
        KnownModel(
            name: "ultraface", file: "ultraface-version-RFB-320.onnx",
            format: "ONNX, Ultra-Light-Fast-Generic-Face-Detector-1MB version-RFB-320 (outputs scores, boxes), 320x240 RGB input",
            size: 1_270_727, license: "MIT",
            repository: "Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB", commit: "0f9ca4a9fc80170fd505168fd1132b837141f7df",
            pathInRepository: "models/onnx/version-RFB-320.onnx",
            sha256: "34cd7e60aeff28744c657de7a3dc64e872d506741de66987f3426f2b79f88017",
            defaultThreshold: 0.7, inputWidth: 320, inputHeight: 240, kind: Int32(SLV_DNN_ULTRAFACE)),
        KnownModel(
            name: "ultraface-640", file: "ultraface-version-RFB-640.onnx",
            format: "ONNX, Ultra-Light-Fast-Generic-Face-Detector-1MB version-RFB-640 (outputs scores, boxes), 640x480 RGB input",
            size: 1_588_012, license: "MIT",
            repository: "Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB", commit: "cc497be475371d891d5795e46fc80ebaddf683c5",
            pathInRepository: "models/onnx/version-RFB-640.onnx",
            sha256: "8f4c659275977e7a3bfbfa339a9c769ad793df50f9c0baa8c14b11baa1646430",
            defaultThreshold: 0.7, inputWidth: 640, inputHeight: 480, kind: Int32(SLV_DNN_ULTRAFACE)),
    ]

    public static func named(_ name: String) -> KnownModel? { all.first { $0.name == name } }
}
