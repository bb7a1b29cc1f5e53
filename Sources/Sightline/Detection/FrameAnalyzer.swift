import SightlineFrames
import SightlineMedia

/// The analyzers one worker runs on a frame: a face detector and a code reader of its own
/// (neither OpenCV cascades nor zbar scanners may be shared between threads).
///
/// `@unchecked Sendable`: it is created on one thread and then used by exactly one worker.
public final class FrameAnalyzer: @unchecked Sendable {
    private let faceDetector: FaceDetecting?
    private let attributeReader: FaceAttributeReader?
    private let codeReader: CodeReader?
    /// Errors met on the frames this analyzer saw.
    public private(set) var errors: [AnalyzerError] = []

    /// `workers`: the analyzers that share the compiled network (a run's analysis threads).
    public init(faces: ResolvedFaceDetector, codes: CodeReaderOptions, workers: Int = 1) throws {
        faceDetector = try makeFaceDetector(faces, workers: workers)
        attributeReader = faceDetector != nil && faces.options.attributes ? try FaceAttributeReader() : nil
        codeReader = try makeCodeReader(codes)
    }

    /// Starts making the face detector ready for frames of this displayed size in the
    /// background, so that it overlaps reading the input (a scan reads every packet first).
    package func prepare(width: Int, height: Int) { faceDetector?.prepare(width: width, height: height) }

    /// The record of a frame a live source delivered while every worker was busy, and too late
    /// to be searched: on the timeline, not analyzed. Reads only what the analyzer was built
    /// with, so any thread may call it.
    public func droppedRecord(_ frame: VideoFrame) -> FrameRecord { record(of: frame, status: .dropped) }

    /// The record of a frame without full detection: the tracking stage searches it around the
    /// known objects. Any thread may call it (a live source's frame that found every worker busy).
    public func skippedRecord(_ frame: VideoFrame) -> FrameRecord { record(of: frame, status: .skipped) }

    private func record(of frame: VideoFrame, status: AnalyzerStatus) -> FrameRecord {
        FrameRecord(index: frame.position, pts: frame.pts, t: frame.seconds, faceStatus: faceDetector == nil ? .off : status,
                    codeStatus: codeReader == nil ? .off : status, faces: [], codes: [])
    }

    /// Runs the detectors on the whole frame as `plan` says (faces: with its tile, if it has
    /// one): without full detection it only records the frame (the tracking stage searches it around known objects); without the full
    /// code search, no code search (the tracking stage reads the known codes in their regions).
    public func analyze(_ frame: VideoFrame, plan: FramePlan = .whole) -> FrameRecord {
        let luma = frame.luma
        var faceStatus = AnalyzerStatus.off, codeStatus = AnalyzerStatus.off
        var faces: [FaceObservation] = [], codes: [CodeObservation] = []
        var faceSearch: FaceSearch?
        if !plan.fullDetection { return skippedRecord(frame) }
        if let faceDetector {
            do {
                (faces, faceSearch) = try faceDetector.detect(frame, tile: plan.tile)
                if let attributeReader {
                    for i in faces.indices {
                        var attributes = try attributeReader.read(face: faces[i].box, in: luma, rotation: frame.rotation)
                        // A detector's own landmarks (YuNet) place eyes and mouth better than cascades.
                        if let landmarks = faces[i].landmarks { attributes = (attributes ?? FaceAttributes()).placed(by: landmarks) }
                        faces[i].attributes = attributes
                    }
                }
                faceStatus = .ok
            } catch {
                faceStatus = .error
                errors.append(AnalyzerError(frame: frame.position, message: "\(error)"))
            }
        }
        if codeReader != nil && !plan.fullCodeSearch {
            // Between full searches the tracking stage reads each known code in its region.
            codeStatus = .skipped
        } else if let codeReader {
            do {
                codes = try codeReader.read(luma, rotation: frame.rotation)
                codeStatus = .ok
            } catch {
                codeStatus = .error
                errors.append(AnalyzerError(frame: frame.position, message: "\(error)"))
            }
        }
        var record = FrameRecord(index: frame.position, pts: frame.pts, t: frame.seconds, faceStatus: faceStatus,
                                 codeStatus: codeStatus, faces: faces, codes: codes)
        record.faceSearch = faceSearch
        return record
    }
}

/// An analyzer's failure on one frame (the records say error; the summary counts them).
public struct AnalyzerError: Sendable, CustomStringConvertible {
    public let frame: Int
    public let message: String
    public var description: String { "frame \(frame): \(message)" }
}
