import ArgumentParser
import Foundation
import Sightline

/// The face detector: which network or cascade, on what, at which size.
struct FaceOptions: ParsableArguments {
    @Option(help: """
        Face detector: centerface (CenterFace, 5 landmarks, the default), yunet (YuNet, 5 \
        landmarks), ultraface (UltraFace RFB-320), ultraface-640 (UltraFace RFB-640), haar-alt2 \
        (OpenCV frontalface_alt2, needs no model), haar (frontalface_default), lbp \
        (lbpcascade_frontalface_improved), or off. The DNN backends need their model \
        (centerface: installed by Scripts/install-deps.sh; the others: `sightline models fetch NAME`), \
        or --face-model.
        """)
    var faces: FaceBackend = .centerface

    @Option(name: .customLong("dnn-runtime"), help: """
        What runs the DNN backends: openvino (OpenVINO's CPU runtime, installed by \
        Scripts/install-deps.sh; the default) or opencv (OpenCV's DNN module, slower, for machines \
        without OpenVINO, and for sanitizer builds, which cannot load OpenVINO). \
        $SIGHTLINE_DNN_RUNTIME sets the default.
        """)
    var dnnRuntime: DNNRuntime = .commandDefault

    @Option(name: .customLong("dnn-precision"), help: .dnnPrecision)
    var dnnPrecision: DNNPrecision = .int8

    @Option(name: .customLong("face-model"), help: """
        Model file for a DNN backend, instead of the installed one (any compatible ONNX file; \
        not checked against the known checksum, but its sha256 is written to the stream record).
        """)
    var faceModel: String?

    @Option(name: .customLong("face-threshold"), help: "DNN backends: smallest confidence (0..1) reported (default: 0.35 for centerface's INT8 network, 0.4 for centerface at f32 or bf16, 0.9 for yunet, 0.7 for ultraface).")
    var faceThreshold: Double?

    @Flag(name: .customLong("face-gray"), help: "DNN backends: give the model the luma plane in all three channels instead of colour.")
    var faceGray = false

    @OptionGroup var size: FaceSizeOptions<FindFaces>

    @Option(name: .customLong("face-step"), help: "Scale step between the face detector's pyramid levels (larger: faster, coarser).")
    var faceStep: Double = 1.1

    @Option(name: .customLong("face-attributes"), help: """
        Search each face for eyes and a smile: eye and mouth positions, smile, closed eyes, roll \
        (on or off; about 8 ms per face on one core, more than the face detector itself with ultraface).
        """)
    var faceAttributes: Switch = .off

    func validate() throws {
        if !(faceStep > 1.0 && faceStep <= 2.0) { throw ValidationError("--face-step must be more than 1 and at most 2, not \(faceStep).") }
        if let faceThreshold, !(faceThreshold >= 0 && faceThreshold <= 1) { throw ValidationError("--face-threshold must be between 0 and 1, not \(faceThreshold).") }
        if faces.model == nil {
            if faceModel != nil { throw ValidationError("--face-model needs a DNN backend (--faces centerface, yunet, ultraface or ultraface-640).") }
            if faceThreshold != nil { throw ValidationError("--face-threshold needs a DNN backend (--faces centerface, yunet, ultraface or ultraface-640).") }
        }
        try dnnPrecision.validate(faces: faces, runtime: dnnRuntime)
    }

    func faceDetectorOptions() -> FaceDetectorOptions {
        var options = FaceDetectorOptions(backend: faces, minFace: size.minFace(for: faces), detectWidth: size.faceWidth)
        options.scaleFactor = faceStep
        options.attributes = faceAttributes == .on
        options.threshold = faceThreshold
        options.modelPath = faceModel
        options.color = !faceGray
        options.runtime = dnnRuntime
        options.precision = dnnPrecision
        return options
    }

}

/// The code reader: which library, which symbologies, how hard it looks.
struct CodeOptions: ParsableArguments {
    @Option(help: "Code reader: zxing (zxing-cpp), zbar, or off.")
    var codes: CodeBackend = .zxing

    @Option(help: "Comma-separated symbologies to look for (default: all the reader knows). Known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).")
    var symbologies: String?

    @Option(name: .customLong("code-try-harder"), help: "zxing: spend more time to find more codes (more 1D scan lines, slower 2D finder searches): on or off.")
    var codeTryHarder: Switch = .on

    @Option(name: .customLong("code-try-rotate"), help: "zxing: also look for codes turned by 90, 180 and 270 degrees (1D codes: scan columns too): on or off.")
    var codeTryRotate: Switch = .on

    @Option(name: .customLong("code-try-invert"), help: "zxing: also look for inverted codes (light modules on a dark ground): on or off.")
    var codeTryInvert: Switch = .on

    @Option(name: .customLong("code-try-downscale"), help: "zxing: also look in downscaled copies of the frame (large codes, noisy frames): on or off.")
    var codeTryDownscale: Switch = .on

