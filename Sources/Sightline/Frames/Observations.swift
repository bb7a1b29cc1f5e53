import Foundation

/// How an observation was obtained.
public enum ObservationSource: String, Sendable {
    /// Found by the full-frame detector.
    case detected
    /// Found by a search in a region around a known track's predicted place (detection stride).
    case refined
    /// Not found: the track's box predicted from its motion.
    case interpolated
}

/// A face found in one frame.
public struct FaceObservation: Hashable, Sendable {
    public var box: Box
    /// Detector-specific ranking score: for cascades, the number of merged raw detections; for
    /// the DNN backends, the model's confidence 0..1.
    public var score: Double
    /// Five facial points, from detectors that give them (YuNet).
    public var landmarks: FaceLandmarks?
    /// Track id once a tracker (or a ground-truth file) assigned one.
    public var track: Int?
    /// The person the track was linked to by its face embedding (`--identities on`).
    public var identity: Int?
    public var source: ObservationSource
    /// Eyes, mouth, smile… when face attributes are on.
    public var attributes: FaceAttributes?

    public init(box: Box, score: Double, landmarks: FaceLandmarks? = nil, track: Int? = nil,
                source: ObservationSource = .detected, attributes: FaceAttributes? = nil) {
        self.box = box
        self.score = score
        self.landmarks = landmarks
        self.track = track
        self.source = source
        self.attributes = attributes
    }
}

/// Five facial points in pixels of the displayed frame. Left and right are the image's: for an
/// upright face, `leftEye` is the eye nearer the frame's left edge, which is the person's right
/// eye when they face the camera (and likewise for the mouth corners).
public struct FaceLandmarks: Hashable, Sendable {
    public var leftEye: Point
    public var rightEye: Point
    /// The tip of the nose.
    public var nose: Point
    public var mouthLeft: Point
    public var mouthRight: Point

    public init(leftEye: Point, rightEye: Point, nose: Point, mouthLeft: Point, mouthRight: Point) {
        self.leftEye = leftEye
        self.rightEye = rightEye
        self.nose = nose
        self.mouthLeft = mouthLeft
        self.mouthRight = mouthRight
    }
}

/// A machine-readable code found in one frame.
public struct CodeObservation: Hashable, Sendable {
    public var symbology: Symbology
    /// The decoded text (UTF-8; invalid sequences replaced when the payload is binary).
    public var text: String
    /// The raw payload bytes; written to records only when they differ from `text`'s UTF-8.
    public var bytes: [UInt8]
    /// Corner points as the reader reports them (4 for 2D codes; scan points for 1D codes).
    public var polygon: [Point]
    public var box: Box { Box(bounding: polygon) }
    /// Track id once a tracker (or a ground-truth file) assigned one.
    public var track: Int?
    public var source: ObservationSource
    /// The track's confirmation state in this frame, once the tracker assigned a track.
    public var state: CodeTrackState?

    public init(symbology: Symbology, text: String, bytes: [UInt8], polygon: [Point], track: Int? = nil,
                source: ObservationSource = .detected, state: CodeTrackState? = nil) {
        self.symbology = symbology
        self.text = text
        self.bytes = bytes
        self.polygon = polygon
        self.track = track
        self.source = source
        self.state = state
    }

    /// True when `bytes` are not the UTF-8 encoding of `text` (binary payloads, other character
    /// sets, or a text mode such as hex): then the records carry the bytes too.
    public var isBinary: Bool { !text.utf8.elementsEqual(bytes) }
}

/// Code symbologies, named the same way whichever reader found them.
public enum Symbology: String, CaseIterable, Sendable, Comparable {
    case qr, microQR = "micro-qr", aztec, dataMatrix = "datamatrix", pdf417, maxiCode = "maxicode"
    case ean13, ean8, upcA = "upca", upcE = "upce", isbn10, isbn13, ean2, ean5
    case code128, code39, code93, codabar, itf = "i25", dataBar = "databar", dataBarExpanded = "databar-exp"

    public static func < (a: Symbology, b: Symbology) -> Bool { a.rawValue < b.rawValue }
}
