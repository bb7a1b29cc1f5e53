import Foundation

/// What was measured inside a face box, in the spirit of CIFaceFeature. A value that could not
/// be measured is nil and left out of the record, never guessed.
///
/// Left and right are the displayed image's: `leftEye` is the eye on the image's left (the
/// subject's right eye).
public struct FaceAttributes: Hashable, Sendable {
    public var leftEye: Point?
    public var rightEye: Point?
    public var mouth: Point?
    public var smile: Bool?
    public var leftEyeClosed: Bool?
    public var rightEyeClosed: Bool?
    /// Head roll in degrees from the eye line, clockwise positive (y grows downwards).
    public var roll: Double?

    public init(leftEye: Point? = nil, rightEye: Point? = nil, mouth: Point? = nil, smile: Bool? = nil,
                leftEyeClosed: Bool? = nil, rightEyeClosed: Bool? = nil, roll: Double? = nil) {
        self.leftEye = leftEye
        self.rightEye = rightEye
        self.mouth = mouth
        self.smile = smile
        self.leftEyeClosed = leftEyeClosed
        self.rightEyeClosed = rightEyeClosed
        self.roll = roll
    }
}

extension FaceAttributes {
    /// Eye and mouth positions (and the roll) taken from a detector's landmarks; what only the
    /// cascades measure (smile, closed eyes) is kept.
    package func placed(by landmarks: FaceLandmarks) -> FaceAttributes {
        var a = self
        a.leftEye = landmarks.leftEye
        a.rightEye = landmarks.rightEye
        a.mouth = Point(x: (landmarks.mouthLeft.x + landmarks.mouthRight.x) / 2, y: (landmarks.mouthLeft.y + landmarks.mouthRight.y) / 2)
        a.roll = Self.roll(left: landmarks.leftEye, right: landmarks.rightEye)
        return a
    }

    /// Degrees the eye line turns from horizontal (clockwise positive, y down).
    package static func roll(left: Point, right: Point) -> Double { atan2(right.y - left.y, right.x - left.x) * 180 / .pi }
}
