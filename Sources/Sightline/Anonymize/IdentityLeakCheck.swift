import Foundation
import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// The identity check of `leaks`: a sink of the run over the original that reads the anonymized
/// video in step with it. For every face of the original frame from `LeakAudit.identityMinFace`
/// with landmarks, SFace embeds the face and the same region of the anonymized frame (aligned by
/// the original's landmarks); a cosine similarity of at least the threshold is a leak, whether or
/// not a detector finds a face there. Reading both videos in step keeps nothing but the two
/// current frames, whatever the video's length.
final class IdentityLeakCheck: FrameSink {
    private let anonymized: FrameSource
    private let threshold: Double
    /// One per lane: a frame's faces are embedded in parallel.
    private let embedders: [FaceEmbedder]
    private(set) var report: LeakCheckReport
    /// Frames read from the anonymized video.
    private var read = 0
    private var ended = false

    init(anonymized: FrameSource, threshold: Double, model: String?, runtime: DNNRuntime, lanes: Int) throws {
        self.anonymized = anonymized
        self.threshold = threshold
        let file = try FaceEmbedder.model(path: model)
        embedders = try (0..<max(1, lanes)).map { _ in try FaceEmbedder(model: file, runtime: runtime, workers: max(1, lanes)) }
        report = LeakCheckReport(check: .identity, detector: nil, threshold: threshold)
    }

    func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        guard !ended, let picture else { return }
        guard let other = try anonymized.nextFrame() else {
            ended = true   // fewer frames: `framesRead` says how many, after the run
            return
        }
        read += 1
        let faces = record.faces.filter { min($0.box.w, $0.box.h) >= LeakAudit.identityMinFace && $0.landmarks != nil }
        let embedders = self.embedders
        let similarities = inParallel(faces.count, lanes: embedders.count) { k, lane in
            Result {
                let landmarks = faces[k].landmarks!
                let before = try embedders[lane].embed(AlignedFace(picture, landmarks: landmarks))
                let after = try embedders[lane].embed(AlignedFace(other, landmarks: landmarks))
                return before.cosine(after)
            }
        }
        report.originalFaces += faces.count
        for (face, similarity) in zip(faces, similarities) {
            let similarity = try similarity.get()
            if similarity >= threshold {
                report.leaks.append(Leak(check: .identity, frame: read - 1, t: record.t, box: face.box, score: similarity, original: nil))
            }
        }
    }

    /// The anonymized video's frame count (read to its end), once the run over the original is over.
    func framesRead() throws -> Int {
        if !ended { while try anonymized.nextFrame() != nil { read += 1 } }
        if !anonymized.damage.isEmpty {
            throw SightlineError.inputDamaged(path: anonymized.info.source, reason: "\(anonymized.damage)")
        }
        return read
    }
}
