import CVision
import Foundation
import SightlineFrames
import SightlineMedia

/// Which face detector runs.
public enum FaceBackend: String, CaseIterable, Sendable {
    case centerface, haar, haarAlt2 = "haar-alt2", lbp, yunet, ultraface, ultraface640 = "ultraface-640", off

    /// The OpenCV cascade file (from Debian's opencv-data) behind each cascade backend.
    package var cascadeFile: String? {
        switch self {
        case .haar: return "haarcascades/haarcascade_frontalface_default.xml"
        case .haarAlt2: return "haarcascades/haarcascade_frontalface_alt2.xml"
        case .lbp: return "lbpcascades/lbpcascade_frontalface_improved.xml"
        case .centerface, .yunet, .ultraface, .ultraface640, .off: return nil
        }
    }

    /// The ONNX model behind each DNN backend (nil for the cascades and off).
    public var model: KnownModel? { KnownModel.named(rawValue) }
}

/// Options for face detection, one value shared by every worker's detector.
public struct FaceDetectorOptions: Sendable, Equatable {
    public var backend: FaceBackend = .centerface
    /// Smallest face searched for, in pixels of the displayed frame.
    public var minFace = 16
    /// Width of the downscaled image the detector runs on (0: full size).
    public var detectWidth = 640
    /// Cascade pyramid step.
    public var scaleFactor = 1.1
    /// Raw detections that must agree before a face is reported.
    public var minNeighbors = 3
    /// Search each face for eyes and a smile (FaceAttributes); off by default for its cost.
    public var attributes = false
    /// DNN backends: smallest score reported (nil: the model's default, see `KnownModel`).
    public var threshold: Double?
    /// DNN backends: overlap (IoU) above which the weaker of two faces is dropped.
    public var nmsIoU = 0.3
    /// DNN backends: a model file to load instead of the installed one (`--face-model`).
    public var modelPath: String?
    /// DNN backends: make the detection image in colour from the chroma planes (false: luma only).
    public var color = true
    /// DNN backends: the library that runs the model.
    public var runtime: DNNRuntime = .openvino
    /// The arithmetic asked for; `precisionInEffect` is the one the network runs in.
    public var precision: DNNPrecision = .int8
    /// What the network's placement puts first: speed (a file), a quick start (a live source:
    /// `ResolvedFaceDetector.forLiveSource`) or memory (`anonymize`, which also gets one worker
    /// per stream for a large input: `AnalysisPipeline.workers`).
    public var networkPriority: NetworkPriority = .speed

    public init(backend: FaceBackend = .centerface, minFace: Int = 16, detectWidth: Int = 640) {
        self.backend = backend
        self.minFace = minFace
        self.detectWidth = detectWidth
    }

    /// Folders searched for OpenCV's cascade files: $SIGHTLINE_OPENCV_DATA first, then the
    /// places Debian's and upstream's opencv-data install them.
    package static var dataDirectories: [String] {
        var dirs = ["/usr/share/opencv4", "/usr/local/share/opencv4", "/usr/share/opencv"]
        if let custom = ProcessInfo.processInfo.environment["SIGHTLINE_OPENCV_DATA"] { dirs.insert(custom, at: 0) }
        return dirs
    }

    /// The score threshold in effect: `threshold`, or the default of the network that runs (the
    /// INT8 one's is its own: its scores of small faces run a little under f32's).
    public var effectiveThreshold: Double {
        threshold ?? (runsInt8Variant ? backend.model?.int8Variant?.defaultThreshold : nil) ?? backend.model?.defaultThreshold ?? 0
    }

    /// Whether the model's INT8 network runs: asked for (int8), one exists, on OpenVINO, and no
    /// other file was given.
    package var runsInt8Variant: Bool { precision == .int8 && modelPath == nil && runtime == .openvino && backend.model?.int8Variant != nil }

    /// The arithmetic the network runs in: int8 becomes f32 where there is no INT8 network
    /// (another backend, `--face-model`, OpenCV).
    public var precisionInEffect: DNNPrecision { precision == .int8 && !runsInt8Variant ? .f32 : precision }

