import Foundation
import SightlineFrames
import SightlineRecords

/// COCO JSON for a video, in the layout video-aware COCO readers share (COCO-VID, TAO): one `videos`
/// entry; one image per frame record with its `frame_id` (the frame's index in the stream) and
/// `video_id`; one annotation per face or code with `bbox` [x, y, w, h], `area`, `iscrowd` 0 and its
/// `track_id`, also under `attributes` where CVAT's COCO files keep it. Faces are category 1 with the
/// five landmarks as COCO keypoints (x, y, 2 where the records have them; all 0 and `num_keypoints`
/// 0 where not) and their `score` when the records have scores; codes are category 2 with their
/// corner polygon as `segmentation` and their symbology and payload under `attributes`. Image file
/// names are those `ffmpeg -i INPUT -start_number 0 frame_%06d.jpg` gives the video's frames.
struct COCOExport {
    let file: RecordFile
    /// The frame records, by index.
    let frames: [FrameRecord]
    let video: ExportedVideo
    let kinds: Set<TrackKind>

    static let keypointNames = ["left_eye", "right_eye", "nose", "mouth_left", "mouth_right"]

    var json: JSON {
        let ids = ExportTrackIDs(frames: frames)
        func px(_ v: Double) -> JSON { .fixed(v, digits: Precision.pixels) }
        func bbox(_ b: Box) -> [(String, JSON)] {
            [("bbox", .array([px(b.x), px(b.y), px(b.w), px(b.h)])), ("area", .fixed(b.area, digits: 4)), ("iscrowd", .int(0))]
        }
        var images: [JSON] = []
        var annotations: [JSON] = []
        for (k, frame) in frames.enumerated() {
            let imageID = Int64(frame.index) + 1   // COCO ids start at 1
            images.append(.object([
                ("id", .int(imageID)), ("video_id", .int(1)), ("frame_id", .int(Int64(frame.index))),
                ("file_name", .string(String(format: "frame_%06d.jpg", frame.index))),
                // Each image its own size (a video whose frames change size).
                ("width", .int(Int64(frame.frameSize?.width ?? video.width))), ("height", .int(Int64(frame.frameSize?.height ?? video.height))),
                ("t", .fixed(frame.t, digits: Precision.seconds)),
            ]))
            func annotation(category: Int64, track: Int, _ members: [(String, JSON)]) -> JSON {
                let head: [(String, JSON)] = [("id", .int(Int64(annotations.count + 1))), ("image_id", .int(imageID)),
                                              ("video_id", .int(1)), ("category_id", .int(category)), ("track_id", .int(Int64(track)))]
                return .object(head + members)
            }
            if kinds.contains(.face) {
                for (f, face) in frame.faces.enumerated() {
                    let track = ids.faces[k][f]
                    var members = bbox(face.box)
                    if file.facesHaveScores { members.append(("score", .fixed(face.score, digits: Precision.score))) }
                    if let l = face.landmarks {
                        let points = [l.leftEye, l.rightEye, l.nose, l.mouthLeft, l.mouthRight]
                        members.append(("keypoints", .array(points.flatMap { [px($0.x), px($0.y), .int(2)] })))
                        members.append(("num_keypoints", .int(5)))
                    } else {
                        members.append(("keypoints", .array([JSON](repeating: .int(0), count: 15))))
                        members.append(("num_keypoints", .int(0)))
                    }
                    members.append(("segmentation", .array([])))
                    members.append(("attributes", .object([("track_id", .int(Int64(track)))])))
                    annotations.append(annotation(category: 1, track: track, members))
                }
            }
            if kinds.contains(.code) {
                for (c, code) in frame.codes.enumerated() {
                    let track = ids.codes[k][c]
                    var members = bbox(code.box)
                    members.append(("keypoints", .array([])))
                    members.append(("num_keypoints", .int(0)))
                    // A polygon needs 3 corners; 1D codes may report only their scan line.
                    let polygon: [JSON] = code.polygon.count >= 3 ? [.array(code.polygon.flatMap { [px($0.x), px($0.y)] })] : []
                    members.append(("segmentation", .array(polygon)))
                    var attributes: [(String, JSON)] = [("track_id", .int(Int64(track))), ("symbology", .string(code.symbology.rawValue)),
                                                        ("payload", .string(code.text))]
                    if code.isBinary { attributes.append(("payload_base64", .string(Data(code.bytes).base64EncodedString()))) }
                    members.append(("attributes", .object(attributes)))
                    annotations.append(annotation(category: 2, track: track, members))
                }
            }
        }
        let categories: [JSON] = [
            .object([("id", .int(1)), ("name", .string("face")), ("supercategory", .string("face")),
                     ("keypoints", .array(Self.keypointNames.map { .string($0) })), ("skeleton", .array([]))]),
            .object([("id", .int(2)), ("name", .string("code")), ("supercategory", .string("code")),
                     ("keypoints", .array([])), ("skeleton", .array([]))]),
        ]
        var videoMembers: [(String, JSON)] = [("id", .int(1)), ("name", .string(video.name)),
                                              ("width", .int(Int64(video.width))), ("height", .int(Int64(video.height))),
                                              ("frames", .int(Int64(frames.count)))]
        if let rate = file.frameRate { videoMembers.append(("frame_rate", .fixed(rate, digits: 6))) }
        return .object([
            ("info", .object([("description", .string("sightline export of \(URL(fileURLWithPath: file.path).lastPathComponent)"))])),
            ("licenses", .array([])),
            ("categories", .array(categories)),
            ("videos", .array([.object(videoMembers)])),
            ("images", .array(images)),
            ("annotations", .array(annotations)),
        ])
    }
}
