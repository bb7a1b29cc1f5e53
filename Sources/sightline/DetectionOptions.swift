import ArgumentParser
import Foundation
import Sightline

/// Detector, tracking and threading options shared by `analyze` and `capture`.
struct DetectionOptions: ParsableArguments {
    @Option(help: """
        Face detector: haar-alt2 (OpenCV frontalface_alt2, the default), haar (frontalface_default), \
        lbp (lbpcascade_frontalface_improved), yunet (YuNet, 5 landmarks), ultraface (UltraFace \
        RFB-320), ultraface-640 (UltraFace RFB-640), or off. The DNN backends need their model: \
        `sightline models fetch NAME`, or --face-model.
        """)
    var faces: FaceBackend = .haarAlt2

    @Option(name: .customLong("face-model"), help: """
        Model file for a DNN backend, instead of the installed one (any compatible ONNX file; \
        not checked against the known checksum, but its sha256 is written to the stream record).
        """)
    var faceModel: String?

    @Option(name: .customLong("face-threshold"), help: "DNN backends: smallest confidence (0..1) reported (default: 0.9 for yunet, 0.7 for ultraface).")
    var faceThreshold: Double?

    @Flag(name: .customLong("face-gray"), help: "DNN backends: give the model the luma plane in all three channels instead of colour.")
    var faceGray = false

    @Option(name: .customLong("min-face"), help: "Smallest face to find, in pixels of the displayed frame.")
    var minFace: Int = 40

    @Option(name: .customLong("face-width"), help: """
        Width the frame is scaled down to for face detection (0: full size). The cascade cannot \
        see faces smaller than its window (20 px for haar-alt2, 24 for haar, 45 for lbp) in the \
        scaled image: with 640, that is 40 px at 720p and 60 px at 1080p for haar-alt2. yunet \
        uses it too (its smallest prior box is 10 px); ultraface scales the frame to its fixed \
        input (320x240 or 640x480) instead.
        """)
    var faceWidth: Int = 640

    @Option(name: .customLong("face-step"), help: "Scale step between the face detector's pyramid levels (larger: faster, coarser).")
    var faceStep: Double = 1.1

    @Option(name: .customLong("face-attributes"), help: """
        Search each face for eyes and a smile: eye and mouth positions, smile, closed eyes, roll \
        (on or off; about 8 ms per face on one core, more than the face detector itself with ultraface).
        """)
    var faceAttributes: Switch = .off

    @Option(help: "Code reader: zxing (zxing-cpp), zbar, or off.")
    var codes: CodeBackend = .zxing

    @Option(help: "Comma-separated symbologies to look for (default: all the reader knows). Known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).")
    var symbologies: String?

    @Option(help: "Analysis worker threads (default: all cores).")
    var threads: Int?

    @Option(name: .customLong("detect-every"), help: """
        Run the full-frame detectors on every Nth frame only; in between, known faces and codes \
        are searched for around their predicted place (new objects appear within N frames).
        """)
    var detectEvery: Int = 1

    @Option(name: .customLong("max-gap"), help: "Frames a track may go unseen before it ends.")
    var maxGap: Int = 15

    func validate() throws {
        if !(1...100_000).contains(minFace) { throw ValidationError("--min-face must be between 1 and 100000 pixels, not \(minFace).") }
        if faceWidth != 0 && !(32...16_384).contains(faceWidth) { throw ValidationError("--face-width must be 0 (full size) or between 32 and 16384, not \(faceWidth).") }
        if !(faceStep > 1.0 && faceStep <= 2.0) { throw ValidationError("--face-step must be more than 1 and at most 2, not \(faceStep).") }
        if !(1...1000).contains(detectEvery) { throw ValidationError("--detect-every must be between 1 and 1000, not \(detectEvery).") }
        if !(0...100_000).contains(maxGap) { throw ValidationError("--max-gap must be between 0 and 100000 frames, not \(maxGap).") }
        if let faceThreshold, !(faceThreshold >= 0 && faceThreshold <= 1) { throw ValidationError("--face-threshold must be between 0 and 1, not \(faceThreshold).") }
        if faces.model == nil {
            if faceModel != nil { throw ValidationError("--face-model needs a DNN backend (--faces yunet, ultraface or ultraface-640).") }
            if faceThreshold != nil { throw ValidationError("--face-threshold needs a DNN backend (--faces yunet, ultraface or ultraface-640).") }
        }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256, not \(threads).") }
        let unsupported = try codeReaderOptions().unsupportedSymbologies()
        if !unsupported.isEmpty {
            throw ValidationError("--codes \(codes.rawValue) cannot read \(unsupported.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    var workerThreads: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }

    /// The face detector settings, with a DNN model looked up (and hashed): a missing model is
    /// reported before any input is opened.
    func faceDetectorOptions() throws -> FaceDetectorOptions {
        var options = FaceDetectorOptions(backend: faces, minFace: minFace, detectWidth: faceWidth)
        options.scaleFactor = faceStep
        options.attributes = faceAttributes == .on
        options.threshold = faceThreshold
        options.modelPath = faceModel
        options.color = !faceGray
        return try options.resolvingModel()
    }

    func codeReaderOptions() throws -> CodeReaderOptions {
        var set = Set<Symbology>()
        for name in (symbologies ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            guard let s = Symbology(rawValue: name) else {
                throw ValidationError("unknown symbology '\(name)' in --symbologies; known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            set.insert(s)
        }
        return CodeReaderOptions(backend: codes, symbologies: set)
    }

    var trackerOptions: TrackerOptions { TrackerOptions(maxGap: maxGap) }
}

/// An on/off option value.
enum Switch: String, ExpressibleByArgument { case on, off }

extension FaceBackend: ExpressibleByArgument {}
extension CodeBackend: ExpressibleByArgument {}