    /// The detector these options ask for, made ready to build: the DNN model file found (see
    /// `ModelStore`) and hashed, and the runtime loaded. Every worker's detector is built from the
    /// one value this returns, so the lookup, the hash and the runtime's setup happen once.
    public func resolve(store: ModelStore = ModelStore()) throws -> ResolvedFaceDetector {
        guard let known = backend.model else {
            return ResolvedFaceDetector(options: self, model: nil, runtimeVersion: nil, cascadePath: try cascadePath())
        }
        let model = try store.resolve(runsInt8Variant ? known.int8Variant ?? known : known, override: modelPath)
        if runtime == .openvino {
            do {
                _ = try OpenVINORuntime.loaded()
            } catch let error as InferenceError {
                throw SightlineError.detectorUnavailable(name: backend.rawValue, reason: setupAdvice(error))
            }
        }
        return ResolvedFaceDetector(options: self, model: model, runtimeVersion: inferenceRuntimeVersion(runtime), cascadePath: nil)
    }

    /// A setup failure with what to do about it, on one line.
    package func setupAdvice(_ error: InferenceError) -> String {
        switch error {
        case .runtimeMissing:
            return "\(error); install it with Scripts/install-deps.sh, or use --dnn-runtime opencv, or --faces haar-alt2, which needs nothing"
        case let .wrongModel(path, reason):
            return "\(path) is not a \(backend.rawValue) model: \(reason); --faces haar-alt2 needs no model"
        default:
            return "\(error); --faces haar-alt2 needs no model"
        }
    }

    /// The smallest face the whole-frame pass of a tiled schedule is sized for: smaller ones
    /// (down to `minFace`) are searched on full-scale tiles (`TileGrid`).
    public static let wholeFrameMinFace = 40
    /// The smallest face the whole-frame pass looks for when frames are tiled.
    package var wholePassMinFace: Int { max(minFace, Self.wholeFrameMinFace) }
    /// Whether frames of some size get tiles (`TileGrid`): CenterFace on OpenVINO asked for faces
    /// smaller than the whole-frame pass's.
    package var mayTile: Bool { backend == .centerface && runtime == .openvino && minFace < Self.wholeFrameMinFace }

    /// The full-scale tiles of a displayed frame of this size (nil: the whole-frame pass finds
    /// faces down to `minFace` by itself).
    public func tileGrid(width: Int, height: Int) -> TileGrid? { TileGrid(width: width, height: height, options: self) }

    /// The network input size of the scheduled whole-frame pass for frames of this displayed size
    /// (nil for the cascades): sized for `minFace`, or for `wholePassMinFace` when the frame is tiled.
    public func networkInputSize(width: Int, height: Int) -> (width: Int, height: Int)? {
        let smallest = tileGrid(width: width, height: height) == nil ? minFace : wholePassMinFace
        return backend.model?.kind.inputSize(width: width, height: height, detectWidth: detectWidth, minFace: smallest)
    }

    /// Full path of the cascade file, or nil when the backend has none.
    public func cascadePath() throws -> String? {
        try backend.cascadeFile.map { try Self.dataFile($0, for: backend.rawValue) }
    }

    /// Full path of an opencv-data file such as "haarcascades/haarcascade_eye.xml".
    package static func dataFile(_ file: String, for detector: String) throws -> String {
        for dir in dataDirectories {
            let path = dir + "/" + file
            if FileManager.default.isReadableFile(atPath: path) { return path }
        }
        throw SightlineError.detectorUnavailable(
            name: detector,
            reason: "\((file as NSString).lastPathComponent) not found in \(dataDirectories.joined(separator: ", ")) (install Debian's opencv-data)")
    }
}

/// A face detector working on whole frames. Not thread-safe: one instance per worker.
package protocol FaceDetecting: AnyObject {
    /// The faces of the whole frame, down to the smallest face asked for.
    func detect(_ frame: VideoFrame) throws -> [FaceObservation]
    /// The faces of a frame as its plan says, with where it looked, for the record: without
    /// `tile`, as `detect(_:)`; with it, the whole-frame pass of a tiled schedule and that
    /// full-scale tile (`TileGrid`).
    func detect(_ frame: VideoFrame, tile: Int?) throws -> (faces: [FaceObservation], search: FaceSearch)
    /// Starts making ready, in the background, what detecting in frames of this displayed size
    /// needs (the first `detect` waits for it).
    func prepare(width: Int, height: Int)
}