    @Option(name: .customLong("code-binarizer"), help: "zxing: how gray becomes black and white: local-average (uneven light), global-histogram, fixed-threshold (127), bool-cast (already black and white).")
    var codeBinarizer: CodeBinarizer = .localAverage

    @Option(name: .customLong("code-text"), help: "zxing: what a code's text holds: plain (payload, character sets applied), eci (with ECI designators), hri (human readable, GS1 in parentheses), escaped (non-printables escaped), hex (payload bytes).")
    var codeText: CodeTextMode = .plain

    func validate() throws {
        let unsupported = try codeReaderOptions().unsupportedSymbologies()
        if !unsupported.isEmpty {
            throw ValidationError("--codes \(codes.rawValue) cannot read \(unsupported.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func codeReaderOptions() throws -> CodeReaderOptions {
        var set = Set<Symbology>()
        for name in (symbologies ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            guard let s = Symbology(rawValue: name) else {
                throw ValidationError("unknown symbology '\(name)' in --symbologies; known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            set.insert(s)
        }
        var options = CodeReaderOptions(backend: codes, symbologies: set)
        options.tryHarder = codeTryHarder == .on
        options.tryRotate = codeTryRotate == .on
        options.tryInvert = codeTryInvert == .on
        options.tryDownscale = codeTryDownscale == .on
        options.binarizer = codeBinarizer
        options.textMode = codeText
        return options
    }
}

/// The face detector and code reader: shared by every command that detects (`analyze`,
/// `capture`, `snapshot`, `scan`). Titles go on the innermost groups: an outer title would
/// replace them in `--help`.
struct DetectorOptions: ParsableArguments {
    @OptionGroup(title: "Faces") var face: FaceOptions

    @OptionGroup(title: "Codes") var code: CodeOptions

    var faces: FaceBackend { face.faces }
    func faceDetectorOptions() -> FaceDetectorOptions { face.faceDetectorOptions() }
    func codeReaderOptions() throws -> CodeReaderOptions { try code.codeReaderOptions() }

    /// The detectors of a run, the face detector resolved (a DNN model looked up and hashed, its
    /// runtime loaded): what is missing is reported before any input is opened.
    func analysis() throws -> Analysis {
        .detect(faces: try faceDetectorOptions().resolve(), codes: try codeReaderOptions())
    }
}

/// The detectors, their schedule, tracking, identities, cuts and threads: shared by `analyze`
/// and `capture`.
struct DetectionOptions: ParsableArguments {
    @OptionGroup var detectors: DetectorOptions

    @OptionGroup(title: "Tracking") var tracking: TrackingOptions

    @OptionGroup(title: "Identities") var identity: IdentityArguments

    @OptionGroup(title: "Shot cuts") var cut: CutArguments

    @OptionGroup(title: "Performance") var performance: PerformanceOptions

    func validate() throws {
        if identity.identities == .on && detectors.faces.model == nil {
            throw ValidationError("--identities on needs a DNN face detector (--faces centerface or yunet: they give the landmarks faces are aligned by), not \(detectors.faces.rawValue).")
        }
    }

    func analysis() throws -> Analysis { try detectors.analysis() }

    /// A run of these detectors over `source`, with tracking.
    func configuration(source: FrameSource, analysis: Analysis) -> RunConfiguration {
        var configuration = RunConfiguration(source: source, analysis: analysis)
        configuration.schedule = Schedule(detectEvery: tracking.tracks.detectEvery, codeFullEvery: tracking.codeFullEvery)
        configuration.tracking = TrackerOptions(maxGap: tracking.tracks.maxGap, codeConfirmation: CodeConfirmation(reads: tracking.codeConfirmReads, window: tracking.codeConfirmWindow))
        configuration.threads = performance.workers
        configuration.identities = identity.options(runtime: detectors.face.dnnRuntime)
        configuration.cuts = cut.options
        return configuration
    }
}

/// Which frames get the full-frame detectors, and how long a track lives: shared by `analyze`
/// and `capture`.
struct TrackingOptions: ParsableArguments {
    @OptionGroup var tracks: TrackOptions<FindFaces>

    @Option(name: .customLong("code-full-every"), help: """
        The whole-frame code search on every Nth frame of the stream; on the frames between, every \
        known code is read in its predicted region; 1: the whole frame every frame.
        """)
    var codeFullEvery: Int = Schedule().codeFullEvery

    @Option(name: .customLong("code-confirm-reads"), help: """
        A code track is confirmed once its bytes were read in this many of the last \
        --code-confirm-window analyzed frames (QR, Micro QR, DataMatrix, Aztec, PDF417 and \
        MaxiCode: on their first read); 1: every read confirms.
        """)
    var codeConfirmReads: Int = CodeConfirmation().reads

    @Option(name: .customLong("code-confirm-window"), help: "Analyzed frames within which a code track's confirming reads must fall.")
    var codeConfirmWindow: Int = CodeConfirmation().window

    func validate() throws {
        if !(1...1000).contains(codeFullEvery) { throw ValidationError("--code-full-every must be between 1 and 1000, not \(codeFullEvery).") }
        if !(1...100).contains(codeConfirmWindow) { throw ValidationError("--code-confirm-window must be between 1 and 100 frames, not \(codeConfirmWindow).") }
        if !(1...codeConfirmWindow).contains(codeConfirmReads) {
            throw ValidationError("--code-confirm-reads must be between 1 and --code-confirm-window (\(codeConfirmWindow)), not \(codeConfirmReads).")
        }
    }
}

/// Face identities: tracks linked into people by their embeddings.
struct IdentityArguments: ParsableArguments {
    @Option(help: """
        Face identities: link face tracks into people by their SFace embeddings (installed by \
        Scripts/deps/build/sface-model.sh); faces, tracks and `identity` records name the person. \
        Needs a DNN face detector (landmarks): on or off.
        """)
    var identities: Switch = .off

    @Flag(help: "With --identities on: also write each person's mean face embedding (biometric data) in the identity records.")
    var embeddings = false

    @Option(name: .customLong("identity-threshold"), help: "With --identities on: cosine similarity of SFace embeddings at which a track joins a person (OpenCV's pairwise same-person threshold is 0.363; linking whole videos needs a stricter one).")
    var identityThreshold: Double = IdentityOptions.defaultThreshold

    @Option(name: .customLong("identity-model"), help: "With --identities on: the SFace ONNX file to use instead of the installed one (not checked against the pinned sha256).")
    var identityModel: String?

    func validate() throws {
        if identities == .off && (embeddings || identityModel != nil) { throw ValidationError("--embeddings and --identity-model need --identities on.") }
        if !(-1...1).contains(identityThreshold) { throw ValidationError("--identity-threshold must be between -1 and 1, not \(identityThreshold).") }
    }

    /// The identity settings (nil: off); `runtime` runs SFace as it runs the face detector.
    func options(runtime: DNNRuntime) -> IdentityOptions? {
        guard identities == .on else { return nil }
        var options = IdentityOptions(writeEmbeddings: embeddings, modelPath: identityModel, runtime: runtime)
        options.threshold = identityThreshold
        return options
    }
}

/// Shot-cut detection: every track ends at a cut.
struct CutArguments: ParsableArguments {
    @Option(help: "Shot-cut detection (every track ends at a cut; cuts are written as `cut` records): on or off.")
    var cuts: Switch = .on

    @Option(name: .customLong("cut-threshold"), help: """
        A frame starts a new shot when the mean change of its hue, saturation and value from the \
        previous frame (0..255) is at least this (PySceneDetect's ContentDetector threshold).
        """)
    var cutThreshold: Double = 27

    @Option(name: .customLong("min-shot"), help: "Frames a shot lasts at least: no cut closer than this to the last frame over the threshold.")
    var minShot: Int = 15

    func validate() throws {
        if !(cutThreshold > 0 && cutThreshold <= 255) { throw ValidationError("--cut-threshold must be above 0 and at most 255, not \(cutThreshold).") }
        if !(0...100_000).contains(minShot) { throw ValidationError("--min-shot must be between 0 and 100000 frames, not \(minShot).") }
    }

    var options: CutOptions? { cuts == .on ? CutOptions(threshold: cutThreshold, minShot: minShot) : nil }
}

/// How many threads analyze: shared by every command that runs detectors.
struct PerformanceOptions: ParsableArguments {
    @Option(help: "Analysis worker threads, each with detectors of its own (default: all cores).")
    var threads: Int?

    func validate() throws {
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256, not \(threads).") }
    }

    var workers: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }
}

/// An on/off option value.
enum Switch: String, ExpressibleByArgument { case on, off }

extension FaceBackend: ExpressibleByArgument {}
extension DNNRuntime: ExpressibleByArgument {}
extension DNNPrecision: ExpressibleByArgument {
    /// bf16 is a hint to OpenVINO's CPU plugin; int8 (the default) falls back to f32 by itself.
    func validate(faces: FaceBackend, runtime: DNNRuntime) throws {
        if self == .bf16 && (faces.model == nil || runtime != .openvino) {
            throw ValidationError("--dnn-precision bf16 needs a DNN backend run by OpenVINO (--dnn-runtime openvino).")
        }
    }
}

extension ArgumentHelp {
    static let dnnPrecision: ArgumentHelp = """
        The arithmetic of the DNN face detector: int8 (the default: CenterFace's INT8 network, made \
        by Scripts/install-deps.sh, about a third of f32's cost with the same faces; other models, \
        --face-model files and --dnn-runtime opencv run in f32), f32 (32-bit floats throughout, the \
        reference), or bf16 (OpenVINO on CPUs that have bfloat16; boxes move by a few pixels and \
        depend on the machine). The stream record names the precision in effect and the model's sha256.
        """
}
extension CodeBackend: ExpressibleByArgument {}
extension CodeBinarizer: ExpressibleByArgument {}
extension CodeTextMode: ExpressibleByArgument {}
