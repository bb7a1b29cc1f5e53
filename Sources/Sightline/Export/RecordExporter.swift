import Foundation
import SightlineFrames
import SightlineRecords

/// The annotation formats `sightline export` writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// MOTChallenge text (one kind of object per file), as `audit` reads it.
    case mot
    /// CVAT for video 1.1 XML: one track per Sightline track.
    case cvatVideo = "cvat-video"
    /// COCO JSON with a video, one image per frame, and track ids (COCO-VID / TAO style).
    case coco
}

/// Turns a record file into another tool's annotation format.
public struct RecordExporter: Sendable {
    public var format: ExportFormat
    /// What to export: faces, codes or both (MOTChallenge text holds one kind only).
    public var kinds: Set<TrackKind>

    public init(format: ExportFormat, kinds: Set<TrackKind>) {
        self.format = format
        self.kinds = kinds
    }

    /// The whole export. Fails with the file's `RecordFileError` when the records lack what the
    /// format needs (the frame size, from the stream record, for CVAT and COCO).
    public func export(_ file: RecordFile) throws -> Data {
        let frames = file.frames.sorted { $0.index < $1.index }
        switch format {
        case .mot:
            let kind: AuditKind = kinds.contains(.face) ? .faces : .codes
            return Data(MOTChallengeText.text(of: frames, kind: kind, scores: file.facesHaveScores).utf8)
        case .cvatVideo:
            return Data(CVATVideoExport(frames: frames, video: try ExportedVideo(file), kinds: kinds).xml.utf8)
        case .coco:
            return Data(COCOExport(file: file, frames: frames, video: try ExportedVideo(file), kinds: kinds).json.serialized().utf8)
        }
    }
}

/// What CVAT and COCO say about the video: its name and frame size, from the stream record.
struct ExportedVideo {
    var name: String
    var width: Int
    var height: Int

    init(_ file: RecordFile) throws {
        guard let stream = file.stream, let width = stream.width, let height = stream.height, width > 0, height > 0 else {
            throw RecordFileError(path: file.path, line: 0,
                                  reason: "no stream record with the frame size (width, height), which CVAT and COCO files need")
        }
        let source = stream.source ?? URL(fileURLWithPath: file.path).deletingPathExtension().lastPathComponent
        self.name = URL(fileURLWithPath: source).lastPathComponent
        self.width = width
        self.height = height
    }
}

/// One track id for every exported observation. Sightline's ids are kept; an observation without a
/// track, or a code whose id a face already has (a hand-made file), gets a fresh id above all
/// others, because CVAT and COCO readers take one id space across labels.
struct ExportTrackIDs {
    /// Per frame (in the order given), per face or code of that frame.
    var faces: [[Int]] = []
    var codes: [[Int]] = []

    init(frames: [FrameRecord]) {
        let used = frames.flatMap { $0.faces.compactMap(\.track) + $0.codes.compactMap(\.track) }
        var next = (used.max() ?? 0) + 1
        var faceIDs: Set<Int> = []
        var codeIDs: [Int: Int] = [:]   // code track -> exported id
        for frame in frames {
            faces.append(frame.faces.map { face in
                guard let id = face.track else { defer { next += 1 }; return next }
                faceIDs.insert(id)
                return id
            })
        }
        for frame in frames {
            codes.append(frame.codes.map { code in
                guard let id = code.track else { defer { next += 1 }; return next }
                if let mapped = codeIDs[id] { return mapped }
                let mapped = faceIDs.contains(id) ? next : id
                if mapped == next { next += 1 }
                codeIDs[id] = mapped
                return mapped
            })
        }
    }
}