extension FaceDetecting {
    package func prepare(width: Int, height: Int) {}
}

/// One worker's detector, or nil when faces are off. `workers`: the detectors that share the
/// compiled network (a run's analysis threads).
package func makeFaceDetector(_ detector: ResolvedFaceDetector, workers: Int) throws -> FaceDetecting? {
    if detector.model != nil {
        return try DNNFaceDetector(detector, workers: workers)
    }
    return try detector.cascadePath.map { try CascadeFaceDetector(options: detector.options, path: $0) }
}

/// An OpenCV cascade face detector. Not thread-safe: one instance per worker.
public final class CascadeFaceDetector: FaceDetecting {
    private let handle: OpaquePointer
    private let options: FaceDetectorOptions
    private var found = [slv_face](repeating: slv_face(), count: 256)

    public init(options: FaceDetectorOptions, path: String) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = slv_cascade_create(path, &error, error.count) else {
            throw SightlineError.detectorUnavailable(name: path, reason: error.cString)
        }
        self.handle = handle
        self.options = options
    }

    deinit { slv_cascade_destroy(handle) }

    /// Cascades have no tiles: the whole frame, scaled to `detectWidth` as the C side does.
    package func detect(_ frame: VideoFrame, tile: Int?) throws -> (faces: [FaceObservation], search: FaceSearch) {
        let width = frame.rotation.swapsAxes ? frame.luma.height : frame.luma.width
        let scale = options.detectWidth > 0 && options.detectWidth < width ? Double(options.detectWidth) / Double(width) : 1
        return (try detect(frame), FaceSearch(wholeScale: scale))
    }

    /// Faces in the displayed (rotated) frame. `region`, in displayed-frame pixels, limits the
    /// search, and `sizes` and `scaleFactor` override the options' (all three for region refinement).
    public func detect(in image: GrayImage, rotation: Rotation, region: Box? = nil,
                       sizes: ClosedRange<Int>? = nil, scaleFactor: Double? = nil) throws -> [FaceObservation] {
        var o = slv_cascade_options()
        o.detect_width = Int32(options.detectWidth)
        o.min_face = Int32(sizes?.lowerBound ?? options.minFace)
        o.max_face = Int32(sizes?.upperBound ?? 0)
        o.rotation = Int32(rotation.degrees)
        o.scale_factor = scaleFactor ?? options.scaleFactor
        o.min_neighbors = Int32(options.minNeighbors)
        if let region {
            o.roi_x = Int32(region.x.rounded(.down)); o.roi_y = Int32(region.y.rounded(.down))
            o.roi_w = Int32(region.w.rounded(.up)); o.roi_h = Int32(region.h.rounded(.up))
        }
        var error = [CChar](repeating: 0, count: 512)
        let count = slv_cascade_detect(handle, image.image, &o, &found, Int32(found.count), &error, error.count)
        guard count >= 0 else {
            throw SightlineError.internal("face detection failed: " + error.cString)
        }
        return found.prefix(Int(count)).map {
            FaceObservation(box: Box(x: Double($0.x), y: Double($0.y), w: Double($0.w), h: Double($0.h)), score: Double($0.neighbors))
        }
    }

    package func detect(_ frame: VideoFrame) throws -> [FaceObservation] {
        try detect(in: frame.luma, rotation: frame.rotation)
    }
}

/// An ONNX face detector (CenterFace, YuNet, UltraFace) run by an inference runtime (OpenVINO or
/// OpenCV's DNN module). It gets a small detection image made from the frame's planes, in colour
/// when the frame has chroma planes; decoding is the model kind's, the same on every runtime.
/// Not thread-safe: one instance per worker.
public final class DNNFaceDetector: FaceDetecting {
    private let options: FaceDetectorOptions
    private let kind: FaceModelKind
    private let session: InferenceSession
    private let input: NetworkInput
    /// The tiles' input, apart from the whole frame's: each keeps its buffer from frame to frame.
    private let tileInput: NetworkInput
    /// The crops of region searches run together (`detect(_:regions:)`).
    private let batchInput: NetworkInputBatch

