import SightlineFrames
import SightlineMedia
import SightlineTracking

/// Searches a frame around one live track's predicted place. A face, DNN backends: the same
/// network on a crop around the predicted box. A face, cascades: its appearance patch from
/// the last detection first, then (a changed look, or no patch) the face cascade with sizes near
/// the track's. A code: the code reader for the track's symbology only, giving the read of the full
/// options (upright passes first). It holds detectors of its own (neither cascades nor code
/// readers may be shared between threads): one searcher per thread.
package final class RegionSearcher {
    /// What one search gave.
    package enum Outcome {
        case face(FaceObservation)
        case code(CodeObservation)
        /// Nothing to add (not searched, or not found and too long unseen to interpolate).
        case nothing
        case faceFailed
        case codeFailed
    }

    private let faceDetector: CascadeFaceDetector?
    /// DNN backends: the same network re-detects a known face on a crop around it.
    private let network: DNNFaceDetector?
    private let codeOptions: CodeReaderOptions
    /// A reader per symbology and passes: reading one known code skips every other format's pass
    /// (most of zxing's time on a region that holds a QR code).
    private var codeReaders: [ReaderKey: CodeReader] = [:]
    private let detectEvery: Int

    /// `searchFaces` false: codes only (every frame has its faces detected). `workers`: the
    /// detectors that share the compiled network.
    package init(faces: ResolvedFaceDetector, codes: CodeReaderOptions, detectEvery: Int, searchFaces: Bool = true, workers: Int) throws {
        if faces.model != nil {
            network = searchFaces ? try DNNFaceDetector(faces, workers: workers) : nil
            faceDetector = nil
        } else {
            network = nil
            faceDetector = searchFaces ? try faces.cascadePath.map { try CascadeFaceDetector(options: faces.options, path: $0) } : nil
        }
        codeOptions = codes
        self.detectEvery = detectEvery
    }

    package var searchesFaces: Bool { faceDetector != nil || network != nil }
    /// Whether `searchFaces` takes the faces of a frame at once (the network's backends).
    package var searchesFacesTogether: Bool { network != nil }

    /// Network backends: each face track's search, the crops of all of them run through the
    /// network together (`DNNFaceDetector.detect(_:regions:)`). A face is searched on a square
    /// twice its size around where it was last seen, kept inside the frame: it shows at about
    /// 48 px in the network's input (a face moves far less than half its size per frame). Not
    /// found there: the track goes unseen (gap rule).
    package func searchFaces(_ predictions: [Tracker.Prediction], frame: VideoFrame) -> [Outcome] {
        guard let network else { return predictions.map { _ in .nothing } }
        let rotation = frame.rotation
        let width = rotation.swapsAxes ? rotation.codedHeight : rotation.codedWidth
        let height = rotation.swapsAxes ? rotation.codedWidth : rotation.codedHeight
        let regions = predictions.map { prediction in
            let s = prediction.seen
            let side = 2 * max(s.w, s.h)
            let x = min(max(0, s.center.x - side / 2), max(0, width - side))
            let y = min(max(0, s.center.y - side / 2), max(0, height - side))
            return Box(x: x, y: y, w: min(side, width), h: min(side, height))
        }
        guard let found = try? network.detect(frame, regions: regions) else { return predictions.map { _ in .faceFailed } }
        return zip(predictions, found).map { prediction, faces in
            guard var best = faces.first(where: { prediction.seen.iou($0.box) >= 0.3 }) else { return .nothing }
            best.track = prediction.id
            best.source = .refined
            return .face(best)
        }
    }

    /// Whether face searches use the appearance patch of the last detection (cascade backends).
    package var usesPatches: Bool { faceDetector != nil }
    package var searchesCodes: Bool { codeOptions.backend != .off }

    /// Starts compiling the network for region searches (all searchers share the compiled model).
    package func prepare() { network?.prepareRegionSearch() }

    /// Searches of a blank picture, one in each batch size, so the network's first inferences
    /// (their memory and kernels made, a few hundred milliseconds each) are done before a live
    /// source's first frame.
    package func warmUp() {
        let side = 2 * DNNFaceDetector.regionInputSide
        guard let network, let blank = VideoFrame.blank(width: side, height: side) else { return }
        let region = Box(x: 0, y: 0, w: Double(side), h: Double(side))
        _ = try? network.detect(blank, regions: Array(repeating: region, count: DNNFaceDetector.regionBatches.reduce(0, +)))
    }

    /// Whether following `faces` faces on crops would cost the network more than detecting the
    /// whole frame once (DNN backends).
    package func wholeFrameIsCheaper(_ frame: VideoFrame, faces: Int) -> Bool {
        network?.wholeFrameIsCheaper(frame, regions: faces) ?? false
    }

    /// The faces of the whole frame, by the scheduled whole-frame pass (DNN backends; a tiled
    /// frame's small faces are not among them).
    package func detectWholePass(_ frame: VideoFrame) throws -> (faces: [FaceObservation], search: FaceSearch) {
        try network?.detectWholePass(frame) ?? ([], FaceSearch())
    }

    /// The frame's tiles (DNN backends; nil: not tiled): its small faces are found on tiles, and
    /// the whole-frame pass does not see them.
    package func tiles(_ frame: VideoFrame) -> TileGrid? { network?.tiles(frame) }

    /// A patch this well correlated is the face. Measured on the samples: a face followed over
    /// four frames correlates 0.9 and more with its detection; other places of the frame stay
    /// below 0.6.
    package static let patchCorrelation = 0.75

    /// `patch`: the track's appearance at its last detection (faces; nil when there is none).
    package func search(_ prediction: Tracker.Prediction, patch: AppearancePatch?, frame: VideoFrame,
                        faces: Bool, codes: Bool) -> Outcome {
        let luma = frame.luma, rotation = frame.rotation
        // Search the predicted box grown by half its size on every side.
        let b = prediction.box
        let region = Box(x: b.x - b.w / 2, y: b.y - b.h / 2, w: b.w * 2, h: b.h * 2)
        // Where refinement fails, the motion model's box stands in, for at most one stride.
        let mayInterpolate = prediction.misses <= detectEvery
        switch prediction.kind {
        case .face where faces && network != nil:
            return searchFaces([prediction], frame: frame)[0]
        case .face where faces:
            if let patch, let found = patch.find(near: b, margin: 0.5, luma: luma, rotation: rotation),
               found.correlation >= Self.patchCorrelation {
                return .face(FaceObservation(box: found.box, score: patch.score, track: prediction.id, source: .refined))
            }
            guard let faceDetector else { return .nothing }
            do {
                // The face keeps roughly its size from one frame to the next: a few coarse
                // pyramid levels around it will do.
                let side = min(b.w, b.h)
                let found = try faceDetector.detect(in: luma, rotation: rotation, region: region,
                                                    sizes: max(8, Int(0.7 * side))...max(9, Int(1.45 * side)), scaleFactor: 1.2)
                if let best = found.max(by: { b.iou($0.box) < b.iou($1.box) }), b.iou(best.box) >= 0.2 {
                    return .face(FaceObservation(box: best.box, score: best.score, track: prediction.id, source: .refined))
                }
                return mayInterpolate ? .face(FaceObservation(box: b, score: 0, track: prediction.id, source: .interpolated)) : .nothing
            } catch {
                return .faceFailed
            }
        case .code where codes:
            guard let symbology = prediction.record.symbology,
                  let bytes = prediction.record.bytes else { return .nothing }
            // The predicted box grown by a margin: room for the quiet zone and a change of speed.
            let dx = 16 + 0.2 * b.w, dy = 16 + 0.2 * b.h
            let region = Box(x: b.x - dx, y: b.y - dy, w: b.w + 2 * dx, h: b.h + 2 * dy)
            do {
                // A code read along the picture's rows last time, dark on light (nearly all of
                // them), is read again without zxing's turned (columns) and inverted passes, which
                // cost twice as much again; the full options only when that finds nothing. Either
                // way it is the read the full options give.
                func read(_ passes: ReadPasses) throws -> [CodeObservation] {
                    try codesIn(region, symbology: symbology, passes: passes, luma: luma, rotation: rotation)
                        .filter { $0.symbology == symbology && $0.bytes == bytes }
                }
                var same = hasFewerPasses && Self.readsAlongRows(prediction.polygon.map(rotation.coded))
                    ? try read(.upright) : []
                if same.isEmpty { same = try read(.full) }
                if var best = same.min(by: { $0.box.center.distance(to: b.center) < $1.box.center.distance(to: b.center) }) {
                    best.track = prediction.id
                    best.source = .refined
                    return .code(best)
                }
                // A code is reported only where it was read: one that is covered or gone is not there.
                return .nothing
            } catch {
                return .codeFailed
            }
        default:
            return .nothing
        }
    }

    /// Whether an upright read skips passes the full options make (zxing with its turned or
    /// inverted pass on; zbar has no such passes).
    private var hasFewerPasses: Bool {
        codeOptions.backend == .zxing && (codeOptions.tryRotate || codeOptions.tryInvert)
    }

    /// Which of zxing's passes a region read makes.
    private enum ReadPasses: Hashable {
        /// All the options ask for.
        case full
        /// Along rows, dark modules on light: without the turned and the inverted passes.
        case upright
    }

    /// Whether a code's corners (in the coded picture) put its reading direction, from the first
    /// corner to the second, closer to the rows than to the columns.
    private static func readsAlongRows(_ corners: [Point]) -> Bool {
        guard corners.count >= 2 else { return false }
        return abs(corners[1].x - corners[0].x) >= abs(corners[1].y - corners[0].y)
    }

    /// Codes read in a displayed-frame region: the region is mapped back to the coded picture
    /// and read there in place.
    private func codesIn(_ region: Box, symbology: Symbology, passes: ReadPasses, luma: GrayImage,
                         rotation: Rotation) throws -> [CodeObservation] {
        let coded = rotation.coded(region)
        guard let crop = luma.cropped(x: Int(coded.x.rounded(.down)), y: Int(coded.y.rounded(.down)),
                                      width: Int(coded.w.rounded(.up)), height: Int(coded.h.rounded(.up))) else { return [] }
        let key = ReaderKey(symbology: symbology, passes: passes)
        if codeReaders[key] == nil {
            var options = codeOptions
            options.symbologies = [symbology]
            if passes == .upright {
                options.tryRotate = false
                options.tryInvert = false
            }
            codeReaders[key] = try makeCodeReader(options)
        }
        return try codeReaders[key]?.read(crop, rotation: rotation) ?? []
    }

    private struct ReaderKey: Hashable {
        let symbology: Symbology
        let passes: ReadPasses
    }
}
