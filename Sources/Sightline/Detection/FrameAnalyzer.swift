/// The analyzers one worker runs on a frame: a face detector and a code reader of its own
/// (neither OpenCV cascades nor zbar scanners may be shared between threads).
///
/// `@unchecked Sendable`: it is created on one thread and then used by exactly one worker.
public final class FrameAnalyzer: @unchecked Sendable {
    private let faceDetector: FaceDetecting?
    private let codeReader: CodeReader?
    /// Errors met on the frames this analyzer saw, by message.
    public private(set) var errors: [String] = []

    public init(faces: FaceDetectorOptions, codes: CodeReaderOptions) throws {
        faceDetector = try makeFaceDetector(faces)
        codeReader = try makeCodeReader(codes)
    }

    public func analyze(_ frame: VideoFrame) -> FrameRecord {
        let luma = frame.luma
        var faceStatus = AnalyzerStatus.off, codeStatus = AnalyzerStatus.off
        var faces: [FaceObservation] = [], codes: [CodeObservation] = []
        if let faceDetector {
            do {
                faces = try faceDetector.detect(frame)
                faceStatus = .ok
            } catch {
                faceStatus = .error
                errors.append("frame \(frame.index): \(error)")
            }
        }
        if let codeReader {
            do {
                codes = try codeReader.read(luma, rotation: frame.rotation)
                codeStatus = .ok
            } catch {
                codeStatus = .error
                errors.append("frame \(frame.index): \(error)")
            }
        }
        return FrameRecord(index: frame.index, pts: frame.pts, t: frame.seconds, faceStatus: faceStatus,
                           codeStatus: codeStatus, faces: faces, codes: codes)
    }
}