    /// `workers`: the detectors that share the compiled network (a run's analysis threads). A
    /// file not checked against the registry (`--face-model`) is checked now (its inputs and
    /// outputs), so a wrong file fails before the run starts.
    public init(_ detector: ResolvedFaceDetector, workers: Int = 1) throws {
        guard let known = detector.backend.model, let file = detector.model else {
            throw SightlineError.internal("DNNFaceDetector needs a DNN backend, not \(detector.backend.rawValue)")
        }
        options = detector.options
        kind = known.kind
        do {
            session = try makeInferenceSession(runtime: options.runtime, modelPath: file.path, outputs: known.kind.outputs,
                                               workers: workers, priority: options.networkPriority, precision: detector.precision,
                                               knownSHA256: file.verified ? file.sha256 : nil)
            input = try NetworkInput()
            tileInput = try NetworkInput()
            batchInput = try NetworkInputBatch()
        } catch let error as InferenceError {
            throw SightlineError.detectorUnavailable(name: options.backend.rawValue, reason: options.setupAdvice(error))
        }
    }

    /// A tiled frame size gets its whole-frame pass and its tile compiled; another, its whole frame.
    package func prepare(width: Int, height: Int) {
        guard let grid = grid(width: width, height: height) else {
            let input = inputSize(displayW: width, displayH: height, minFace: options.minFace)
            return session.prepare(width: input.width, height: input.height)
        }
        let whole = inputSize(displayW: width, displayH: height, minFace: options.wholePassMinFace)
        session.prepare(width: whole.width, height: whole.height)
        session.prepare(width: grid.inputWidth, height: grid.inputHeight)
    }

    /// The tiles of this frame (nil: not tiled).
    package func tiles(_ frame: VideoFrame) -> TileGrid? {
        let (width, height) = displaySize(frame)
        return grid(width: width, height: height)
    }

    /// Made for each frame (a few divisions): a detector keeps no state a frame's size changes.
    private func grid(width: Int, height: Int) -> TileGrid? { options.tileGrid(width: width, height: height) }

    /// Where the frame is tiled, the whole frame at the scale of the whole-frame pass's smallest
    /// face (`wholePassMinFace`) and `tile` at full scale for the smaller faces (nil: every tile,
    /// on the networks already compiled). A tile adds only the faces the whole frame did not give:
    /// not overlapping one of those, and not cut by the tile's inner edges (a face that small lies
    /// whole in the neighbouring tile, which finds it in its turn). Otherwise the whole frame down
    /// to `minFace`.
    package func detect(_ frame: VideoFrame, tile: Int?) throws -> (faces: [FaceObservation], search: FaceSearch) {
        let pass = sizes(frame)
        let (displayW, displayH) = (pass.displayW, pass.displayH)
        guard let grid = pass.grid else {
            let input = inputSize(displayW: displayW, displayH: displayH, minFace: options.minFace)
            return (try detect(frame), FaceSearch(wholeScale: Double(input.width) / Double(max(1, displayW))))
        }
        var (faces, search) = try wholePass(frame, pass)
        let tiles: [Int]
        if let tile {
            tiles = [tile % grid.count]
            search.tile = FaceSearch.Tile(index: tiles[0], count: grid.count, box: grid.tiles[tiles[0]])
        } else {
            tiles = Array(grid.tiles.indices)
            search.everyTile = grid.count
        }
        for index in tiles {
            // Also besides the earlier tiles' faces: a face in an overlap is found in both.
            faces += try detect(frame, tile: grid.tiles[index], of: grid, besides: faces, displayW: displayW, displayH: displayH)
        }
        return (Self.topLeftFirst(faces), search)
    }

