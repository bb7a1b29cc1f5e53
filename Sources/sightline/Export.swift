import ArgumentParser
import Foundation
import Sightline

extension ExportFormat: ExpressibleByArgument {}

/// Which objects `export` writes.
enum ExportKindOption: String, ExpressibleByArgument, CaseIterable {
    case face, code, all
    var kinds: Set<TrackKind> {
        switch self {
        case .face: return [.face]
        case .code: return [.code]
        case .all: return [.face, .code]
        }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write saved records as annotations other tools read: MOTChallenge text, CVAT for video 1.1 XML, or COCO JSON.",
        discussion: """
            mot: one line per box, frame,id,x,y,w,h,score,-1,-1,-1 with 1-based frames (faces, or codes \
            with --kind code), as `sightline audit` and the MOTChallenge tools read it. cvat-video: one \
            <track> per track, a keyframe <box> per frame it is seen in, outside="1" on the frame after \
            it ends; codes carry symbology and payload attributes. coco: a video, one image per frame \
            (frame_id, video_id), one annotation per face or code with bbox and track_id; faces with \
            their five landmarks as keypoints. The file is written under a temporary name and renamed \
            when complete. Exit codes: 64 bad options; 65 malformed records (FILE:LINE: cause), or \
            records without the stream record's frame size (cvat-video, coco); 66 records missing or \
            unreadable; 73 the output cannot be created; 74 writing it failed.
            """
    )

    @Argument(help: "Records written by sightline analyze (or ground truth of the same shape).")
    var records: String

    @Option(help: "Annotation format: mot, cvat-video or coco.")
    var format: ExportFormat

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the annotations, - for standard output.", valueName: "OUT"))
    var output: String

    @Option(help: "Objects to write: face, code or all (default: face for mot, all for cvat-video and coco).")
    var kind: ExportKindOption?

    func validate() throws {
        if output.isEmpty { throw ValidationError("-o must name a file, or - for standard output.") }
        if format == .mot, kind == .all {
            throw ValidationError("--format mot holds one kind of object per file: use --kind face or --kind code.")
        }
    }

    func run() throws {
        // Created before anything is read, so an unwritable destination fails at once (exit 73).
        let destination = output == "-" ? nil : try ReportOutput(path: output)
        let file = try RecordFile(path: records)
        let kinds = (kind ?? (format == .mot ? .face : .all)).kinds
        let data = try RecordExporter(format: format, kinds: kinds).export(file)
        if let destination {
            try destination.commit(data)
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}
