import CVision
import Foundation

/// Which face detector runs.
public enum FaceBackend: String, CaseIterable, Sendable {
    case haar, haarAlt2 = "haar-alt2", lbp, off

    /// The OpenCV cascade file (from Debian's opencv-data) behind each cascade backend.
    var cascadeFile: String? {
        switch self {
        case .haar: return "haarcascades/haarcascade_frontalface_default.xml"
        case .haarAlt2: return "haarcascades/haarcascade_frontalface_alt2.xml"
        case .lbp: return "lbpcascades/lbpcascade_frontalface_improved.xml"
        case .off: return nil
        }
    }
}

/// Options for face detection, one value shared by every worker's detector.
public struct FaceDetectorOptions: Sendable, Equatable {
    public var backend: FaceBackend = .haarAlt2
    /// Smallest face searched for, in pixels of the displayed frame.
    public var minFace = 40
    /// Width of the downscaled image the detector runs on (0: full size).
    public var detectWidth = 640
    /// Cascade pyramid step.
    public var scaleFactor = 1.1
    /// Raw detections that must agree before a face is reported.
    public var minNeighbors = 3
    /// Search each face for eyes and a smile (FaceAttributes).
    public var attributes = true

    public init(backend: FaceBackend = .haarAlt2, minFace: Int = 40, detectWidth: Int = 640) {
        self.backend = backend
        self.minFace = minFace
        self.detectWidth = detectWidth
    }

    /// Folders searched for OpenCV's cascade files: $SIGHTLINE_OPENCV_DATA first, then the
    /// places Debian's and upstream's opencv-data install them.
    static var dataDirectories: [String] {
        var dirs = ["/usr/share/opencv4", "/usr/local/share/opencv4", "/usr/share/opencv"]
        if let custom = ProcessInfo.processInfo.environment["SIGHTLINE_OPENCV_DATA"] { dirs.insert(custom, at: 0) }
        return dirs
    }

    /// Full path of the cascade file, or nil when the backend has none.
    public func cascadePath() throws -> String? {
        try backend.cascadeFile.map { try Self.dataFile($0, for: backend.rawValue) }
    }

    /// Full path of an opencv-data file such as "haarcascades/haarcascade_eye.xml".
    static func dataFile(_ file: String, for detector: String) throws -> String {
        for dir in dataDirectories {
            let path = dir + "/" + file
            if FileManager.default.isReadableFile(atPath: path) { return path }
        }
        throw SightlineError.detectorUnavailable(
            name: detector,
            reason: "\((file as NSString).lastPathComponent) not found in \(dataDirectories.joined(separator: ", ")) (install Debian's opencv-data)")
    }
}

/// An OpenCV cascade face detector. Not thread-safe: one instance per worker.
public final class CascadeFaceDetector {
    private let handle: OpaquePointer
    private let options: FaceDetectorOptions
    private var found = [slv_face](repeating: slv_face(), count: 256)

    public init(options: FaceDetectorOptions, path: String) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = slv_cascade_create(path, &error, error.count) else {
            throw SightlineError.detectorUnavailable(name: path, reason: error.cString)
        }
        self.handle = handle
        self.options = options
    }

    deinit { slv_cascade_destroy(handle) }

    /// Faces in the displayed (rotated) frame. `region`, in displayed-frame pixels, limits the
    /// search, and `sizes` overrides the options' face sizes (both for region refinement).
    public func detect(in image: GrayImage, rotation: Rotation, region: Box? = nil,
                       sizes: ClosedRange<Int>? = nil) throws -> [FaceObservation] {
        var o = slv_cascade_options()
        o.detect_width = Int32(options.detectWidth)
        o.min_face = Int32(sizes?.lowerBound ?? options.minFace)
        o.max_face = Int32(sizes?.upperBound ?? 0)
        o.rotation = Int32(rotation.degrees)
        o.scale_factor = options.scaleFactor
        o.min_neighbors = Int32(options.minNeighbors)
        if let region {
            o.roi_x = Int32(region.x.rounded(.down)); o.roi_y = Int32(region.y.rounded(.down))
            o.roi_w = Int32(region.w.rounded(.up)); o.roi_h = Int32(region.h.rounded(.up))
        }
        var error = [CChar](repeating: 0, count: 512)
        let count = slv_cascade_detect(handle, image.image, &o, &found, Int32(found.count), &error, error.count)
        guard count >= 0 else {
            throw SightlineError.internal("face detection failed: " + error.cString)
        }
        return found.prefix(Int(count)).map {
            FaceObservation(box: Box(x: Double($0.x), y: Double($0.y), w: Double($0.w), h: Double($0.h)), score: Double($0.neighbors))
        }
    }
}