    /// The faces of one tile that `found` does not have already.
    private func detect(_ frame: VideoFrame, tile box: Box, of grid: TileGrid, besides found: [FaceObservation],
                        displayW: Int, displayH: Int) throws -> [FaceObservation] {
        let inner = (left: box.x > 0, top: box.y > 0, right: box.x + box.w < Double(displayW), bottom: box.y + box.h < Double(displayH))
        return try detect(frame, region: box, input: (grid.inputWidth, grid.inputHeight), buffer: tileInput).filter { face in
            let b = face.box
            guard max(b.w, b.h) >= Double(options.minFace) || max(b.w, b.h) * grid.scale >= FaceModelKind.smallestReliableFace else { return false }
            // The network's box of a cut face stops a little short of the cut.
            let m = max(2, 0.15 * max(b.w, b.h))
            if inner.left && b.x <= box.x + m || inner.top && b.y <= box.y + m
                || inner.right && b.x + b.w >= box.x + box.w - m || inner.bottom && b.y + b.h >= box.y + box.h - m { return false }
            // Not a face found already, nor a part of one (mostly inside it).
            return !found.contains { f in
                let ix = max(0, min(f.box.x + f.box.w, b.x + b.w) - max(f.box.x, b.x))
                let iy = max(0, min(f.box.y + f.box.h, b.y + b.h) - max(f.box.y, b.y))
                return f.box.iou(b) > 0.3 || ix * iy > 0.5 * b.area
            }
        }
    }

    /// The scheduled whole-frame pass alone: in a tiled frame, for faces from `wholePassMinFace`
    /// (a crowd's frame between detections, whose small faces the region search follows).
    package func detectWholePass(_ frame: VideoFrame) throws -> (faces: [FaceObservation], search: FaceSearch) {
        try wholePass(frame, sizes(frame))
    }

    private func wholePass(_ frame: VideoFrame, _ pass: Sizes) throws -> (faces: [FaceObservation], search: FaceSearch) {
        (try detect(frame, input: pass.input, minFace: pass.smallest),
         FaceSearch(wholeScale: Double(pass.input.width) / Double(max(1, pass.displayW))))
    }

    /// Starts compiling the network for region searches, while the workers compile theirs.
    package func prepareRegionSearch() {
        for batch in session.runsBatches ? Self.regionBatches : [1] {
            session.prepare(width: Self.regionInputSide, height: Self.regionInputSide, batch: batch)
        }
    }

    /// The side of the network's input for a region search: a region twice the face's size then
    /// shows the face at about 48 px, within the 40–60 px where the network finds faces best.
    package static let regionInputSide = 96

    /// Faces in a region of the displayed frame (re-detecting a known face between full
    /// detections): the region's planes are scaled to a `regionInputSide` square, geometry is
    /// mapped back to displayed-frame pixels. Sorted by score, best first.
    package func detect(_ frame: VideoFrame, region: Box) throws -> [FaceObservation] {
        try detect(frame, region: region, input: (Self.regionInputSide, Self.regionInputSide), buffer: input)
    }

    /// The sizes of the batches region searches run in (`detect(_:regions:)`): fours, then the
    /// rest alone. On the crowd scene's anonymization, batches of 8, 4, 2 and 1 took as much CPU
    /// as fours alone, and each batch size is a network compiled for every worker (about 25 MB).
    package static let regionBatches = [4, 1]

    /// `count` region searches cut into batches of `regionBatches` sizes, in order.
    package static func batches(of count: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = [], start = 0
        while let size = regionBatches.first(where: { $0 <= count - start }) {
            ranges.append(start..<start + size)
            start += size
        }
        return ranges
    }

    /// Faces in each of `regions` (as `detect(_:region:)` finds them): the crops go through the
    /// network in batches (`regionBatches`, in order), which costs less per crop; a crop's faces
    /// are the same in any batch (the suite checks it on the CPU it runs on).
    package func detect(_ frame: VideoFrame, regions: [Box]) throws -> [[FaceObservation]] {
        guard session.runsBatches else { return try regions.map { try detect(frame, region: $0) } }
        let crops = regions.map { frame.yuv(cropping: frame.rotation.coded($0)) }
        var found = [[FaceObservation]](repeating: [], count: regions.count)
        let cropped = crops.indices.filter { crops[$0] != nil }
        for range in Self.batches(of: cropped.count) {
            let batch = Array(cropped[range])
            let side = Self.regionInputSide
            let outputs = try inference {
                try session.run(try batchInput.make(batch.map { crops[$0]!.image }, rotation: frame.rotation, width: side, height: side,
                                                    layout: kind.layout, color: options.color))
            }
            for (k, i) in batch.enumerated() {
                found[i] = try faces(outputs.map { $0.item(k, of: batch.count) }, input: (side, side),
                                     shown: frame.rotation.display(crops[i]!.rect))
            }
        }
        return found
    }

