import CVision
import Foundation
import SightlineFrames
import SightlineMedia

/// Eye and smile cascades (opencv-data) searched inside face boxes. One instance per thread.
public final class FaceAttributeReader {
    private let eyes: OpaquePointer
    private let smile: OpaquePointer

    public init() throws {
        func load(_ file: String) throws -> OpaquePointer {
            let path = try FaceDetectorOptions.dataFile(file, for: "face attributes")
            var error = [CChar](repeating: 0, count: 512)
            guard let cascade = slv_cascade_create(path, &error, error.count) else {
                throw SightlineError.detectorUnavailable(name: path, reason: error.cString)
            }
            return cascade
        }
        eyes = try load("haarcascades/haarcascade_eye.xml")
        do {
            smile = try load("haarcascades/haarcascade_smile.xml")
        } catch {
            slv_cascade_destroy(eyes)
            throw error
        }
    }

    deinit {
        slv_cascade_destroy(eyes)
        slv_cascade_destroy(smile)
    }

    /// The attributes of the face at `box` (displayed-frame pixels).
    public func read(face box: Box, in image: GrayImage, rotation: Rotation) throws -> FaceAttributes? {
        var parts = slv_face_parts()
        var error = [CChar](repeating: 0, count: 512)
        let status = slv_face_parts_detect(eyes, smile, image.image, Int32(rotation.degrees), Float(box.x), Float(box.y),
                                           Float(box.w), Float(box.h), &parts, &error, error.count)
        guard status >= 0 else { throw SightlineError.internal("face attributes failed: " + error.cString) }
        guard status == 1 else { return nil }
        var a = FaceAttributes()
        // A frontal face has both eyes: one not found where it should be counts as closed.
        a.leftEyeClosed = parts.left_eye == 0
        a.rightEyeClosed = parts.right_eye == 0
        if parts.left_eye != 0 { a.leftEye = Point(x: Double(parts.left_x), y: Double(parts.left_y)) }
        if parts.right_eye != 0 { a.rightEye = Point(x: Double(parts.right_x), y: Double(parts.right_y)) }
        if let l = a.leftEye, let r = a.rightEye {
            a.roll = FaceAttributes.roll(left: l, right: r)
        }
        a.smile = parts.smile != 0
        if parts.smile != 0 { a.mouth = Point(x: Double(parts.mouth_x), y: Double(parts.mouth_y)) }
        return a
    }
}
