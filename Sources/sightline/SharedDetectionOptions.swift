import ArgumentParser
import Sightline

// Options several commands declare with defaults of their own: each is declared and validated
// once here, generic over the command's defaults.

/// `--min-face` and `--face-width`, declared and validated once for every command that detects
/// faces. Their defaults and help differ by purpose (`analyze` looks for faces from 40 px on a
/// 640 px frame, `anonymize` covers them from 16 px at full size, `leaks` audits at full size),
/// so each command names its own `FaceSizeDefaults`.
struct FaceSizeOptions<Defaults: FaceSizeDefaults>: ParsableArguments {
    @Option(name: .customLong("min-face"), help: ArgumentHelp(Defaults.minFaceHelp))
    var minFace: Int?

    @Option(name: .customLong("face-width"), help: ArgumentHelp(Defaults.faceWidthHelp))
    var faceWidth: Int = Defaults.faceWidth

    func validate() throws {
        if let minFace, !(1...100_000).contains(minFace) { throw ValidationError("--min-face must be between 1 and 100000 pixels, not \(minFace).") }
        if faceWidth != 0 && !(32...16_384).contains(faceWidth) { throw ValidationError("--face-width must be 0 (full size) or between 32 and 16384, not \(faceWidth).") }
    }
}

extension FaceSizeOptions {
    /// `--min-face`, or the command's default for `backend`.
    func minFace(for backend: FaceBackend) -> Int { minFace ?? Defaults.minFace(for: backend) }
}

/// A command's defaults and help for `FaceSizeOptions`.
protocol FaceSizeDefaults {
    static var minFace: Int { get }
    /// The default `--min-face` of one backend (`minFace` unless a command says otherwise).
    static func minFace(for backend: FaceBackend) -> Int
    static var minFaceHelp: String { get }
    static var faceWidth: Int { get }
    static var faceWidthHelp: String { get }
}

extension FaceSizeDefaults {
    static func minFace(for backend: FaceBackend) -> Int { minFace }
}

/// `analyze`, `capture`, `snapshot` and `scan`: with centerface faces from 16 px (the whole
/// frame on a 640 px frame as far as 40 px faces allow, the smaller faces on full-size tiles);
/// the other detectors from 40 px (under 20 px in their input they give more false faces than faces).
enum FindFaces: FaceSizeDefaults {
    static let minFace = FaceDetectorOptions().minFace
    static func minFace(for backend: FaceBackend) -> Int { backend == .centerface ? minFace : FaceDetectorOptions.wholeFrameMinFace }
    static let minFaceHelp = """
        Smallest face to find, in pixels of the displayed frame (default: 16 with centerface, 40 \
        with the others). centerface: where the whole-frame pass (sized for 40 px faces, see \
        --face-width) cannot see faces this small, they are searched on full-size tiles of the frame, \
        one per analyzed frame in turn, and each face found is followed on every frame by a search \
        around it (docs/tracking.md). 40 turns the tiles off: faster, large faces only.
        """
    static let faceWidth = 640
    static let faceWidthHelp = """
        Width the frame is scaled down to for face detection (0: full size). The cascade cannot \
        see faces smaller than its window (20 px for haar-alt2, 24 for haar, 45 for lbp) in the \
        scaled image: with 640, that is 40 px at 720p and 60 px at 1080p for haar-alt2. yunet uses \
        it too; centerface too, but never so small that a --min-face face is under 20 px in it \
        (1080p: 960 px for 40 px faces), each side rounded to a multiple of 32; ultraface scales \
        the frame to its fixed input (320x240 or 640x480) instead.
        """
}

/// `--detect-every` and `--max-gap`, declared and validated once: how often the whole frame is
/// searched, and how long a track lives unseen. Each command names its `TrackDefaults`.
struct TrackOptions<Defaults: TrackDefaults>: ParsableArguments {
    @Option(name: .customLong("detect-every"), help: ArgumentHelp(Defaults.detectEveryHelp))
    var detectEvery: Int = Defaults.detectEvery

    @Option(name: .customLong("max-gap"), help: "Frames a track may go unseen before it ends.")
    var maxGap: Int = 15

    func validate() throws {
        if !(1...1000).contains(detectEvery) { throw ValidationError("--detect-every must be between 1 and 1000, not \(detectEvery).") }
        if !(0...100_000).contains(maxGap) { throw ValidationError("--max-gap must be between 0 and 100000 frames, not \(maxGap).") }
    }
}

/// A command's default and help for `--detect-every`.
protocol TrackDefaults {
    static var detectEvery: Int { get }
    static var detectEveryHelp: String { get }
}

extension FindFaces: TrackDefaults {
    static let detectEvery = 1
    static let detectEveryHelp = """
        Run the full-frame detectors on every Nth frame only; in between, known faces and codes \
        are searched for around their predicted place (new objects appear within N frames).
        """
}
