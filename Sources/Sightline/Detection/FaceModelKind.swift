import CVision
import Foundation
import Synchronization
import SightlineFrames

/// The ONNX face detector formats Sightline decodes: what input each takes and how its outputs
/// become faces. The same for every inference runtime.
public enum FaceModelKind: Sendable, Equatable {
    /// YuNet 2022 (libfacedetection, "legacy"): BGR 0..255, any input size; outputs loc, conf,
    /// iou over prior boxes generated here.
    case yunetLegacy
    /// UltraFace (version-RFB-320/-640): RGB (x - 127) / 128 at a fixed size; outputs scores and
    /// boxes, already decoded by the graph.
    case ultraface(width: Int, height: Int)
    /// CenterFace: RGB 0..255, width and height multiples of 32; outputs at stride 4: heatmap,
    /// scale (log, height first), offset, and ten landmark coordinates relative to the box.
    case centerface

    /// The output tensors decoded, in the order `decode` takes them.
    package var outputs: [String] {
        switch self {
        case .yunetLegacy: return ["loc", "conf", "iou"]
        case .ultraface: return ["scores", "boxes"]
        case .centerface: return ["537", "538", "539", "540"]
        }
    }

    /// The fixed input size (width, height), or nil when the input follows the frame.
    public var fixedInput: (width: Int, height: Int)? {
        if case let .ultraface(width, height) = self { return (width, height) }
        return nil
    }

    /// Channel order and value map of the input image.
    package var layout: InputLayout {
        switch self {
        case .yunetLegacy: return InputLayout(rgb: false, scale: 1, offset: 0)
        case .ultraface: return InputLayout(rgb: true, scale: 1.0 / 128, offset: -127.0 / 128)
        case .centerface: return InputLayout(rgb: true, scale: 1, offset: 0)
        }
    }

    /// The smallest face, in input pixels, the networks find reliably. CenterFace, on the sample
    /// scaled so that its smaller face is 40 px (Scripts/scale_sample.py) at 720p and 1080p:
    /// at 20 px in the input, recall 0.998 (threshold 0.4), at 16.7 px 0.74, at 25 px 1.000. On
    /// the dlib photos at full size, every box under it was a false positive (CenterFace 12–16 px,
    /// YuNet 18 px, UltraFace-640 18 px) and every face was above it (22 px and more).
    package static let smallestReliableFace = 20.0

    /// The network input for a displayed frame of `width` x `height`: UltraFace's fixed size
    /// (aspect not kept: its priors are in the graph); otherwise the frame scaled down to
    /// `detectWidth` (0: full size). CenterFace is never scaled so far that a `minFace` face
    /// becomes smaller than `smallestReliableFace`, and each side is rounded to a multiple of
    /// 32 (aspect off by at most 16 px, as CenterFace's own code does).
    public func inputSize(width: Int, height: Int, detectWidth: Int, minFace: Int) -> (width: Int, height: Int) {
        if let fixed = fixedInput { return fixed }
        var scale = detectWidth > 0 && detectWidth < width ? Double(detectWidth) / Double(width) : 1
        if self == .centerface { scale = min(1, max(scale, Self.smallestReliableFace / Double(max(1, minFace)))) }
        let w = max(1, Int((Double(width) * scale).rounded())), h = max(1, Int((Double(height) * scale).rounded()))
        guard self == .centerface else { return (w, h) }
        func multipleOf32(_ v: Int) -> Int { max(32, (v + 16) / 32 * 32) }
        return (multipleOf32(w), multipleOf32(h))
    }

    /// Faces in input-image pixels with a score of at least `threshold`, before overlap removal.
    package func decode(_ outputs: [Tensor], input: (width: Int, height: Int), threshold: Float) throws -> [FaceCandidate] {
        switch self {
        case .yunetLegacy: return try decodeYuNet(outputs, input: input, threshold: threshold)
        case .ultraface: return try decodeUltraFace(outputs, input: input, threshold: threshold)
        case .centerface: return try decodeCenterFace(outputs, input: input, threshold: threshold)
        }
    }

    // MARK: YuNet 2022

    /// Prior boxes for an input of w x h, in the order of the model's outputs: level (steps 8,
    /// 16, 32, 64), row, column, size.
    package static func yunetPriors(width: Int, height: Int) -> [(cx: Float, cy: Float, size: Float)] {
        let steps: [Float] = [8, 16, 32, 64]
        let minSizes: [[Float]] = [[10, 16, 24], [32, 48], [64, 96], [128, 192, 256]]
        // The first three stride-2 stages: ceil for the first, floor after it.
        var fw = (width + 1) / 2 / 2 / 2, fh = (height + 1) / 2 / 2 / 2
        var priors: [(cx: Float, cy: Float, size: Float)] = []
        for level in 0..<4 {
            let step = steps[level]
            for row in 0..<fh {
                for col in 0..<fw {
                    for size in minSizes[level] {
                        priors.append(((Float(col) + 0.5) * step, (Float(row) + 0.5) * step, size))
                    }
                }
            }
            fw /= 2
            fh /= 2
        }
        return priors
    }

    /// The prior boxes of each input size, made once: every frame of a stream has the same size.
    private static let yunetPriorCache = Mutex<[Int: [(cx: Float, cy: Float, size: Float)]]>([:])

    private static func cachedYuNetPriors(width: Int, height: Int) -> [(cx: Float, cy: Float, size: Float)] {
        yunetPriorCache.withLock { cache in
            let key = width << 32 | height
            if let priors = cache[key] { return priors }
            let priors = yunetPriors(width: width, height: height)
            cache[key] = priors
            return priors
        }
    }