    /// `body`'s inference errors as one frame's error.
    private func inference<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as InferenceError {
            throw SightlineError.internal("face detection failed: \(error)")
        }
    }

    /// Faces in a region of the displayed frame scaled to an input of `input` (a tile's), made in
    /// `buffer`. Sorted by score, best first.
    private func detect(_ frame: VideoFrame, region: Box, input size: (width: Int, height: Int),
                        buffer: NetworkInput) throws -> [FaceObservation] {
        guard let (picture, rect) = frame.yuv(cropping: frame.rotation.coded(region)) else { return [] }
        let outputs = try inference {
            try session.run(try buffer.make(picture, rotation: frame.rotation, width: size.width, height: size.height, layout: kind.layout,
                                            color: options.color))
        }
        return try faces(outputs, input: size, shown: frame.rotation.display(rect))
    }

    /// The faces of one region's network outputs (an input of `size` showing `shown`, in
    /// displayed-frame pixels), sorted by score, best first.
    private func faces(_ outputs: [Tensor], input size: (width: Int, height: Int), shown: Box) throws -> [FaceObservation] {
        let threshold = Float(options.effectiveThreshold)
        let (candidates, keep) = try inference {
            let candidates = try kind.decode(outputs, input: size, threshold: threshold)
            return (candidates, try nonMaximumSuppression(candidates, threshold: threshold, overlap: Float(options.nmsIoU > 0 ? options.nmsIoU : 0.3)))
        }
        let sx = shown.w / Double(size.width), sy = shown.h / Double(size.height)
        func place(_ x: Float, _ y: Float) -> Point {
            Point(x: Double(Float(shown.x + Double(x) * sx)), y: Double(Float(shown.y + Double(y) * sy)))
        }
        var faces: [FaceObservation] = []
        for i in keep {
            let c = candidates[i]
            let a = place(c.x, c.y), b = place(c.x + c.w, c.y + c.h)
            var landmarks: FaceLandmarks?
            if c.landmarks.count == 10 {
                let p = stride(from: 0, to: 10, by: 2).map { place(c.landmarks[$0], c.landmarks[$0 + 1]) }
                landmarks = FaceLandmarks(leftEye: p[0], rightEye: p[1], nose: p[2], mouthLeft: p[3], mouthRight: p[4])
            }
            faces.append(FaceObservation(box: Box(x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y),
                                         score: Double(min(1, max(0, c.score))), landmarks: landmarks))
        }
        return faces.enumerated().sorted { x, y in
            x.element.score != y.element.score ? x.element.score > y.element.score : x.offset < y.offset
        }.map(\.element)
    }

    /// A frame's displayed size, its tiles, and the scheduled whole-frame pass: its smallest face
    /// and its input. Worked out once per frame.
    private typealias Sizes = (displayW: Int, displayH: Int, grid: TileGrid?, smallest: Int, input: (width: Int, height: Int))

    private func sizes(_ frame: VideoFrame) -> Sizes {
        let (displayW, displayH) = displaySize(frame)
        let grid = grid(width: displayW, height: displayH)
        let smallest = grid == nil ? options.minFace : options.wholePassMinFace
        return (displayW, displayH, grid, smallest, inputSize(displayW: displayW, displayH: displayH, minFace: smallest))
    }

    private func displaySize(_ frame: VideoFrame) -> (width: Int, height: Int) {
        frame.rotation.swapsAxes ? (frame.luma.height, frame.luma.width) : (frame.luma.width, frame.luma.height)
    }

    /// The network's input for the whole of a displayed frame of this size, for faces from `minFace`.
    private func inputSize(displayW: Int, displayH: Int, minFace: Int) -> (width: Int, height: Int) {
        kind.inputSize(width: displayW, height: displayH, detectWidth: options.detectWidth, minFace: minFace)
    }

    /// Whether the scheduled whole-frame pass over `frame` gives the network fewer pixels than
    /// region searches of `regions` faces (a crowd): the network's time grows with its input's pixels.
    package func wholeFrameIsCheaper(_ frame: VideoFrame, regions: Int) -> Bool {
        let input = sizes(frame).input
        return regions * Self.regionInputSide * Self.regionInputSide > input.width * input.height
    }

    /// The faces of the whole frame, down to `minFace` (the full-scale frame, for 16 px).
    public func detect(_ frame: VideoFrame) throws -> [FaceObservation] {
        let (displayW, displayH) = displaySize(frame)
        return try detect(frame, input: inputSize(displayW: displayW, displayH: displayH, minFace: options.minFace),
                          minFace: options.minFace)
    }

    /// The faces of the whole frame scaled to `size`, from `minFace` (or the smallest size the
    /// network finds reliably in its input), top-left first.
    private func detect(_ frame: VideoFrame, input size: (width: Int, height: Int), minFace: Int) throws -> [FaceObservation] {
        let (displayW, displayH) = displaySize(frame)
        guard displayW > 0, displayH > 0 else { return [] }
        let threshold = Float(options.effectiveThreshold)
        let candidates: [FaceCandidate]
        let keep: [Int]
        do {
            let image = try input.make(frame, width: size.width, height: size.height, layout: kind.layout, color: options.color)
            candidates = try kind.decode(try session.run(image), input: size, threshold: threshold)
            keep = try nonMaximumSuppression(candidates, threshold: threshold, overlap: Float(options.nmsIoU > 0 ? options.nmsIoU : 0.3))
        } catch let error as InferenceError {
            throw SightlineError.internal("face detection failed: \(error)")
        }
        // Back to displayed-frame pixels, clipped to the frame.
        let sx = Double(displayW) / Double(size.width), sy = Double(displayH) / Double(size.height)
        var faces: [FaceObservation] = []
        for i in keep {
            let c = candidates[i]
            let x0 = max(0, Double(c.x) * sx), y0 = max(0, Double(c.y) * sy)
            let x1 = min(Double(displayW), Double(c.x + c.w) * sx), y1 = min(Double(displayH), Double(c.y + c.h) * sy)
            // --min-face sizes the input; what the network finds is kept down to the size it finds
            // reliably (in its input), and always from --min-face up.
            guard x1 > x0, y1 > y0, max(x1 - x0, y1 - y0) >= Double(minFace)
                    || max((x1 - x0) / sx, (y1 - y0) / sy) >= FaceModelKind.smallestReliableFace else { continue }
            var landmarks: FaceLandmarks?
            if c.landmarks.count == 10 {
                let p = c.landmarks.enumerated().map { Double(Float(Double($0.element) * ($0.offset % 2 == 1 ? sy : sx))) }
                landmarks = FaceLandmarks(leftEye: Point(x: p[0], y: p[1]), rightEye: Point(x: p[2], y: p[3]),
                                          nose: Point(x: p[4], y: p[5]),
                                          mouthLeft: Point(x: p[6], y: p[7]), mouthRight: Point(x: p[8], y: p[9]))
            }
            let box = Box(x: Double(Float(x0)), y: Double(Float(y0)), w: Double(Float(x1 - x0)), h: Double(Float(y1 - y0)))
            faces.append(FaceObservation(box: box, score: Double(min(1, max(0, c.score))), landmarks: landmarks))
        }
        return Self.topLeftFirst(faces)
    }

    /// Stable order (top-left first), as for the cascades.
    private static func topLeftFirst(_ faces: [FaceObservation]) -> [FaceObservation] {
        faces.enumerated().sorted { a, b in
            if a.element.box.y != b.element.box.y { return a.element.box.y < b.element.box.y }
            if a.element.box.x != b.element.box.x { return a.element.box.x < b.element.box.x }
            return a.offset < b.offset
        }.map(\.element)
    }
}