    private func decodeYuNet(_ outputs: [Tensor], input: (width: Int, height: Int), threshold: Float) throws -> [FaceCandidate] {
        let priors = Self.cachedYuNetPriors(width: input.width, height: input.height)
        let n = priors.count
        let loc = outputs[0].values, conf = outputs[1].values, iou = outputs[2].values
        guard loc.count == n * 14, conf.count == n * 2, iou.count == n else {
            throw InferenceError.failed("the model's outputs do not match YuNet 2022 (loc N x 14, conf N x 2, iou N x 1 for \(n) prior boxes)")
        }
        var found: [FaceCandidate] = []
        for i in 0..<n {
            let iouScore = min(1, max(0, iou[i]))
            let score = (max(0, conf[2 * i + 1]) * iouScore).squareRoot()
            guard score >= threshold else { continue }
            let p = priors[i]
            let l = 14 * i
            let cx = p.cx + loc[l] * 0.1 * p.size, cy = p.cy + loc[l + 1] * 0.1 * p.size
            let w = p.size * exp(loc[l + 2] * 0.2), h = p.size * exp(loc[l + 3] * 0.2)
            var landmarks = [Float](repeating: 0, count: 10)
            for k in 0..<5 {
                let dx: Float = loc[l + 4 + 2 * k] * 0.1 * p.size, dy: Float = loc[l + 5 + 2 * k] * 0.1 * p.size
                landmarks[2 * k] = p.cx + dx
                landmarks[2 * k + 1] = p.cy + dy
            }
            found.append(FaceCandidate(x: cx - w / 2, y: cy - h / 2, w: w, h: h, score: score, landmarks: landmarks))
        }
        return found
    }

    // MARK: UltraFace

    private func decodeUltraFace(_ outputs: [Tensor], input: (width: Int, height: Int), threshold: Float) throws -> [FaceCandidate] {
        let scores = outputs[0].values, boxes = outputs[1].values
        let n = scores.count / 2
        guard n > 0, scores.count == n * 2, boxes.count == n * 4 else {
            throw InferenceError.failed("the model's outputs do not match UltraFace (scores N x 2, boxes N x 4)")
        }
        let iw = Float(input.width), ih = Float(input.height)
        var found: [FaceCandidate] = []
        for i in 0..<n where scores[2 * i + 1] >= threshold {
            let b = 4 * i
            found.append(FaceCandidate(x: boxes[b] * iw, y: boxes[b + 1] * ih, w: (boxes[b + 2] - boxes[b]) * iw,
                                       h: (boxes[b + 3] - boxes[b + 1]) * ih, score: scores[2 * i + 1], landmarks: []))
        }
        return found
    }

    // MARK: CenterFace

    private func decodeCenterFace(_ outputs: [Tensor], input: (width: Int, height: Int), threshold: Float) throws -> [FaceCandidate] {
        let fw = input.width / 4, fh = input.height / 4, cells = fw * fh
        let heat = outputs[0].values, scale = outputs[1].values, offset = outputs[2].values, marks = outputs[3].values
        guard heat.count == cells, scale.count == 2 * cells, offset.count == 2 * cells, marks.count == 10 * cells else {
            throw InferenceError.failed("the model's outputs do not match CenterFace (heatmap 1, scale 2, offset 2, landmarks 10 channels of \(fw)x\(fh))")
        }
        var found: [FaceCandidate] = []
        for row in 0..<fh {
            for col in 0..<fw {
                let i = row * fw + col
                let score = heat[i]
                guard score >= threshold else { continue }
                let h = exp(scale[i]) * 4, w = exp(scale[cells + i]) * 4
                let x = (Float(col) + offset[cells + i] + 0.5) * 4 - w / 2
                let y = (Float(row) + offset[i] + 0.5) * 4 - h / 2
                // Landmark k: channel 2k is y, 2k + 1 is x, relative to the box.
                var landmarks = [Float](repeating: 0, count: 10)
                for k in 0..<5 {
                    let dx: Float = marks[(2 * k + 1) * cells + i] * w, dy: Float = marks[2 * k * cells + i] * h
                    landmarks[2 * k] = x + dx
                    landmarks[2 * k + 1] = y + dy
                }
                found.append(FaceCandidate(x: x, y: y, w: w, h: h, score: score, landmarks: landmarks))
            }
        }
        return found
    }
}

extension KnownModel {
    /// How the model is fed and decoded.
    public var kind: FaceModelKind {
        switch name {
        case "yunet": return .yunetLegacy
        case "ultraface": return .ultraface(width: 320, height: 240)
        case "ultraface-640": return .ultraface(width: 640, height: 480)
        default: return .centerface
        }
    }
}

/// A face as a model gave it, in input-image pixels.
package struct FaceCandidate {
    package var x, y, w, h: Float
    package var score: Float
    /// Empty, or x0, y0 … x4, y4: eyes, nose tip, mouth corners, the image's left first.
    package var landmarks: [Float]
}

/// OpenCV's non-maximum suppression (the boxes kept, best score first).
package func nonMaximumSuppression(_ candidates: [FaceCandidate], threshold: Float, overlap: Float) throws -> [Int] {
    guard !candidates.isEmpty else { return [] }
    let boxes = candidates.flatMap { [$0.x, $0.y, $0.w, $0.h] }
    let scores = candidates.map(\.score)
    var keep = [Int32](repeating: 0, count: candidates.count)
    var error = [CChar](repeating: 0, count: 256)
    let n = slv_nms_boxes(boxes, scores, Int32(candidates.count), threshold, overlap, &keep, &error, error.count)
    guard n >= 0 else { throw InferenceError.failed(error.cString) }
    return keep.prefix(Int(n)).map(Int.init)
}
